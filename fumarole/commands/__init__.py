"""The subcommands of ``fumarole``, one module each.

``schedule``, ``simulate``, ``plugins`` (``plugins list``) and ``conf`` (``conf validate``,
``conf show``). Each module's ``register(subparsers)`` adds its parser and sets ``run(args, settings)``,
which returns the exit status; ``fumarole.cli`` parses, configures logging, runs the command and
turns the errors of bad input into exit status 2 with one message on standard error.
"""

from __future__ import annotations

import argparse

from fumarole.framework.settings import Settings

EXIT_OK = 0
EXIT_PROBLEMS = 1
"""``conf validate`` found problems in a conf."""
EXIT_BAD_INPUT = 2
"""Bad input: a file that cannot be read or used, a bad option (argparse uses 2 as well)."""


class UsageError(ValueError):
    """Bad input the user can fix; printed as ``fumarole: <message>`` with exit status 2."""


def add_strict_argument(parser: argparse.ArgumentParser) -> None:
    """``--strict``: any warning about the input is an error (also ``FUMAROLE_STRICT=1``)."""
    parser.add_argument(
        "--strict",
        action="store_true",
        help="fail (exit 2, nothing on stdout) on any warning about the input; also FUMAROLE_STRICT=1",
    )


def strict_requested(args: argparse.Namespace, settings: Settings) -> bool:
    return bool(getattr(args, "strict", False) or settings.strict)
