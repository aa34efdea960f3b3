"""name-tie-break: among the best-scored nodes, the one whose name sorts first.

Decides which node a task goes to when several share the highest score. Without it the choice among
equal scores is random (the session's seeded generator, as Volcano's ``SelectBestNodeAndScore``);
the FGD paper's artefact (hkust-adsl/kubernetes-scheduler-simulator) changed kube-scheduler's
``selectHost`` "for reproducibility" to take the lexicographically smallest node name among the
highest scores (vendor/k8s.io/kubernetes/pkg/scheduler/core/generic_scheduler.go), and that choice
matters for its policies: GPU clustering and GPU packing give every CPU-only pod the same score on
every node, so the artefact stacks those pods on the first nodes by name where a random tie-break
spreads them. The FGD confs (``conf/fgd/``) use it to replay the paper's experiments.

Extension points: best_node (``enableBestNode``; no upstream flag, as no upstream plugin registers
it): the node with the highest score, the smallest name among equals (Python's string order, which is
Go's byte order for the ASCII names Kubernetes allows). Combined as every best_node: the first
plugin (by tier, then conf order) that returns a node decides.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fumarole.framework.interface import NoArguments

if TYPE_CHECKING:
    from fumarole.framework.api.node_info import NodeInfo
    from fumarole.framework.api.task_info import TaskInfo
    from fumarole.framework.session import Session

PLUGIN_NAME = "name-tie-break"


def first_by_name(node_scores: dict[float, list[NodeInfo]]) -> NodeInfo | None:
    """The smallest-named node among those with the highest score (None when there is none)."""
    if not node_scores:
        return None
    best = node_scores[max(node_scores)]
    return min(best, key=lambda node: node.name) if best else None


class NameTieBreakPlugin:
    """Ties between the highest scores go to the node whose name sorts first."""

    name = PLUGIN_NAME
    idle_noop = True
    arguments_model = NoArguments

    def __init__(self, arguments: NoArguments) -> None:
        self.arguments = arguments

    def on_session_open(self, ssn: Session) -> None:
        def best_node(task: TaskInfo, node_scores: dict[float, list[NodeInfo]]) -> NodeInfo | None:
            return first_by_name(node_scores)

        ssn.best_node.register(best_node)

    def on_session_close(self, ssn: Session) -> None:
        return None
