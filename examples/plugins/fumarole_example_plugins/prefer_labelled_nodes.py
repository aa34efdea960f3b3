"""prefer-labelled-nodes: prefer nodes that carry a label (a soft node affinity set by the operator).

What it decides: how good a node is for a task. A node whose labels match ``label`` scores
``weight`` × 100 (Kubernetes' ``MaxNodeScore``), every other node 0; the session adds this score to
the other plugins' node scores (sum of scores), so with the default weight 10 a labelled node beats
any single nodeorder score. ``label`` is ``key`` (any value) or ``key=value`` (that value only).
It never filters a node out: a task still lands on an unlabelled node when no labelled one fits.

Points it registers: ``batch_node_order`` (gated by the ``enableNodeOrder`` flag), the columnar
form: one score per node-table row. Nothing when ``weight`` is 0.

Arguments (the conf's ``arguments:`` of the plugin): ``label`` (str, required), ``weight`` (int,
default 10, at least 0)::

    tiers:
    - plugins:
      - name: prefer-labelled-nodes
        arguments: {label: disktype=ssd, weight: 10}

Spec: this docstring; the behaviour is pinned by ``tests/test_prefer_labelled_nodes.py`` (exact
scores and binds) and the golden scenarios in ``tests/scenarios/``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from fumarole.framework.interface import PluginArguments
from pydantic import Field, StrictInt, StrictStr

if TYPE_CHECKING:
    from fumarole.framework.api.task_info import TaskInfo
    from fumarole.framework.session import Session

PLUGIN_NAME = "prefer-labelled-nodes"
MAX_NODE_SCORE = 100


class PreferLabelledNodesArguments(PluginArguments):
    """The plugin's arguments; unknown keys and wrong types are conf errors."""

    label: StrictStr = Field(min_length=1, pattern=r"^[^=]+(=.*)?$")
    weight: StrictInt = Field(10, ge=0)

    def matches(self, labels: dict[str, str]) -> bool:
        key, has_value, value = self.label.partition("=")
        return key in labels and (not has_value or labels[key] == value)


class PreferLabelledNodesPlugin:
    name = PLUGIN_NAME
    arguments_model = PreferLabelledNodesArguments

    def __init__(self, arguments: PreferLabelledNodesArguments) -> None:
        self.arguments = arguments

    def on_session_open(self, ssn: Session) -> None:
        if self.arguments.weight == 0:
            return
        # Labels do not change during a session: one score per node-table row, computed once.
        labelled = np.array(
            [self.arguments.matches(node.labels) for node in ssn.node_table.nodes], dtype=bool
        )
        scores = np.where(labelled, float(self.arguments.weight * MAX_NODE_SCORE), 0.0)

        def batch_node_order(task: TaskInfo, rows: np.ndarray) -> np.ndarray:
            del task
            return scores[np.asarray(rows, dtype=np.int64)]

        ssn.batch_node_order.register(batch_node_order)

    def on_session_close(self, ssn: Session) -> None:
        del ssn
