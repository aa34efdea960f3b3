"""Warnings about the input: what fumarole did that a user should know of, with a code, the object it
concerns and the text.

Every part that reads input (the conf loader, the snapshot codec, the cluster cache, the
controllers' expansion of workloads) adds to a ``Diagnostics``; the command line prints them on
stderr (logged as WARNING when first seen, one line each) and in its output (JSON ``warnings``, a
table), and ``--strict`` turns any of them into an error: exit 2, each warning one line on stderr
(``fumarole: <text> [<code>] (--strict)``, the log lines of warnings are then left out), nothing on
stdout. A warning is recorded once (same code, object and text), in the order it was first seen.

Codes (``Code``) name the class of input, so a test or a user's script can match on them.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass
from enum import StrEnum

from loguru import logger

LOG_MARK = "diagnostic"
"""The ``extra`` key of the log records of warnings (``--strict`` prints them as errors instead)."""


class Code(StrEnum):
    """What a warning is about."""

    KIND_IGNORED = "kind-ignored"
    """Objects of a kind the scheduler does not read (counted per kind and file)."""
    POD_LEFT_OUT = "pod-left-out"
    """A pod that takes no part in scheduling, and why (no PodGroup, unknown queue, …)."""
    DEFAULTED = "defaulted"
    """A default applied as the API server, a controller or Volcano would (requests from limits, an
    implicit PodGroup or queue, a workload expanded into pods)."""
    OBSOLETE_KEY = "obsolete-key"
    """A conf key an earlier Volcano release read, and what replaced it."""
    UNSUPPORTED_SKIPPED = "unsupported-skipped"
    """A Volcano plugin or action fumarole does not implement, skipped on request."""
    MISSING_REFERENCE = "missing-reference"
    """An object names another that is not in the snapshot (a PriorityClass, an owner), and what was
    used instead."""
    DELETE_MISSING = "delete-missing"
    """A deletion of an object that does not exist."""
    INEFFECTIVE_PLUGIN = "ineffective-plugin"
    """A conf places a plugin where it never decides (``capacity`` below the first tier with gang
    eviction)."""
    NODE_NOT_SCHEDULABLE = "node-not-schedulable"
    """A node that cannot take pods (no ``pods`` allocatable, not Ready, …)."""


@dataclass(frozen=True)
class Diagnostic:
    code: Code
    subject: str
    """The object or place concerned: ``Pod prod/web-0``, ``conf.yaml:12``, ``cluster.yaml``."""
    text: str
    """A sentence that stands alone (it names the object too)."""

    def to_json(self) -> dict[str, str]:
        out = asdict(self)
        out["code"] = str(self.code)
        return out

    def __str__(self) -> str:
        """``<text> [<code>]``, the subject first when the text does not name it (a conf's warnings
        are about a line: ``conf.yaml:12: predicates argument … is obsolete … [obsolete-key]``)."""
        text = self.text if self.subject in self.text else f"{self.subject}: {self.text}"
        return f"{text} [{self.code}]"


class StrictError(ValueError):
    """``--strict``: warnings were found; the message lists them, one a line."""


class Diagnostics:
    """An ordered set of warnings."""

    def __init__(self, items: Iterable[Diagnostic] = (), *, log: bool = True) -> None:
        self._items: dict[Diagnostic, None] = dict.fromkeys(items)
        self._log = log
        """Log each warning when first recorded; off for a staging set whose warnings are recorded
        (and logged) elsewhere once the input is applied."""

    def add(self, code: Code, subject: str, text: str) -> Diagnostic:
        """Record a warning (once) and log it."""
        diagnostic = Diagnostic(code, subject, text)
        if diagnostic not in self._items:
            self._items[diagnostic] = None
            if self._log:
                logger.bind(**{LOG_MARK: True}).warning("{}", diagnostic)
        return diagnostic

    def record(self, others: Iterable[Diagnostic]) -> None:
        """``add`` each of ``others`` (logging the new ones)."""
        for diagnostic in others:
            self.add(diagnostic.code, diagnostic.subject, diagnostic.text)

    def extend(self, others: Iterable[Diagnostic]) -> None:
        for diagnostic in others:
            self._items.setdefault(diagnostic, None)

    def __iter__(self) -> Iterator[Diagnostic]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def to_json(self) -> list[dict[str, str]]:
        return [diagnostic.to_json() for diagnostic in self._items]

    def raise_if_any(self) -> None:
        """``--strict``: every warning is an error."""
        if self._items:
            raise StrictError("\n".join(f"{diagnostic} (--strict)" for diagnostic in self._items))
