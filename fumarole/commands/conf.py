"""``fumarole conf validate FILE...`` and ``fumarole conf show [FILE]``: check a scheduler conf, and
print it as the scheduler reads it.

``validate`` loads each file with the installed plugins and actions (their entry points) and prints
every problem, one line each in the shape ``<file>:<line>: <key>: <what>`` (Volcano's scheduler, by
contrast, logs the first error, ``Scheduler config ... is invalid: ...``, and keeps its previous
conf), then ``<file>: N problems``; or ``<file>: ok``. A valid conf's warnings (obsolete keys, entries
``--skip-unsupported`` left out) come first, one a line, ``<file>:<line>: warning: <text> [<code>]``,
and the last line says how many (``<file>: ok, 2 warnings``); they are not problems and leave the
exit status alone. Exit status 0 when every file is valid, 1 when one has problems, 2 when one cannot
be read (missing, a directory: said on standard error).

``show`` prints the conf after Volcano's defaulting (``ApplyPluginConfDefaults``): every enable flag
written out as true or false. ``enableHierarchy`` and ``enabledClusterOrder``, which Volcano never
defaults, are printed false when unset, which is what ``isEnabled(nil)`` makes of them. Keys are
Volcano's; the output is itself a conf that loads to the same conf. ``--no-defaults`` prints the conf
as written instead (only the flags it sets). Without FILE: the conf ``schedule`` would use
(``$FUMAROLE_CONF``, else Volcano's default conf). A ConfigMap-wrapped conf is shown unwrapped.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sized
from typing import Any

from loguru import logger

from fumarole.commands import (
    EXIT_BAD_INPUT,
    EXIT_OK,
    EXIT_PROBLEMS,
    add_skip_unsupported,
    with_options,
)
from fumarole.commands.schedule import chosen_conf
from fumarole.framework.conf import DEFAULT_CONF_SOURCE, ConfError, ConfUnreadable, load_conf
from fumarole.framework.registry import Registry
from fumarole.framework.settings import Settings

SHOW_HELP = (
    "print a conf after Volcano's defaulting: every enable flag true or false (enableHierarchy and "
    "enabledClusterOrder, never defaulted, are false when unset, as Volcano's isEnabled reads them); "
    "in Volcano's keys, itself a valid conf"
)


def register(commands: Any) -> None:
    parser = commands.add_parser("conf", help="check and show scheduler confs (Volcano YAML)")
    conf_commands = parser.add_subparsers(dest="command", required=True)
    validate = conf_commands.add_parser(
        "validate",
        help="check confs with the installed plugins and actions: every problem, with its line",
        description="Check each conf with the installed plugins and actions and print every problem with "
        "its line. Exit status 0: all valid; 1: problems found; 2: a file could not be read.",
    )
    validate.add_argument(
        "files",
        nargs="+",
        metavar="FILE",
        help="a conf, the ConfigMap that wraps it, or a whole installer YAML",
    )
    add_skip_unsupported(validate)
    validate.set_defaults(run=run_validate)
    show = conf_commands.add_parser(
        "show",
        help="print a conf after Volcano's defaulting, every enable flag resolved",
        description=SHOW_HELP[0].upper() + SHOW_HELP[1:] + ".",
    )
    show.add_argument(
        "file",
        nargs="?",
        metavar="FILE",
        help="a conf, or the ConfigMap that wraps it (default: the conf schedule would use: "
        "$FUMAROLE_CONF, else Volcano's default conf)",
    )
    show.add_argument(
        "--no-defaults", action="store_true", help="print the conf as written: only the flags it sets"
    )
    add_skip_unsupported(show)
    show.set_defaults(run=run_show)


def _count(items: Sized, what: str) -> str:
    return f"{len(items)} {what}" + ("" if len(items) == 1 else "s")


def run_validate(args: argparse.Namespace, settings: Settings) -> int:
    settings = with_options(args, settings)
    registry = Registry()
    unreadable = failed = False
    logger.disable("fumarole.framework.diagnostics")  # the warnings are this command's output
    for path in args.files:
        try:
            conf = load_conf(path, registry, skip_unsupported=settings.skip_unsupported)
        except ConfUnreadable as exc:
            print(f"fumarole: {exc}", file=sys.stderr)
            unreadable = True
        except ConfError as exc:
            for problem in exc.problems:
                print(problem)
            print(f"{path}: {_count(exc.problems, 'problem')}")
            failed = True
        else:
            warnings = list(conf.diagnostics)
            for warning in warnings:
                print(f"{warning.subject}: warning: {warning.text} [{warning.code}]")
            print(f"{path}: ok" + (f", {_count(warnings, 'warning')}" if warnings else ""))
        sys.stdout.flush()
    return EXIT_BAD_INPUT if unreadable else EXIT_PROBLEMS if failed else EXIT_OK


def run_show(args: argparse.Namespace, settings: Settings) -> int:
    settings = with_options(args, settings)
    conf = chosen_conf(args.file, settings, Registry(), apply_defaults=not args.no_defaults)
    source = "Volcano's default conf" if conf.source == DEFAULT_CONF_SOURCE else conf.source
    if args.no_defaults:
        header = f"# {source}, as written\n# (a flag left out is defaulted when the conf is loaded)\n"
    else:
        conf = conf.resolved()
        header = (
            f"# {source}, after Volcano's defaulting: every enable flag resolved\n"
            "# (enableHierarchy and enabledClusterOrder are never defaulted: unset is false)\n"
        )
    sys.stdout.write(header + conf.to_text())
    return EXIT_OK
