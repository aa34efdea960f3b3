"""The nodeorder plugin: Kubernetes score plugins, weighted, as one node-order score.

Spec: ``pkg/scheduler/plugins/nodeorder/nodeorder.go``. Arguments (``<name>.weight``, integers):
``leastrequested`` 1, ``mostrequested`` 0, ``nodeaffinity`` 2, ``podaffinity`` 2,
``balancedresource`` 1, ``tainttoleration`` 3, ``imagelocality`` 1, ``podtopologyspread`` 2; a
scorer whose weight is 0 is not built. ``selectorspread.weight`` (read by v1.7.0 to v1.8.x only) is
accepted, ignored, with an obsolete-key warning. Registers, gated by ``enableNodeOrder``, the batch form of
``node_order`` (columnar over the candidate rows): the sum of

* upstream's NodeOrderFn: ``imagelocality.weight × ImageLocality`` raw score (Volcano registers it
  node by node; with a zero weight it always answers 0);
* upstream's BatchNodeOrderFn: ``Σ weight × score`` of LeastAllocated, MostAllocated,
  BalancedAllocation, NodeAffinity, InterPodAffinity and TaintToleration, each score normalised over
  the candidates exactly as ``nodescore.CalculatePluginScore`` does; a scorer that skips the pod
  (PreScore Skip) contributes nothing.

Volcano adds both into the node's score, so one batch function gives the same totals. LeastAllocated
and BalancedAllocation are summed in one pass over the candidate rows when the case allows it
(``resource_scores``); the totals are the same whole numbers.

The scorers read ``K8sNodeView`` (see ``state``), a columnar mirror of the Kubernetes node infos
Volcano builds, kept current by an event handler (pods are tracked only when a resource scorer
or InterPodAffinity is enabled). The view's rows of unchanged nodes, and the TaintToleration and
ImageLocality scorers (which read only the Node objects) while no Node object changed, are kept
from one session to the next (``state.ViewSeed``).

Deliberate differences: PodTopologySpread is accepted as an argument but contributes nothing: the Pod
model carries no ``topologySpreadConstraints`` and no Services/ReplicaSets/StatefulSets are modelled
for the system-default constraints, in which case Kubernetes' plugin skips every pod. See the
scorer modules for their own notes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

import numpy as np
from fumarole.framework.interface import PluginArguments
from fumarole.framework.obsolete import ObsoleteKey
from pydantic import Field, StrictInt

from .balanced_allocation import balanced_allocation_scores
from .image_locality import ImageLocalityScorer
from .inter_pod_affinity import InterPodAffinityScorer
from .least_allocated import least_allocated_scores
from .most_allocated import most_allocated_scores
from .node_affinity import NodeAffinityScorer
from .resource_scores import least_and_balanced_scores
from .state import K8sNodeView, pod_requests
from .taint_toleration import TaintTolerationScorer

if TYPE_CHECKING:
    from fumarole.framework.api.node_info import NodeInfo
    from fumarole.framework.api.task_info import TaskInfo
    from fumarole.framework.session import Session

PLUGIN_NAME = "nodeorder"

LEAST_REQUESTED_WEIGHT = "leastrequested.weight"
MOST_REQUESTED_WEIGHT = "mostrequested.weight"
NODE_AFFINITY_WEIGHT = "nodeaffinity.weight"
POD_AFFINITY_WEIGHT = "podaffinity.weight"
BALANCED_RESOURCE_WEIGHT = "balancedresource.weight"
TAINT_TOLERATION_WEIGHT = "tainttoleration.weight"
IMAGE_LOCALITY_WEIGHT = "imagelocality.weight"
POD_TOPOLOGY_SPREAD_WEIGHT = "podtopologyspread.weight"


class NodeOrderArguments(PluginArguments):
    """The arguments ``calculateWeight`` reads (Go ints; anything else is rejected)."""

    obsolete_keys: ClassVar[tuple[ObsoleteKey, ...]] = (
        ObsoleteKey(
            "selectorspread.weight",
            "v1.7.0 to v1.8.x",
            "v1.9.0 dropped it with Kubernetes' SelectorSpread score (podtopologyspread.weight weighs "
            "spreading)",
        ),
    )

    least_requested: StrictInt = Field(1, alias="leastrequested.weight")
    most_requested: StrictInt = Field(0, alias="mostrequested.weight")
    node_affinity: StrictInt = Field(2, alias="nodeaffinity.weight")
    pod_affinity: StrictInt = Field(2, alias="podaffinity.weight")
    balanced_resource: StrictInt = Field(1, alias="balancedresource.weight")
    taint_toleration: StrictInt = Field(3, alias="tainttoleration.weight")
    image_locality: StrictInt = Field(1, alias="imagelocality.weight")
    pod_topology_spread: StrictInt = Field(2, alias="podtopologyspread.weight")


@dataclass(frozen=True)
class PriorityWeight:
    """``priorityWeight``."""

    least_requested: int = 1
    most_requested: int = 0
    node_affinity: int = 2
    pod_affinity: int = 2
    balanced_resource: int = 1
    taint_toleration: int = 3
    image_locality: int = 1
    pod_topology_spread: int = 2

    @classmethod
    def from_arguments(cls, arguments: NodeOrderArguments) -> PriorityWeight:
        """``calculateWeight``: every key optional, defaults as above."""
        return cls(**arguments.model_dump())


class NodeOrderPlugin:
    """Volcano's ``nodeorder`` plugin."""

    name = PLUGIN_NAME
    idle_noop = True
    arguments_model = NodeOrderArguments

    def __init__(self, arguments: NodeOrderArguments) -> None:
        self.arguments = arguments
        self.weight = PriorityWeight.from_arguments(arguments)
        self.view: K8sNodeView | None = None
        self.node_affinity: NodeAffinityScorer | None = None
        self.taint_toleration: TaintTolerationScorer | None = None
        self.inter_pod_affinity: InterPodAffinityScorer | None = None
        self.image_locality: ImageLocalityScorer | None = None

    @property
    def batch_scorers(self) -> list[str]:
        """Names of the batch scorers this configuration builds (``InitPlugin``'s ScorePlugins)."""
        w = self.weight
        enabled = [
            ("NodeResourcesFit_LeastAllocated", w.least_requested),
            ("NodeResourcesFit_MostAllocated", w.most_requested),
            ("NodeResourcesBalancedAllocation", w.balanced_resource),
            ("NodeAffinity", w.node_affinity),
            ("InterPodAffinity", w.pod_affinity),
            ("TaintToleration", w.taint_toleration),
        ]
        return [name for name, weight in enabled if weight != 0]

    def on_session_open(self, ssn: Session) -> None:
        w = self.weight
        with_pods = any((w.least_requested, w.most_requested, w.balanced_resource, w.pod_affinity))
        view = K8sNodeView.build(ssn, with_pods=with_pods)
        self.view = view
        if w.node_affinity != 0:
            self.node_affinity = NodeAffinityScorer(view)
        if w.taint_toleration != 0:
            taints = view.scorers.get("taints")
            if not isinstance(taints, TaintTolerationScorer):
                taints = view.scorers["taints"] = TaintTolerationScorer(view)
            self.taint_toleration = taints
        if w.pod_affinity != 0:
            self.inter_pod_affinity = InterPodAffinityScorer(view)
        if w.image_locality != 0:
            images = view.scorers.get("images")
            if not isinstance(images, ImageLocalityScorer):
                images = view.scorers["images"] = ImageLocalityScorer(ssn.node_table.nodes)
            images.forget_pods()
            self.image_locality = images
        ssn.batch_node_order.register(self.batch_node_order_fn)

    def on_session_close(self, ssn: Session) -> None:
        self.view = None
        self.node_affinity = None
        self.taint_toleration = None
        self.inter_pod_affinity = None
        self.image_locality = None

    # ------------------------------------------------------------------ extension points
    def node_order_fn(self, task: TaskInfo, node: NodeInfo) -> float:
        """``NodeOrderFn``: the weighted raw ImageLocality score of one node."""
        if self.image_locality is None:
            return 0.0
        return float(self.image_locality.score(task.pod, node.name)) * float(self.weight.image_locality)

    def batch_node_order_fn(self, task: TaskInfo, rows: np.ndarray) -> np.ndarray:
        """``NodeOrderFn`` + ``BatchNodeOrderFn``: the image-locality score plus Σ weight × normalised
        score over the candidate rows."""
        total = np.zeros(len(rows), dtype=np.float64)
        if self.image_locality is not None:
            total += self.image_locality.batch_scores(task.pod, rows).astype(np.float64) * float(
                self.weight.image_locality
            )
        rows = np.asarray(rows, dtype=np.int64)
        w = self.weight
        both = None
        if w.least_requested != 0 and w.balanced_resource != 0 and self.view is not None and len(rows):
            # the two resource scorers in one pass when they can be (resource_scores.py): the scores
            # are whole numbers, so their sum is the same in whichever order it is taken
            requested, non_zero = pod_requests(task)
            both = least_and_balanced_scores(
                self.view, requested, non_zero, rows, w.least_requested, w.balanced_resource
            )
        if both is not None:
            total += both.astype(np.float64)
        for scores in self.scores(task, rows, resource_pair=both is None).values():
            total += scores.astype(np.float64)
        return total

    def scores(
        self, task: TaskInfo, rows: np.ndarray, *, resource_pair: bool = True
    ) -> dict[str, np.ndarray]:
        """Each enabled scorer's weighted int64 scores over ``rows`` (skipped scorers absent);
        ``resource_pair`` False leaves out LeastAllocated and BalancedAllocation."""
        rows = np.asarray(rows, dtype=np.int64)
        out: dict[str, np.ndarray] = {}
        if not len(rows) or self.view is None:
            return out
        w = self.weight
        view = self.view
        if resource_pair or w.most_requested != 0:
            requested, non_zero = pod_requests(task)
        if w.least_requested != 0 and resource_pair:
            out["NodeResourcesFit_LeastAllocated"] = (
                least_allocated_scores(view, non_zero, rows) * w.least_requested
            )
        if w.most_requested != 0:
            out["NodeResourcesFit_MostAllocated"] = (
                most_allocated_scores(view, non_zero, rows) * w.most_requested
            )
        if w.balanced_resource != 0 and resource_pair:
            balanced = balanced_allocation_scores(view, requested, rows)
            if balanced is not None:
                out["NodeResourcesBalancedAllocation"] = balanced * w.balanced_resource
        if self.node_affinity is not None:
            affinity = self.node_affinity.scores(task.pod, rows)
            if affinity is not None:
                out["NodeAffinity"] = affinity * w.node_affinity
        if self.inter_pod_affinity is not None:
            out["InterPodAffinity"] = self.inter_pod_affinity.scores(task, rows) * w.pod_affinity
        if self.taint_toleration is not None:
            out["TaintToleration"] = self.taint_toleration.scores(task.pod, rows) * w.taint_toleration
        return out
