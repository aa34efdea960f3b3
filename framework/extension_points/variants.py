"""The batch variants of predicate, node order and hypernode order: how answers combine over many
rows (``combine_*``), and how a plugin's scalar form becomes a batch form and back.

Rows are indices into the session's ``NodeTable``. A scalar predicate adapted to the batch form keeps
each failed node's own error; a batch predicate asked about one node answers with that row's
statuses. Scores add up whatever the form; a batch node-order function may answer a
``{node name: score}`` map (the shape of Volcano's ``BatchNodeOrderFn``) instead of a vector.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from ..api.batch_fit import BatchFit, ErrorsFit
from ..api.fit_errors import Code, FitError
from ..voting.sum_of_scores import sum_of_scores

if TYPE_CHECKING:
    from ..api.hypernode_info import HyperNodeInfo
    from ..api.node_info import NodeInfo
    from ..api.sub_job_info import SubJobInfo
    from ..api.task_info import TaskInfo

Rows = np.ndarray
"""Row indices into ``session.node_table``."""

PredicateResult = tuple[np.ndarray, dict[int, FitError]]
"""The rows that passed every predicate (in the order asked), and a FitError per failed row."""

Tiers = list[list[Callable[..., Any]]]


def _row(host: Any, node: NodeInfo) -> np.ndarray:
    return np.asarray([host.node_table.index[node.name]], dtype=np.int64)


# ---------------------------------------------------------------------------------------- predicate
def predicate_to_batch(host: Any, fn: Callable[..., Any]) -> Callable[[TaskInfo, Rows], BatchFit]:
    def batch(task: TaskInfo, rows: Rows) -> BatchFit:
        passed = np.ones(len(rows), dtype=bool)
        errors: dict[int, FitError] = {}
        for position, row in enumerate(rows.tolist()):
            node = host.node_table.nodes[row]
            try:
                answer = fn(task, node)
            except Exception as exc:  # a predicate may raise its FitError
                answer = exc
            if answer is not None:
                passed[position] = False
                error = (
                    answer
                    if isinstance(answer, FitError)
                    else FitError.of(task, node, Code.ERROR, str(answer))
                )
                errors[position] = error
        return ErrorsFit(passed, errors=errors)

    return batch


def predicate_to_scalar(
    host: Any, fn: Callable[..., BatchFit]
) -> Callable[[TaskInfo, NodeInfo], FitError | None]:
    def scalar(task: TaskInfo, node: NodeInfo) -> FitError | None:
        fit = fn(task, _row(host, node))
        return None if bool(fit.passed[0]) else fit.error_for(0, task, node.name)

    return scalar


def combine_predicates(host: Any, tiers: Tiers, task: TaskInfo, rows: Rows) -> PredicateResult:
    """All must pass, row by row: a row leaves at its first failure, later plugins see the survivors."""
    alive = np.asarray(rows, dtype=np.int64)
    errors: dict[int, FitError] = {}
    for tier in tiers:
        for fn in tier:
            if not len(alive):
                return alive, errors
            fit = fn(task, alive)
            passed = np.asarray(fit.passed, dtype=bool)
            for position in np.flatnonzero(~passed).tolist():
                row = int(alive[position])
                errors[row] = fit.error_for(position, task, host.node_table.names[row])
            alive = alive[passed]
    return alive, errors


# ---------------------------------------------------------------------------------------- node order
def _vector(host: Any, scores: np.ndarray | Mapping[str, float], rows: Rows) -> np.ndarray:
    if isinstance(scores, Mapping):
        names = host.node_table.names
        return np.fromiter((float(scores.get(names[r], 0.0)) for r in rows.tolist()), np.float64, len(rows))
    return np.asarray(scores, dtype=np.float64)


def node_order_to_batch(host: Any, fn: Callable[..., float]) -> Callable[[TaskInfo, Rows], np.ndarray]:
    def batch(task: TaskInfo, rows: Rows) -> np.ndarray:
        nodes = host.node_table.nodes
        return np.fromiter((float(fn(task, nodes[row])) for row in rows.tolist()), np.float64, len(rows))

    return batch


def node_order_to_scalar(host: Any, fn: Callable[..., Any]) -> Callable[[TaskInfo, NodeInfo], float]:
    def scalar(task: TaskInfo, node: NodeInfo) -> float:
        rows = _row(host, node)
        return float(_vector(host, fn(task, rows), rows)[0])

    return scalar


def combine_node_orders(host: Any, tiers: Tiers, task: TaskInfo, rows: Rows) -> np.ndarray:
    """Sum of scores, per row."""
    total = np.zeros(len(rows), dtype=np.float64)
    for tier in tiers:
        for fn in tier:
            total += _vector(host, fn(task, rows), rows)
    return total


def map_reduce(host: Any, task: TaskInfo, nodes: list[NodeInfo]) -> dict[str, float]:
    """``NodeOrderMapFn`` then ``NodeOrderReduceFn``: for each plugin (tier order, flag on) that
    registered ``node_reduce``, its map scores of every node, floored, reduced in place, then summed."""
    totals: dict[str, float] = {}
    for tier in host.node_reduce.plugins():
        for plugin in tier:
            mapper = host.node_map.scalar.get(plugin)
            scores = (
                {} if mapper is None else {node.name: float(np.floor(mapper(task, node))) for node in nodes}
            )
            host.node_reduce.scalar[plugin](task, scores)
            for name, score in scores.items():
                totals[name] = totals.get(name, 0.0) + score
    return totals


# ---------------------------------------------------------------------------------------- hypernode order
HyperNodes = Mapping[str, "list[NodeInfo]"]


def hyper_node_order_to_batch(host: Any, fn: Callable[..., float]) -> Callable[..., dict[str, float]]:
    def batch(sub_job: SubJobInfo, hyper_nodes: HyperNodes) -> dict[str, float]:
        return {name: float(fn(sub_job, name, nodes)) for name, nodes in hyper_nodes.items()}

    return batch


def hyper_node_order_to_scalar(host: Any, fn: Callable[..., Mapping[str, float]]) -> Callable[..., float]:
    def scalar(sub_job: SubJobInfo, hyper_node: str, nodes: list[NodeInfo]) -> float:
        return float(fn(sub_job, {hyper_node: nodes}).get(hyper_node, 0.0))

    return scalar


def combine_hyper_node_orders(
    host: Any, tiers: Tiers, sub_job: SubJobInfo, hyper_nodes: HyperNodes
) -> dict[str, float]:
    """Sum of scores, per hypernode (every hypernode asked about gets a total)."""
    totals = dict.fromkeys(hyper_nodes, 0.0)
    summed = sum_of_scores(tiers, sub_job, hyper_nodes)
    for name, score in summed.items() if isinstance(summed, dict) else ():
        if name in totals:
            totals[name] += float(score)
    return totals


def gradient_of(
    _host: Any, _job: object, hyper_node: HyperNodeInfo, _purpose: object
) -> list[list[HyperNodeInfo]]:
    """The hypernode-gradient fallback: the hypernode itself, as one gradient."""
    return [[hyper_node]]


def every_predicate_error(host: Any, task: TaskInfo, rows: Rows) -> dict[int, FitError]:
    """Every plugin on every row, no short-circuit: per failed row, the statuses of all the plugins
    that failed it, in tier order. An eviction needs this: a row one plugin fails for lack of room
    (resolvable) may be ruled out for good by a later one (a node selector, a taint, a device type)."""
    found: dict[int, FitError] = {}
    rows = np.asarray(rows, dtype=np.int64)
    tiers: Tiers = host.batch_predicate.enabled()
    for tier in tiers:
        for fn in tier:
            if not len(rows):
                return found
            fit = fn(task, rows)
            for position in np.flatnonzero(~np.asarray(fit.passed, dtype=bool)).tolist():
                row = int(rows[position])
                error = fit.error_for(position, task, host.node_table.names[row])
                earlier = found.get(row)
                found[row] = (
                    error
                    if earlier is None
                    else FitError(task, error.node_name, [*earlier.statuses, *error.statuses])
                )
    return found
