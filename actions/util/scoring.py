"""Scoring candidate nodes and picking one (``util.PrioritizeNodes``, ``SelectBestNodeAndScore``,
``SortNodes`` and allocate's ``prioritizeNodes`` gradients).

A node's score is, as upstream, the sum of the plugins' node-order scores (scalar and batch forms
alike, ``ssn.batch_node_order``) and, when plugins registered map/reduce scoring, their reduced map
scores (``ssn.node_map_reduce``). The best node is the one the first best-node plugin picks, else the
highest score, ties broken by the session's seeded random generator.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from fumarole.framework.api.node_info import NodeInfo
    from fumarole.framework.api.task_info import TaskInfo
    from fumarole.framework.session import Session


def prioritize_nodes(ssn: Session, task: TaskInfo, rows: np.ndarray) -> np.ndarray:
    """Total score of each row (aligned with ``rows``)."""
    total: np.ndarray = ssn.batch_node_order(task, rows)
    if ssn.node_reduce:
        names = ssn.node_table.names
        reduced = ssn.node_map_reduce(task, [ssn.node_table.nodes[row] for row in rows.tolist()])
        total = total + np.fromiter(
            (reduced.get(names[r], 0.0) for r in rows.tolist()), np.float64, len(rows)
        )
    return total


def scores_by_value(ssn: Session, rows: np.ndarray, scores: np.ndarray) -> dict[float, list[NodeInfo]]:
    """``map[float64][]*NodeInfo`` as upstream builds it (nodes in candidate order per score)."""
    nodes = ssn.node_table.nodes
    grouped: dict[float, list[NodeInfo]] = {}
    for row, score in zip(rows.tolist(), scores.tolist(), strict=True):
        grouped.setdefault(float(score), []).append(nodes[row])
    return grouped


def select_best_node(ssn: Session, task: TaskInfo, rows: np.ndarray, scores: np.ndarray) -> tuple[int, float]:
    """Row of the best node and its score: best-node plugins first, else max score with a seeded tie-break."""
    if ssn.best_node:
        chosen = ssn.best_node(task, scores_by_value(ssn, rows, scores))
        if chosen is not None:
            row = ssn.node_table.index[chosen.name]
            position = int(np.flatnonzero(rows == row)[0]) if (rows == row).any() else -1
            return row, float(scores[position]) if position >= 0 else 0.0
    best = scores.max()
    ties = np.flatnonzero(scores == best)
    pick = int(ties[0]) if len(ties) == 1 else int(ties[int(ssn.rng.integers(len(ties)))])
    return int(rows[pick]), float(best)


def sort_nodes_by_score(rows: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """Rows by descending score, keeping candidate order within a score (``SortNodes``)."""
    order = np.argsort(-scores, kind="stable")
    return rows[order]


def split_by_fit(ssn: Session, task: TaskInfo, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Candidate gradients: rows where the request fits idle, then rows where it fits only future-idle."""
    table = ssn.node_table
    idle = table.fits(task.init_resreq, "idle", rows)
    rest = rows[~idle]
    future = table.fits(task.init_resreq, "future_idle", rest) if len(rest) else np.zeros(0, dtype=bool)
    return rows[idle], rest[future]
