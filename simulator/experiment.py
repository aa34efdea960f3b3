"""The FGD paper's experiment mode: a trace's pods submitted one after another, no timeline.

Weng et al., "Beware of Fragmentation: Scheduling GPU-Sharing Workloads with Fragmentation Gradient
Descent" (USENIX ATC '23); its artefact hkust-adsl/kubernetes-scheduler-simulator runs every
experiment this way (``pkg/simulator/core.go`` ``Simulate``, ``simulator.go`` ``SortClusterPods``,
``TunePodsByNodeTotalResource``, ``SchedulePods``; ``analysis.go`` ``ClusterGpuFragReport``), and
``experiments/analysis/merge_alloc_discrete.py`` turns its log into ``analysis_allo_discrete.csv``.
What this module decides:

* **Submission order**: the trace's pods sorted by name, then shuffled by the seed; then the
  workload is *tuned* to ``tune`` × the cluster's GPU capacity (1.3 in the paper). Tuning up appends
  clones ``<name>-tuned-<i>`` of pods drawn uniformly, with replacement, from the trace's pods sorted
  by name, until the next clone would pass the target; as in the artefact the test adds the clone's
  **per-GPU** milli-GPUs (``podTotalMilliGpuReq + podRes.MilliGpu > target``) while the total grows by
  its total. Tuning down removes pods drawn uniformly from the shuffled list until the total is at
  most the target. There are no creation or deletion times: nothing finishes.
* **Scheduling**: each pod is a one-pod job whose PodGroup is created ``Inqueue`` (the artefact's
  kube-scheduler has no admission step, so enqueue's queue-capacity check is left out), ordered by
  its submission index (creation time = index, UID ascending). A pod that does not fit when its turn
  comes stays unscheduled for good (the artefact deletes it). By default every pod is pending in
  **one session**: allocate takes the jobs in job order, once each, and each allocation updates the
  nodes before the next job, so the decisions are those of one session per pod
  (``one_by_one=True``, which runs exactly that and deletes a pod that did not fit);
  ``tests/simulator/test_experiment.py`` runs both on small traces and compares every bind. Under
  a conf whose actions could revisit a pod (preempt, reclaim, a second allocate) use
  ``one_by_one``. Ties between equal nodes are broken by one generator for the whole experiment
  (seeded by the seed), shared by all the sessions of ``one_by_one``, so both ways draw the same
  numbers.
* **Node names**: as the artefact's ``syncClusterResourceList`` creates them, each node's name
  prefixed with ``NNNN-``, its place in a seeded permutation (``artefact_node_names``). The
  artefact's kube-scheduler takes the smallest name among equal scores (its ``selectHost``; the
  ``name-tie-break`` plugin, in every ``conf/fgd/`` conf), so equal nodes are taken in a random
  order that is fixed for the experiment: GPU clustering and GPU packing score a CPU-only pod 0
  everywhere, and every such pod goes to the same node until it is full. Binds and
  ``events`` name the prefixed nodes.
* **Seeds**: one seed drives the shuffle and the tuning (one generator, in that order, as the
  artefact's one ``math/rand`` source does), through a second generator the tie-breaks left to the
  session's generator, and through a third the node names' permutation. The
  artefact's Go generator is not reproduced, so a seed's row differs from the artefact's row for
  that seed; the claim is about the mean over seeds.
* **Measurements**, after every submitted pod (failed ones included), as ``ClusterGpuFragReport``
  logs them: GPU milli-units arrived (requests of every pod submitted so far), GPU milli-units
  allocated, and — with a ``FragmentationMeasure`` — the cluster's fragmented and idle milli-GPUs.
* **The artefact's discrete layout** (``allocation_row``): per pod, arrived % = ``round(arrived /
  total_gpus / 10)`` and allocated % = ``round(used / total_gpus / 10, 2)`` (Python's ``round``);
  for each column 0..130 the mean of the allocated % of the pods whose arrived % equals it, else of
  those within ±1, rounded to 2 decimals (numpy's rounding of the mean, as pandas gives it); no pod
  there, no value (an empty cell). ``fragmentation_rows`` does the same for the fragmentation files.

The GPU model plugs in at ``gpu_request`` (what a pod asks, in GPUs and milli-GPUs per GPU) and
``SimCluster`` (the nodes and what a pod requests): today's pooled ``alibabacloud.com/gpu-milli``
scalar, or a per-device model once one replaces it.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
from fumarole.framework.cache.builders import build_pod, build_pod_group
from fumarole.framework.scheduler import Scheduler
from fumarole.framework.settings import Settings

from .cluster import SimCluster
from .trace import GPU_MILLI

if TYPE_CHECKING:
    from fumarole.framework.cache.objects import Pod
    from fumarole.framework.conf import SchedulerConf
    from fumarole.framework.registry import Registry
    from fumarole.framework.session import Session

    from .workload import BatchPodSpec, ClusterSpec, Workload

DEFAULT_TUNE = 1.3
"""The paper's workload: 130 % of the cluster's GPU capacity."""
MIN_COLUMNS = 130
"""The artefact's files have the columns 0..130 whatever the tune ratio."""
NAMESPACE = "experiment"
MILLI = 1000


def gpu_request(spec: BatchPodSpec) -> tuple[int, int]:
    """(GPUs, milli-GPUs per GPU) a trace pod asks for.

    The place the GPU model plugs in. Today's pooled model keeps only the total
    (``alibabacloud.com/gpu-milli`` = ``num_gpu × gpu_milli``): a total up to 1000 is one GPU's share,
    above it whole GPUs (in the openb traces every multi-GPU pod asks 1000 per GPU)."""
    total = int(float(str(spec.extra_resources.get(GPU_MILLI, 0) or 0)))
    if total <= 0:
        return 0, 0
    if total <= MILLI:
        return 1, total
    return math.ceil(total / MILLI), MILLI


def total_gpu_milli(spec: BatchPodSpec) -> int:
    gpus, milli = gpu_request(spec)
    return gpus * milli


@dataclass(frozen=True)
class Submission:
    """One pod of the experiment, in submission order."""

    index: int
    name: str
    spec: BatchPodSpec
    gpu_milli: int
    """Its total GPU request in milli-GPUs (``TotalMilliGpu``)."""


def _rng(seed: int, stream: int) -> np.random.Generator:
    return np.random.default_rng([seed, stream])


SHUFFLE_STREAM = 0
TIE_STREAM = 1
NODE_ORDER_STREAM = 2


def artefact_node_names(cluster: ClusterSpec, seed: int) -> ClusterSpec:
    """The cluster with its nodes renamed as the artefact's ``syncClusterResourceList`` names them.

    The nodes sorted by name, the i-th gets the prefix ``%04d-`` of the i-th number of a seeded
    permutation of 0..n-1 (``openb-node-0000`` may become ``0711-openb-node-0000``). The artefact's
    kube-scheduler breaks ties between equal scores by the smallest name (``name-tie-break``), so
    the prefix makes that tie-break a random order of the nodes, fixed for the whole experiment.
    """
    names = sorted(cluster.node_names())
    permutation = _rng(seed, NODE_ORDER_STREAM).permutation(len(names))
    renamed = {name: f"{int(place):04d}-{name}" for name, place in zip(names, permutation, strict=True)}
    groups = [
        group.model_copy(update={"names": [renamed[name] for name in group.node_names()]})
        for group in cluster.node_groups
    ]
    return cluster.model_copy(update={"node_groups": groups})


def submission_order(
    pods: Sequence[BatchPodSpec], capacity_milli: int, *, seed: int, tune: float
) -> list[Submission]:
    """The pods in the order they are submitted: the trace shuffled, then tuned (module docstring)."""
    by_name = sorted(pods, key=lambda spec: spec.name)
    rng = _rng(seed, SHUFFLE_STREAM)
    order = [by_name[int(i)] for i in rng.permutation(len(by_name))]
    names = [spec.name for spec in order]
    total = sum(total_gpu_milli(spec) for spec in order)
    if tune > 0 and by_name:
        target = tune * capacity_milli
        if total > target:
            while total > target and order:
                index = int(rng.integers(len(order)))
                total -= total_gpu_milli(order.pop(index))
                names.pop(index)
        elif total < target:
            clone = 0
            while True:
                spec = by_name[int(rng.integers(len(by_name)))]
                gpus, per_gpu = gpu_request(spec)
                if total + per_gpu > target:
                    break
                total += gpus * per_gpu
                order.append(spec)
                names.append(f"{spec.name}-tuned-{clone}")
                clone += 1
    return [
        Submission(index, name, spec, total_gpu_milli(spec))
        for index, (name, spec) in enumerate(zip(names, order, strict=True))
    ]


class FragmentationMeasure(Protocol):
    """The cluster's GPU fragmentation, kept up to date as pods are bound (the paper's measure).

    ``start`` gets the cluster before any pod is submitted and the trace's workload (its pods are the
    task distribution the paper's measure weighs by); ``bound`` each pod the experiment bound, in
    submission order, as the API server has it (node, annotations the plugins wrote: device indices);
    ``amount`` returns (fragmented milli-GPUs, idle milli-GPUs) of the whole cluster, and is asked
    after every submitted pod. Keep it incremental (only the node that changed is measured again)."""

    def start(self, cluster: SimCluster, workload: Workload) -> None: ...

    def bound(self, node: str, pod: Pod) -> None: ...

    def amount(self) -> tuple[float, float]: ...


def fragmentation_measure() -> FragmentationMeasure | None:
    """A fresh fragmentation measure for one experiment: the paper's measure (idle GPU capacity split
    into the q1–q4/xl/xr classes under the trace's task-type distribution) over each node's GPUs one
    by one (``simulator/experiment_fragmentation.py``); ``fumarole sweep`` then writes the artefact's
    ``analysis_frag_discrete.csv`` and ``analysis_frag_ratio_discrete.csv``."""
    from .experiment_fragmentation import GpuFragmentation

    return GpuFragmentation()


@dataclass
class ExperimentResult:
    """What one experiment measured, per submitted pod."""

    total_gpus: int
    gpu_milli: list[int]
    """Each submission's GPU request (milli-GPUs)."""
    nodes: list[str]
    """Where each submission was bound ('' when it did not fit)."""
    fragmentation: list[tuple[float, float]] | None = None
    """After each submission: (fragmented, idle) milli-GPUs; None without a measure."""
    wall_seconds: float = 0.0
    names: list[str] = field(default_factory=list)

    @property
    def arrived(self) -> np.ndarray:
        """Milli-GPUs requested by the pods submitted so far, after each submission."""
        return np.cumsum(np.asarray(self.gpu_milli, dtype=np.int64))

    @property
    def used(self) -> np.ndarray:
        """Milli-GPUs allocated after each submission."""
        bound = np.asarray(
            [milli if node else 0 for milli, node in zip(self.gpu_milli, self.nodes, strict=True)]
        )
        return np.cumsum(bound.astype(np.int64))

    @property
    def failed(self) -> int:
        return sum(1 for node in self.nodes if not node)


class _ExperimentScheduler(Scheduler):
    """The real scheduler, its tie-breaks drawn from one generator for the whole experiment."""

    ties: np.random.Generator

    def open_session(self, now: float | None = None) -> Session:
        ssn = super().open_session(now)
        ssn.rng = self.ties
        return ssn


def _objects(cluster: SimCluster, submission: Submission) -> list[Any]:
    spec = submission.spec
    index = submission.index
    group = f"{submission.name}-pg"
    pod_group = build_pod_group(
        NAMESPACE,
        group,
        min_member=1,
        queue=spec.queue,
        phase="Inqueue",
        priority_class=spec.priority_class,
        min_resources=cluster.requests_of(spec),
        uid=f"pg-{index:07d}",
        creation=float(index),
    )
    pod = build_pod(
        NAMESPACE,
        submission.name,
        requests=cluster.requests_of(spec),
        group=group,
        labels=dict(spec.labels),
        annotations=dict(spec.annotations),
        priority=spec.priority,
        priority_class=spec.priority_class,
        uid=f"pod-{index:07d}",
        creation=float(index),
        node_selector=spec.node_selector or None,
        image=spec.image,
    )
    return [pod_group, pod]


def run_experiment(
    workload: Workload,
    conf: SchedulerConf,
    *,
    seed: int,
    tune: float = DEFAULT_TUNE,
    registry: Registry | None = None,
    settings: Settings | None = None,
    measure: FragmentationMeasure | None = None,
    one_by_one: bool = False,
) -> ExperimentResult:
    """Submit ``workload.batch`` (a trace's pods) to ``workload``'s cluster under ``conf``."""
    started = time.perf_counter()
    cluster_spec = artefact_node_names(workload.cluster, seed)
    base = workload.model_copy(update={"batch": [], "seed": seed, "cluster": cluster_spec})
    run_settings = (settings or Settings()).model_copy(update={"seed": seed})
    cluster = SimCluster(base, run_settings)
    submissions = submission_order(workload.batch, cluster.total_gpu_milli, seed=seed, tune=tune)
    scheduler = _ExperimentScheduler(conf, cluster.cache, registry=registry, settings=run_settings)
    scheduler.ties = _rng(seed, TIE_STREAM)
    total_gpus = round(cluster.total_gpu_milli / MILLI)
    nodes = [""] * len(submissions)
    if measure is not None:
        measure.start(cluster, workload)
    if one_by_one:
        bound_pods = _one_by_one(cluster, scheduler, submissions, nodes)
    else:
        bound_pods = _one_session(cluster, scheduler, submissions, nodes)
    fragmentation = None
    if measure is not None:
        fragmentation = []
        for index, node in enumerate(nodes):
            if node:
                measure.bound(node, bound_pods[index])
            fragmentation.append(measure.amount())
    return ExperimentResult(
        total_gpus=total_gpus,
        gpu_milli=[submission.gpu_milli for submission in submissions],
        nodes=nodes,
        fragmentation=fragmentation,
        wall_seconds=time.perf_counter() - started,
        names=[submission.name for submission in submissions],
    )


def _one_session(
    cluster: SimCluster, scheduler: Scheduler, submissions: list[Submission], nodes: list[str]
) -> dict[int, Pod]:
    objects = [obj for submission in submissions for obj in _objects(cluster, submission)]
    cluster.cache.apply_objects(objects, source="<experiment>")
    decisions = scheduler.run_once(now=float(len(submissions)))
    cluster.cache.apply(decisions, float(len(submissions)))
    index_of = {f"{NAMESPACE}/{submission.name}": submission.index for submission in submissions}
    bound: dict[int, Pod] = {}
    for bind in decisions.binds:
        index = index_of[bind.pod]
        nodes[index] = bind.node
        bound[index] = cluster.cache.pods[bind.pod]
    return bound


def _one_by_one(
    cluster: SimCluster, scheduler: Scheduler, submissions: list[Submission], nodes: list[str]
) -> dict[int, Pod]:
    bound: dict[int, Pod] = {}
    for submission in submissions:
        pod_group, pod = _objects(cluster, submission)
        cluster.cache.apply_objects([pod_group, pod], source="<experiment>")
        decisions = scheduler.run_once(now=float(submission.index))
        cluster.cache.apply(decisions, float(submission.index))
        placed = [bind.node for bind in decisions.binds if bind.pod == pod.key]
        if placed:
            nodes[submission.index] = placed[0]
            bound[submission.index] = cluster.cache.pods[pod.key]
        else:  # the artefact deletes a pod that did not fit
            cluster.cache.delete("Pod", pod.key)
            cluster.cache.delete("PodGroup", pod_group.key)
    return bound


# ---------------------------------------------------------------------- the artefact's discrete layout
ALLOCATION_HEADER = ["workload", "sc_policy", "tune", "seed", "total_gpus"]
FRAGMENTATION_HEADER = ["workload", "sc_policy", "tune", "seed"]


def columns(tune: float) -> list[int]:
    """The arrived-workload percentages of the discrete files: 0..130 (more if ``tune`` is larger)."""
    return list(range(max(MIN_COLUMNS, math.ceil(round(tune * 100, 6))) + 1))


def _buckets(arrived_percent: list[float], wanted: list[int]) -> dict[int, list[int]]:
    """For each column, the submissions measured there (``merge_alloc_discrete.py``): arrived % equal
    to it, else within ±1; columns with none are left out."""
    by_value: dict[float, list[int]] = {}
    for index, value in enumerate(arrived_percent):
        by_value.setdefault(value, []).append(index)
    found: dict[int, list[int]] = {}
    for column in wanted:
        rows = by_value.get(float(column))
        if not rows:
            rows = [i for i, value in enumerate(arrived_percent) if column - 1 <= value <= column + 1]
        if rows:
            found[column] = rows
    return found


def arrived_percent(result: ExperimentResult) -> list[float]:
    return [round(float(value) / result.total_gpus / 10, 0) for value in result.arrived]


def allocation_row(result: ExperimentResult, tune: float) -> dict[int, float]:
    """The GPU allocation ratio (%) at each arrived-workload percentage, as the artefact rounds it."""
    used = [round(float(value) / result.total_gpus / 10, 2) for value in result.used]
    buckets = _buckets(arrived_percent(result), columns(tune))
    return {column: _mean2([used[i] for i in rows]) for column, rows in buckets.items()}


def _mean2(values: list[float]) -> float:
    return float(np.round(np.mean(np.asarray(values, dtype=float)), 2))


def _two_decimals(value: float) -> float:
    """A value as the artefact's log prints it (``%.2f``) and its analysis reads it back."""
    return float(f"{value:.2f}")


def fragmentation_rows(result: ExperimentResult, tune: float) -> tuple[dict[int, float], dict[int, float]]:
    """``analysis_frag_discrete.csv`` (fragmented milli-GPUs as % of the cluster's GPUs, 2 decimals)
    and ``analysis_frag_ratio_discrete.csv`` (fragmented / idle, %, the unrounded mean) rows."""
    if result.fragmentation is None:
        raise ValueError("the experiment ran without a fragmentation measure")
    milli = [_two_decimals(frag) for frag, _ in result.fragmentation]
    ratio = [_two_decimals(100 * frag / idle) if idle else 0.0 for frag, idle in result.fragmentation]
    buckets = _buckets(arrived_percent(result), columns(tune))
    amounts: dict[int, float] = {}
    ratios: dict[int, float] = {}
    for column, rows in buckets.items():
        mean_milli = float(np.mean(np.asarray([milli[i] for i in rows])))
        amounts[column] = float(np.round(100 * mean_milli / 1000 / result.total_gpus, 2))
        ratios[column] = float(np.mean(np.asarray([ratio[i] for i in rows])))
    return amounts, ratios


def format_value(value: Any) -> str:
    """A CSV cell as pandas writes the artefact's (``repr`` of floats, empty when missing)."""
    if value is None:
        return ""
    if isinstance(value, float):
        return repr(value)
    return str(value)


def format_tune(tune: float) -> str:
    """The tune ratio as the artefact's folder name gives it (``1.3``)."""
    return repr(float(tune))


def discrete_csv(
    header: list[str], rows: list[tuple[list[Any], dict[int, float]]], tune_columns: list[int]
) -> str:
    """A discrete file: the header's leading columns, then one column per arrived percentage."""
    lines = [",".join([*header, *(str(column) for column in tune_columns)])]
    for leading, values in rows:
        cells = [format_value(value) for value in leading]
        cells += [format_value(values.get(column)) for column in tune_columns]
        lines.append(",".join(cells))
    return "\n".join(lines) + "\n"
