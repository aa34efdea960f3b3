"""The ``fumarole`` command line: ``schedule``, ``simulate``, ``plugins list``, ``conf validate``,
``conf show``, ``sweep`` (one module each in ``fumarole.commands``).

Exit status 0 on success, 1 when ``conf validate`` finds problems, 2 with one message on standard
error (``fumarole: ...``) for bad input, and with ``--strict`` (``FUMAROLE_STRICT``) for any warning
about the input (one line each). When standard output is a pipe that closes early
(``fumarole schedule ... | head -1``), fumarole stops writing and exits quietly with status 141
(128 + SIGPIPE), the status a shell reports for ``seq 1000000 | head -1``'s ``seq``; a standard
output closed from the start (``>&-``) is bad input.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from loguru import logger
from pydantic import ValidationError

from fumarole import __version__
from fumarole.commands import (
    EXIT_BAD_INPUT,
    EXIT_BROKEN_PIPE,
    UsageError,
    conf,
    plugins,
    run,
    schedule,
    simulate,
    strict_requested,
    sweep,
)
from fumarole.framework.cache import SnapshotError
from fumarole.framework.conf import ConfError
from fumarole.framework.diagnostics import LOG_MARK, StrictError
from fumarole.framework.registry import RegistryError
from fumarole.framework.settings import Settings

DESCRIPTION = (
    "Batch scheduling with Volcano's semantics: schedule a snapshot, simulate a workload, list the "
    "installed plugins, check a conf."
)


def _configure_logging(settings: Settings, *, strict: bool = False) -> None:
    """Log to stderr; with ``--strict`` the warnings about the input are printed as errors at the
    end (``StrictError``), so their log lines are left out."""
    logger.remove()
    logger.add(
        sys.stderr,
        level=settings.log_level,
        format="<level>{level: <8}</level> {message}",
        filter=(lambda record: LOG_MARK not in record["extra"]) if strict else None,
    )
    logger.enable("fumarole")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="fumarole", description=DESCRIPTION)
    parser.add_argument("--version", action="version", version=f"fumarole {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    for command in (schedule, simulate, plugins, conf, sweep, run):
        command.register(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    if sys.stdout is None:
        print("fumarole: standard output is closed", file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        try:
            return _main(argv)
        finally:  # what is still buffered is written now, where a closed pipe can be caught
            sys.stdout.flush()
    except BrokenPipeError:
        _discard_stdout()
        return EXIT_BROKEN_PIPE


def _discard_stdout() -> None:
    """Point standard output at /dev/null, so that flushing it at exit cannot fail again (Python would
    print ``Exception ignored ... BrokenPipeError``)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass


def _main(argv: Sequence[str] | None) -> int:
    args = _parser().parse_args(argv)
    try:
        settings = Settings()
    except ValidationError as exc:  # pydantic-settings validation of FUMAROLE_* variables
        problems = "; ".join(
            f"FUMAROLE_{str(error['loc'][0]).upper()}: {error['msg']} (got {error.get('input')!r})"
            for error in exc.errors()
        )
        print(f"fumarole: invalid setting: {problems}", file=sys.stderr)
        return EXIT_BAD_INPUT
    _configure_logging(settings, strict=strict_requested(args, settings))
    try:
        status: int = args.run(args, settings)
    except StrictError as exc:
        for line in str(exc).splitlines():
            print(f"fumarole: {line}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except (ConfError, SnapshotError, RegistryError, UsageError) as exc:
        print(f"fumarole: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    return status
