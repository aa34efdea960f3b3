"""Readable tables of what each cycle decided (``fumarole schedule --format table``)."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console
from rich.table import Table

from fumarole.framework.api.hypernode_info import CLUSTER_TOP_HYPERNODE
from fumarole.framework.cache import ClusterCache
from fumarole.framework.decisions import CycleDecisions


def _table(title: str, columns: Sequence[str], rows: Sequence[Sequence[str]]) -> Table:
    table = Table(title=title, title_justify="left", show_lines=False)
    for column in columns:
        table.add_column(column, overflow="fold")
    for row in rows:
        table.add_row(*row)
    return table


def _where(hyper_node: str) -> str:
    """A hypernode's name, or "cluster" for the cluster's top hypernode ("-" for none)."""
    if not hyper_node:
        return "-"
    return "cluster" if hyper_node == CLUSTER_TOP_HYPERNODE else hyper_node


def print_cycles(
    results: Sequence[CycleDecisions], cache: ClusterCache, console: Console | None = None
) -> None:
    console = console or Console()
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
                            b.domain,
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
