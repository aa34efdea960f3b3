"""Readable tables of what each cycle decided (``fumarole schedule --format table``), and the console
every command prints its tables on (``stdout_console``).
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console
from rich.table import Table

from fumarole.framework.cache import ClusterCache
from fumarole.framework.decisions import CycleDecisions


class _StdoutConsole(Console):
    """rich's console, except that a closed pipe raises ``BrokenPipeError`` for the command line to exit
    with its status for it (rich would exit with 1, the status of ``conf validate``'s problems)."""

    def on_broken_pipe(self) -> None:
        self.quiet = True
        raise BrokenPipeError


def stdout_console() -> Console:
    """A rich console on standard output (see ``fumarole.cli`` for a closed pipe)."""
    return _StdoutConsole()


def _table(title: str, columns: Sequence[str], rows: Sequence[Sequence[str]]) -> Table:
    table = Table(title=title, title_justify="left", show_lines=False)
    for column in columns:
        table.add_column(column, overflow="fold")
    for row in rows:
        table.add_row(*row)
    return table


def print_cycles(
    results: Sequence[CycleDecisions], cache: ClusterCache, console: Console | None = None
) -> None:
    console = console or stdout_console()
    for decisions in results:
        console.rule(f"cycle {decisions.cycle}")
        console.print(
            _table("Binds", ("pod", "node", "action"), [(b.pod, b.node, b.action) for b in decisions.binds])
        )
        if decisions.evictions:
            console.print(
                _table(
                    "Evictions",
                    ("pod", "node", "action", "why"),
                    [(e.pod, e.node, e.action, e.reason) for e in decisions.evictions],
                )
            )
        if decisions.pipelined:
            console.print(
                _table(
                    "Pipelined (waiting for resources)",
                    ("pod", "node"),
                    [(p.pod, p.node) for p in decisions.pipelined],
                )
            )
        console.print(
            _table("PodGroups", ("podgroup", "phase"), [(p.podgroup, p.phase) for p in decisions.podgroups])
        )
        if decisions.pending:
            explained = {row.podgroup for row in decisions.topology}
            rows = [
                (p.pod, p.reason.split("\n", 1)[0] + " (see below)" if p.job in explained else p.reason)
                for p in decisions.pending
            ]
            console.print(_table("Pending, and why", ("pod", "reason"), rows))
        if decisions.topology:
            console.print(
                _table(
                    "Hard network topology: hypernodes tried for pending jobs",
                    ("podgroup", "tier", "hypernode", "why"),
                    [(t.podgroup, t.tier, t.hyper_node, t.why) for t in decisions.topology],
                )
            )
    if cache.warnings:
        console.print("[yellow]warnings:[/yellow]")
        for warning in cache.warnings:
            console.print(f"  {warning}")
    if cache.ignored:
        ignored = ", ".join(f"{count} {kind}" for kind, count in sorted(cache.ignored.items()))
        console.print(f"ignored objects of other kinds: {ignored}")
