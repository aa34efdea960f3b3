"""The subcommands of ``fumarole``, one module each.

``schedule``, ``simulate``, ``plugins`` (``plugins list``) and ``conf`` (``conf validate``,
``conf show``). Each module's ``register(subparsers)`` adds its parser and sets ``run(args, settings)``,
which returns the exit status; ``fumarole.cli`` parses, configures logging, runs the command and
turns the errors of bad input into exit status 2 with one message on standard error.
"""

from __future__ import annotations

import argparse
from typing import Any

from fumarole.framework.settings import Settings

EXIT_OK = 0
EXIT_PROBLEMS = 1
"""``conf validate`` found problems in a conf."""
EXIT_BAD_INPUT = 2
"""Bad input: a file that cannot be read or used, a bad option (argparse uses 2 as well)."""
EXIT_BROKEN_PIPE = 141
"""Standard output closed early (``| head -1``): 128 + SIGPIPE, what a shell reports for a Unix tool
that SIGPIPE stopped; nothing is printed."""


class UsageError(ValueError):
    """Bad input the user can fix; printed as ``fumarole: <message>`` with exit status 2."""


SKIP_UNSUPPORTED_HELP = (
    "leave out, with a warning, the conf's Volcano plugins and actions fumarole does not implement "
    "(deviceshare, shuffle, ...), so the rest of the conf can be tried (also FUMAROLE_SKIP_UNSUPPORTED=true)"
)


def add_skip_unsupported(parser: Any) -> None:
    """The ``--skip-unsupported`` option of the commands that load a conf."""
    parser.add_argument("--skip-unsupported", action="store_true", help=SKIP_UNSUPPORTED_HELP)


def with_options(args: argparse.Namespace, settings: Settings) -> Settings:
    """The settings with the command line's overrides (``--skip-unsupported``)."""
    if getattr(args, "skip_unsupported", False) and not settings.skip_unsupported:
        return settings.model_copy(update={"skip_unsupported": True})
    return settings


def add_strict_argument(parser: argparse.ArgumentParser) -> None:
    """``--strict``: any warning about the input is an error (also ``FUMAROLE_STRICT=1``)."""
    parser.add_argument(
        "--strict",
        action="store_true",
        help="fail (exit 2, nothing on stdout) on any warning about the input; also FUMAROLE_STRICT=1",
    )


def strict_requested(args: argparse.Namespace, settings: Settings) -> bool:
    return bool(getattr(args, "strict", False) or settings.strict)
