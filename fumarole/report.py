"""Readable tables of what each cycle decided (``fumarole schedule --format table``), and the console
every command prints its tables on (``stdout_console``).

Per cycle: the binds (with the action that bound them), evictions, pipelined tasks, PodGroups (phase
and the conditions the cycle wrote), the pending pods and why, the hypernodes tried for pending jobs
with a hard network topology; then the warnings about the input (code and text), if any.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rich.console import Console
from rich.table import Table

from fumarole.framework.api.hypernode_info import CLUSTER_TOP_HYPERNODE
from fumarole.framework.decisions import CycleDecisions, PodGroupPhase
from fumarole.framework.diagnostics import Diagnostic


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


def _where(hyper_node: str) -> str:
    """A hypernode's name, "the cluster" for the cluster's virtual top hypernode ("-" for none)."""
    if not hyper_node:
        return "-"
    return "the cluster" if hyper_node == CLUSTER_TOP_HYPERNODE else hyper_node


def _conditions(phase: PodGroupPhase, session_uid: str) -> str:
    return "\n".join(
        f"{c.type} ({c.reason}): {c.message}" if c.message else f"{c.type} ({c.reason})"
        for c in phase.written_in(session_uid)
    )


def _pending_row(reason: str, explained: bool) -> str:
    """A multi-line reason (the hypernodes tried) is in the topology table: its first line here."""
    if explained and "\n" in reason:
        return reason.split("\n", 1)[0] + " (see below)"
    return reason


def print_cycles(
    results: Sequence[CycleDecisions], warnings: Iterable[Diagnostic] = (), console: Console | None = None
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
        if decisions.bundles:
            console.print(
                _table(
                    "Gang eviction: bundles chosen (safe: pods above minAvailable; whole: breaks the gang)",
                    ("action", "for job", "domain", "victim job", "bundle", "pods", "efficiency"),
                    [
                        (
                            b.action,
                            b.preemptor,
                            _where(b.domain),
                            b.victim,
                            b.kind,
                            ", ".join(b.pods),
                            f"{b.efficiency:.3g}",
                        )
                        for b in decisions.bundles
                    ],
                )
            )
        if decisions.excess_evictions:
            excess = decisions.excess_evictions
            console.print(f"[yellow]{excess} eviction(s) on nodes where no preemptor was placed[/yellow]")
        if decisions.nominations:
            console.print(
                _table(
                    "Nominated (placed there once the victims are gone)",
                    ("pod", "node", "hypernode"),
                    [(n.pod, n.node, _where(n.hyper_node)) for n in decisions.nominations],
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
        rows = [(p.podgroup, p.phase, _conditions(p, decisions.session_uid)) for p in decisions.podgroups]
        if any(condition for _, _, condition in rows):
            console.print(_table("PodGroups", ("podgroup", "phase", "condition"), rows))
        else:
            console.print(_table("PodGroups", ("podgroup", "phase"), [row[:2] for row in rows]))
        if decisions.pending:
            explained = {row.podgroup for row in decisions.topology}
            pending = [(p.pod, _pending_row(p.reason, p.job in explained)) for p in decisions.pending]
            console.print(_table("Pending, and why", ("pod", "reason"), pending))
        if decisions.topology:
            console.print(
                _table(
                    "Hard network topology: hypernodes tried for pending jobs",
                    ("podgroup", "tier", "hypernode", "why"),
                    [(t.podgroup, t.tier, t.hyper_node, t.why) for t in decisions.topology],
                )
            )
    listed = [(str(w.code), w.text) for w in warnings]
    if listed:
        console.rule("warnings")
        console.print(_table(f"Warnings about the input ({len(listed)})", ("code", "warning"), listed))
