"""capacity plugin: queue attributes, votes, victims and orders (spec: plugins/capacity/capacity.go and
capacity_test.go).

Upstream's cases run the allocate / reclaim / enqueue actions; here each one is replayed as the
questions those actions ask the plugin (allocatable, preemptive, reclaimable with the reclaimees
the reclaim action would offer, job_enqueueable ...) with the exact answers, plus the exact queue
attributes. Case ids keep upstream's case names.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cmp_to_key
from typing import Any

import pytest
from fumarole.framework.api.job_info import JobInfo
from fumarole.framework.api.resource import Resource
from fumarole.framework.api.types import PERMIT, REJECT, EvictionContext, EvictionKind
from fumarole.framework.conf import ConfError, PluginOption, parse_conf
from fumarole.framework.interface import NoArguments
from fumarole.framework.registry import Registry
from fumarole.framework.session import Session
from fumarole.plugins.capacity import CapacityPlugin, CapacityState
from fumarole.plugins.capacity.arguments import CapacityArguments
from fumarole.plugins.capacity.queue_attrs import QueueAttr, update_share
from fumarole.plugins.priority import PriorityPlugin
from fumarole.testing import Harness, NoopAction, build_node, build_pod, build_pod_group, build_queue, task
from pydantic import ValidationError

MAX = float(2**63 - 1)
INF = math.inf
GPU = "nvidia.com/gpu"
A100 = "nvidia.com/A100"
A100_LOWER = "nvidia.com/a100"
RDMA = "rdma/hca"


# ---------------------------------------------------------------------------------------- builders
def rl(cpu: str = "", memory: str = "", scalars: dict[str, str] | None = None) -> dict[str, str]:
    """Upstream's ``BuildResourceList``: empty cpu / memory are left out."""
    out: dict[str, str] = {}
    if cpu:
        out["cpu"] = cpu
    if memory:
        out["memory"] = memory
    out.update(scalars or {})
    return out


def res(cpu: str = "", memory: str = "", scalars: dict[str, str] | None = None) -> Resource:
    return Resource.from_list(rl(cpu, memory, scalars))


def node(name: str, cpu: str, memory: str, scalars: dict[str, str] | None = None) -> Any:
    return build_node(name, rl(cpu, memory, scalars))


def pod(
    name: str,
    group: str,
    requests: dict[str, str],
    node_name: str = "",
    *,
    phase: str | None = None,
    preemptable: bool = True,
    priority: int | None = None,
    gates: tuple[str, ...] = (),
) -> Any:
    labels = {} if preemptable else {"volcano.sh/preemptable": "false"}
    extra = {"schedulingGates": [{"name": gate} for gate in gates]} if gates else None
    return build_pod(
        "ns1",
        name,
        requests=requests,
        node=node_name,
        phase=phase or ("Running" if node_name else "Pending"),
        group=group,
        labels=labels,
        priority=priority,
        extra_spec=extra,
    )


def pg(
    name: str, queue: str, phase: str, min_member: int = 1, min_resources: dict[str, str] | None = None
) -> Any:
    return build_pod_group(
        "ns1", name, queue=queue, phase=phase, min_member=min_member, min_resources=min_resources
    )


def queue(
    name: str,
    deserved: dict[str, str] | None = None,
    capability: dict[str, str] | None = None,
    *,
    parent: str = "",
    guarantee: dict[str, str] | None = None,
    priority: int = 0,
    state: str = "Open",
) -> Any:
    return build_queue(
        name,
        deserved=deserved,
        capability=capability,
        parent=parent,
        guarantee=guarantee,
        priority=priority,
        state=state,
    )


def capacity_option(hierarchy: bool = False, arguments: dict[str, Any] | None = None) -> PluginOption:
    return PluginOption(
        name="capacity",
        enabled_allocatable=True,
        enable_preemptive=True,
        enabled_reclaimable=True,
        enabled_queue_order=True,
        enabled_job_enqueued=True,
        enabled_predicate=True,
        enabled_hierarchy=hierarchy,
        arguments=arguments or {},
    )


def harness_with(objects: list[Any], option: PluginOption) -> Harness:
    return Harness(objects, [[option]], plugins={"capacity": CapacityPlugin}, entry_points=False)


def open_session(
    objects: list[Any],
    *,
    hierarchy: bool = False,
    level: int | None = None,
    with_priority: bool = False,
    extra: tuple[tuple[str, Any, PluginOption], ...] = (),
) -> Session:
    arguments = {"ancestorReclaimLevel": level} if level is not None else {}
    options = [capacity_option(hierarchy, arguments)]
    plugins: dict[str, Any] = {"capacity": CapacityPlugin}
    if with_priority:
        options.append(PluginOption(name="priority", enabled_job_order=True, enabled_task_order=True))
        plugins["priority"] = PriorityPlugin
    for name, builder, option in extra:
        options.append(option)
        plugins[name] = builder
    harness = Harness(objects, [options], plugins=plugins, entry_points=False)
    _only_listed_queues(harness, objects)
    return harness.open_session()


def _only_listed_queues(harness: Harness, objects: list[Any]) -> None:
    """Sessions hold the queues the test lists, as upstream's unit tests build them: the queues a
    snapshot has implicitly (``root``, ``default``, ``framework/cache/default_queues.py``) are taken out."""
    listed = {obj.metadata.name for obj in objects if getattr(obj, "KIND", "") == "Queue"}
    snapshot = harness.cache.snapshot

    def listed_only() -> Any:
        found = snapshot()
        for name in set(found.queues) - listed:
            del found.queues[name]
        return found

    harness.cache.snapshot = listed_only  # type: ignore[method-assign]


def plugin_of(ssn: Session) -> CapacityPlugin:
    found = ssn.plugins["capacity"]
    assert isinstance(found, CapacityPlugin)
    return found


def job(ssn: Session, name: str) -> JobInfo:
    return ssn.jobs[f"ns1/{name}"]


# ---------------------------------------------------------------------------------------- steps
class Step:
    """One question asked of the plugin (and of the session), with the exact expected answer."""

    def run(self, ssn: Session, plugin: CapacityPlugin) -> None:
        raise NotImplementedError


@dataclass
class Allocatable(Step):
    queue: str
    pod: str
    expected: bool

    def run(self, ssn: Session, plugin: CapacityPlugin) -> None:
        queue_info, candidate = ssn.queues[self.queue], task(ssn, self.pod)
        assert plugin.allocatable(queue_info, candidate) is self.expected
        assert ssn.allocatable(queue_info, candidate) is self.expected


@dataclass
class Preemptive(Step):
    queue: str
    pods: list[str]
    expected: bool

    def run(self, ssn: Session, plugin: CapacityPlugin) -> None:
        queue_info, candidates = ssn.queues[self.queue], [task(ssn, name) for name in self.pods]
        assert plugin.preemptive(queue_info, candidates) is self.expected
        assert ssn.preemptive(queue_info, candidates) is self.expected


@dataclass
class Reclaim(Step):
    """``reclaimees`` are what the reclaim action offers (running, preemptable, other queues)."""

    reclaimer: str
    reclaimees: list[str]
    victims: list[str]
    vote: int = PERMIT

    def run(self, ssn: Session, plugin: CapacityPlugin) -> None:
        reclaimer = task(ssn, self.reclaimer)
        reclaimees = [task(ssn, name) for name in self.reclaimees]
        victims, vote = plugin.reclaimable(reclaimer, reclaimees)
        assert ([v.name for v in victims], vote) == (self.victims, self.vote)
        combined = ssn.reclaimable(reclaimer, reclaimees)
        assert (None if combined is None else [v.name for v in combined]) == (self.victims or None)


@dataclass
class Enqueueable(Step):
    job: str
    expected: bool

    def run(self, ssn: Session, plugin: CapacityPlugin) -> None:
        target = job(ssn, self.job)
        assert plugin.job_enqueueable(target) == (PERMIT if self.expected else REJECT)
        assert ssn.job_enqueueable(target) is self.expected


@dataclass
class Enqueued(Step):
    job: str

    def run(self, ssn: Session, plugin: CapacityPlugin) -> None:
        ssn.job_enqueued(job(ssn, self.job))


@dataclass
class Allocate(Step):
    """A statement allocation, which fires the allocate event handler."""

    pod: str
    node: str

    def run(self, ssn: Session, plugin: CapacityPlugin) -> None:
        ssn.statement().allocate(task(ssn, self.pod), ssn.nodes[self.node])


@dataclass
class Evict(Step):
    """A statement eviction, which fires the deallocate event handler."""

    pod: str

    def run(self, ssn: Session, plugin: CapacityPlugin) -> None:
        ssn.statement().evict(task(ssn, self.pod), "test")


@dataclass
class QueueOrder(Step):
    """The session's queue order over these queues (given in the expected order)."""

    queues: list[str]

    def run(self, ssn: Session, plugin: CapacityPlugin) -> None:
        def compare(left: str, right: str) -> int:
            return ssn.queue_order(ssn.queues[left], ssn.queues[right])

        assert sorted(reversed(self.queues), key=cmp_to_key(compare)) == self.queues


@dataclass
class VictimQueueOrder(Step):
    left: str
    right: str
    preemptor: str
    expected: int

    def run(self, ssn: Session, plugin: CapacityPlugin) -> None:
        queues = ssn.queues
        assert (
            plugin.victim_queue_order(queues[self.left], queues[self.right], queues[self.preemptor])
            == self.expected
        )


@dataclass
class Attr(Step):
    """Exact attributes of one queue (only those given)."""

    queue: str
    deserved: Resource | None = None
    allocated: Resource | None = None
    request: Resource | None = None
    inqueue: Resource | None = None
    elastic: Resource | None = None
    real_capability: Resource | None = None
    capability: Resource | None = None
    guarantee: Resource | None = None
    share: float | None = None
    ancestors: list[str] | None = None

    def run(self, ssn: Session, plugin: CapacityPlugin) -> None:
        attr = plugin.queue_opts[self.queue]
        for name in (
            "deserved",
            "allocated",
            "request",
            "inqueue",
            "elastic",
            "real_capability",
            "capability",
            "guarantee",
            "share",
            "ancestors",
        ):
            expected = getattr(self, name)
            if expected is not None:
                assert getattr(attr, name) == expected, (
                    f"{self.queue}.{name}: {getattr(attr, name)!r} != {expected!r}"
                )


@dataclass
class Ready(Step):
    expected: bool

    def run(self, ssn: Session, plugin: CapacityPlugin) -> None:
        assert plugin.ready_to_schedule is self.expected


@dataclass
class Case:
    objects: Callable[[], list[Any]]
    steps: list[Step]
    hierarchy: bool = False
    level: int | None = None
    with_priority: bool = False
    logged: list[str] = field(default_factory=list)


def run_case(case: Case, fumarole_logs: list[str]) -> None:
    ssn = open_session(
        case.objects(), hierarchy=case.hierarchy, level=case.level, with_priority=case.with_priority
    )
    plugin = plugin_of(ssn)
    for step in case.steps:
        step.run(ssn, plugin)
    for message in case.logged:
        assert message in fumarole_logs


# ---------------------------------------------------------------------------------------- share
@pytest.mark.parametrize(
    ("deserved", "allocated", "share"),
    [
        pytest.param(res(), res("1", "1Gi"), 1.0, id="best-effort queue with allocated resources"),
        pytest.param(res(), res(), 1.0, id="best-effort queue completely idle"),
        pytest.param(res("2", "2Gi"), res(), 0.0, id="queue with deserved but no allocated"),
        pytest.param(res("2", "2Gi"), res("1", "1Gi"), 0.5, id="allocated < deserved (CPU dimension)"),
        pytest.param(res("2", "2Gi"), res("2", "2Gi"), 1.0, id="allocated = deserved"),
        pytest.param(res("2", "2Gi"), res("3", "2Gi"), 1.5, id="allocated > deserved (CPU dimension)"),
        pytest.param(res("2", "4Gi"), res("1", "3Gi"), 0.75, id="memory is dominant resource"),
        pytest.param(res("2", "4Gi"), res("1.5", "2Gi"), 0.75, id="CPU is dominant resource"),
        pytest.param(res("2", "2Gi"), res("3", "3Gi"), 1.5, id="allocated exceeds on both dimensions"),
        pytest.param(res("0", "0Gi"), res("1", "1Gi"), 1.0, id="queue with deserved but zero values"),
        pytest.param(res("2", "2Gi"), res("0", "0Gi"), 0.0, id="queue with deserved, allocated is zero"),
        pytest.param(res(), res("1", "0Gi"), 1.0, id="best-effort queue with only CPU allocated"),
        pytest.param(res(), res("0", "1Gi"), 1.0, id="best-effort queue with only memory allocated"),
        pytest.param(
            res("", "", {"pods": "3"}), res("1"), 1.0, id="deserved naming only pods is best-effort"
        ),
        pytest.param(
            res("2", "", {GPU: "4"}), res("1", "", {GPU: "3"}), 0.75, id="scalar is dominant resource"
        ),
    ],
)
def test_update_share(deserved: Resource, allocated: Resource, share: float) -> None:
    attr = QueueAttr("q", "q", deserved, Resource(), Resource(), Resource(), allocated=allocated, share=-1.0)
    update_share(attr)
    assert attr.share == share


@pytest.mark.parametrize(
    ("request_", "share"),
    [
        pytest.param(res(), 0.5, id="request should not affect share calculation"),
        pytest.param(res("1", "1Gi"), 0.5, id="pending requests do not count either"),
    ],
)
def test_update_share_ignores_request(request_: Resource, share: float) -> None:
    attr = QueueAttr("q", "q", res("2", "2Gi"), Resource(), Resource(), Resource(), allocated=res("1", "1Gi"))
    attr.request = request_
    update_share(attr)
    assert attr.share == share


# ---------------------------------------------------------------------------------------- flat mode
def flat_nodes() -> list[Any]:
    return [node("n1", "2", "4Gi", {"pods": "10"}), node("n2", "2", "4Gi", {"pods": "10"})]


def flat_case0() -> list[Any]:
    return [
        *flat_nodes(),
        queue("q1", None, rl("2", "2Gi")),
        pg("pg1", "q1", "Running"),
        pg("pg2", "q1", "Inqueue"),
        pod("p1", "pg1", rl("1", "1Gi"), "n1"),
        pod("p2", "pg2", rl("1", "1Gi")),
    ]


def flat_case1() -> list[Any]:
    return [
        *flat_nodes(),
        queue("q2", None, rl("1.5", "1.5Gi")),
        pg("pg3", "q2", "Running"),
        pg("pg4", "q2", "Inqueue"),
        pod("p3", "pg3", rl("1", "1Gi"), "n1"),
        pod("p4", "pg4", rl("1", "1Gi")),
    ]


def flat_case2() -> list[Any]:
    return [
        *flat_nodes(),
        queue("q3", rl("2", "4Gi")),
        queue("q4", rl("2", "4Gi")),
        pg("pg5", "q3", "Running"),
        pg("pg6", "q4", "Inqueue"),
        pod("p5", "pg5", rl("2", "4Gi"), "n1", preemptable=False),
        pod("p6", "pg5", rl("2", "4Gi"), "n2"),
        pod("p7", "pg6", rl("2", "4Gi")),
    ]


def flat_case3() -> list[Any]:
    a100 = {A100: "10"}
    return [
        node("n3", "2", "4Gi", {A100: "10", "pods": "10"}),
        node("n4", "2", "4Gi", {A100: "10", "pods": "10"}),
        queue("q5", rl("2", "4Gi", a100)),
        queue("q6", rl("2", "4Gi", a100)),
        pg("pg7", "q5", "Running"),
        pg("pg8", "q6", "Running"),
        pg("pg9", "q6", "Inqueue"),
        pod("p8", "pg7", rl("0", "0Gi", a100), "n3", preemptable=False),
        pod("p9", "pg7", rl("0", "0Gi", a100), "n4"),
        pod("p10", "pg8", rl("2", "4Gi"), "n3"),
        pod("p11", "pg8", rl("2", "4Gi"), "n4"),
        pod("p12", "pg9", rl("0", "0Gi", a100)),
    ]


def flat_case4() -> list[Any]:
    return [
        node("n5", "2", "4Gi", {"pods": "10"}),
        node("n6", "2", "4Gi", {"pods": "10"}),
        queue("q7", None, rl("2", "4Gi"), priority=5),
        queue("q8", None, rl("2", "4Gi"), priority=1),
        queue("q9", None, rl("2", "4Gi"), priority=10),
        pg("pg10", "q7", "Running"),
        pg("pg11", "q8", "Inqueue"),
        pg("pg12", "q9", "Inqueue"),
        pod("p13", "pg10", rl("2", "4Gi"), "n5"),
        pod("p14", "pg11", rl("2", "4Gi")),
        pod("p15", "pg12", rl("2", "4Gi")),
    ]


def flat_case5() -> list[Any]:
    return [
        node("n1", "2", "4Gi", {"pods": "10"}),
        queue("q10", rl("2", "2Gi"), rl("4", "4Gi")),
        queue("q11", rl("0", "0Gi"), rl("2", "2Gi")),
        pg("pg16", "q10", "Running"),
        pg("pg17", "q10", "Inqueue"),
        pg("pg18", "q11", "Running"),
        pod("p16", "pg16", rl("1", "3Gi"), "n1"),
        pod("p17", "pg17", rl("1", "1Gi")),
        pod("p18", "pg18", rl("1", "1Gi"), "n1"),
    ]


def flat_case6() -> list[Any]:
    return [
        node("n1", "2", "4Gi", {"pods": "10"}),
        queue("q12", rl("1", "2Gi"), rl("4", "4Gi")),
        queue("q13", rl("0", "0Gi"), rl("2", "2Gi")),
        pg("pg19", "q12", "Running"),
        pg("pg20", "q12", "Inqueue"),
        pg("pg21", "q13", "Running"),
        pod("p19", "pg19", rl("1", "1Gi"), "n1"),
        pod("p20", "pg20", rl("1", "2Gi")),
        pod("p21", "pg21", rl("1", "1Gi"), "n1"),
    ]


def flat_case7() -> list[Any]:
    return [
        node("n7", "4", "8Gi", {GPU: "4", "pods": "10"}),
        queue("queue14", rl("2", "4Gi", {GPU: "2"})),
        queue("queue15"),
        queue("queue16", rl("2", "4Gi", {GPU: "2"})),
        pg("pg22", "queue14", "Running"),
        pg("pg23", "queue15", "Running"),
        pg("pg24", "queue16", "Running"),
        pg("pg25", "queue16", "Inqueue"),
        pod("p22", "pg22", rl("2", "4Gi"), "n7"),
        pod("p23", "pg23", rl("0", "0Gi", {GPU: "1"}), "n7"),
        pod("p24", "pg24", rl("2", "1Gi", {GPU: "1"}), "n7"),
        pod("p25", "pg25", rl("2", "3Gi", {GPU: "1"})),
    ]


def flat_case8() -> list[Any]:
    return [
        node("n8", "4", "8Gi", {GPU: "1", "pods": "10"}),
        queue("queue17", rl("2", "2Gi")),
        queue("queue18", rl("2", "4Gi", {GPU: "1"})),
        pg("pg26", "queue17", "Running"),
        pg("pg27", "queue17", "Running"),
        pg("pg28", "queue17", "Running"),
        pg("pg29", "queue18", "Running"),
        pg("pg30", "queue18", "Inqueue"),
        pod("p26", "pg26", rl("0", "4Gi"), "n8"),
        pod("p27", "pg27", rl("1", "0Gi"), "n8"),
        pod("p28", "pg28", rl("0", "0Gi", {GPU: "1"}), "n8"),
        pod("p29", "pg29", rl("2", "4Gi"), "n8"),
        pod("p30", "pg30", rl("1", "0Gi", {GPU: "1"})),
    ]


def flat_case9() -> list[Any]:
    return [
        node("n8", "4", "8Gi", {GPU: "1", "pods": "10"}),
        queue("queue19", rl("", "", {GPU: "1"})),
        queue("queue20", rl("2", "2Gi")),
        pg("pg31", "queue19", "Running"),
        pg("pg32", "queue20", "Inqueue"),
        pod("p31", "pg31", rl("4", "4Gi", {GPU: "1"}), "n8"),
        pod("p32", "pg32", rl("1", "1Gi")),
    ]


def flat_case10() -> list[Any]:
    return [
        node("n9", "8", "100Gi", {"pods": "10"}),
        node("n10", "8", "100Gi", {"pods": "10"}),
        queue("queue21", rl("8", "100Gi"), rl("8", "100Gi")),
        queue("queue22", None, rl("2", "5Gi")),
        pg("pg33", "queue21", "Running"),
        pg("pg34", "queue21", "Inqueue"),
        pg("pg35", "queue22", "Running"),
        pod("p33", "pg33", rl("7", "90Gi"), "n9"),
        pod("p34", "pg34", rl("2", "5Gi")),
        pod("p35", "pg35", rl("2", "5Gi"), "n10"),
    ]


FLAT_CASES = [
    pytest.param(
        Case(
            flat_case0,
            [
                Attr(
                    "q1",
                    deserved=res(),
                    allocated=res("1", "1Gi", {"pods": "1"}),
                    request=res("2", "2Gi", {"pods": "2"}),
                    inqueue=res(),
                    elastic=res("1", "1Gi", {"pods": "1"}),
                    real_capability=res("2", "2Gi", {"pods": "20"}),
                    share=1.0,
                ),
                Allocatable("q1", "p2", True),
            ],
        ),
        id="case0: Pod allocatable when queue has not exceed capability",
    ),
    pytest.param(
        Case(
            flat_case1,
            [
                Attr(
                    "q2",
                    allocated=res("1", "1Gi", {"pods": "1"}),
                    real_capability=res("1.5", "1.5Gi", {"pods": "20"}),
                ),
                Allocatable("q2", "p4", False),
            ],
        ),
        id="case1: Pod not allocatable when queue exceed queue capability",
    ),
    pytest.param(
        Case(
            flat_case2,
            [
                Attr("q3", deserved=res("2", "4Gi"), allocated=res("4", "8Gi", {"pods": "2"}), share=2.0),
                Attr("q4", deserved=res("2", "4Gi"), allocated=res(), share=0.0),
                QueueOrder(["q4", "q3"]),
                Allocatable("q4", "p7", True),
                Preemptive("q4", ["p7"], True),
                Reclaim("p7", ["p6"], ["p6"]),
                Reclaim("p7", ["p5", "p6"], ["p6"]),
            ],
        ),
        id="case2: Can reclaim from other queues when allocated < deserved",
    ),
    pytest.param(
        Case(
            flat_case3,
            [
                Attr(
                    "q5",
                    deserved=res("2", "4Gi", {A100: "10"}),
                    allocated=res("0", "0", {A100: "20", "pods": "2"}),
                ),
                Attr("q6", allocated=res("4", "8Gi", {"pods": "2"}), share=2.0),
                Allocatable("q6", "p12", True),
                Preemptive("q6", ["p12"], True),
                Reclaim("p12", ["p9"], ["p9"]),
                Reclaim("p12", ["p8", "p9"], ["p9"]),
            ],
        ),
        id="case3: CPU & Memory are overused, scalar resource is not, candidate pod requests no CPU & Memory",
    ),
    pytest.param(
        Case(
            flat_case4,
            [
                Attr("q9", real_capability=res("2", "4Gi", {"pods": "20"}), share=1.0),
                QueueOrder(["q9", "q7", "q8"]),
                Allocatable("q9", "p15", True),
                Allocatable("q8", "p14", True),
            ],
        ),
        id="case4: Pods are assigned according to the order of Queue Priority in which PGs are placed",
    ),
    pytest.param(
        Case(
            flat_case5,
            [
                Attr(
                    "q10",
                    deserved=res("2", "2Gi"),
                    real_capability=res("2", "4Gi", {"pods": "10"}),
                    allocated=res("1", "3Gi", {"pods": "1"}),
                    share=1.5,
                ),
                Attr(
                    "q11", deserved=res("0", "0"), real_capability=res("2", "2Gi", {"pods": "10"}), share=1.0
                ),
                Preemptive("q10", ["p17"], True),
                Reclaim("p17", ["p18"], ["p18"]),
            ],
        ),
        id="case5: Can reclaim from other queues when allocated + req <= deserved on one dimension",
    ),
    pytest.param(
        Case(flat_case6, [Preemptive("q12", ["p20"], False), Reclaim("p20", ["p21"], ["p21"])]),
        id="case6: Can not reclaim from other queues when allocated + req > deserved",
    ),
    pytest.param(
        Case(
            flat_case7,
            [
                Attr(
                    "queue16",
                    deserved=res("2", "4Gi", {GPU: "2"}),
                    allocated=res("2", "1Gi", {GPU: "1", "pods": "1"}),
                ),
                Preemptive("queue16", ["p25"], True),
                Reclaim("p25", ["p22", "p23"], ["p23"]),
            ],
        ),
        id="case7: allocated does not contain scalar dimension (GPU), deserved does; should not reclaim",
    ),
    pytest.param(
        Case(
            flat_case8,
            [
                Attr("queue17", allocated=res("1", "4Gi", {GPU: "1", "pods": "3"})),
                Preemptive("queue18", ["p30"], True),
                Reclaim("p30", ["p26", "p27", "p28"], ["p28"]),
            ],
        ),
        id="case8: reclaimer dimensions are considered properly while evicting reclaimees",
    ),
    pytest.param(
        Case(
            flat_case9,
            [
                Attr("queue19", deserved=res("", "", {GPU: "1"})),
                Preemptive("queue20", ["p32"], True),
                Reclaim("p32", ["p31"], []),
            ],
        ),
        id="case9: reclaimee with intersecting scalar dims in deserved is not reclaimed on cpu/memory",
    ),
    pytest.param(
        Case(
            flat_case10,
            [
                Attr("queue21", real_capability=res("8", "100Gi", {"pods": "20"})),
                Preemptive("queue21", ["p34"], False),
                Allocatable("queue21", "p34", False),
            ],
        ),
        id="case10: PreemptiveFn respects capability - no reclaim when futureUsed would exceed capability",
    ),
]


@pytest.mark.parametrize("case", FLAT_CASES)
def test_without_hierarchy(case: Case, fumarole_logs: list[str]) -> None:
    run_case(case, fumarole_logs)


# ---------------------------------------------------------------------------------------- enqueue
def enqueue_objects(*pods: str) -> list[Any]:
    """Upstream TestEnqueueAndAllocatable; ``pods`` picks which of pod1..pod6 (and their PodGroups) exist."""
    r1c3g, r3c1g, r1c0g, r0c1g, r1c1g = (
        rl("1", "3G"),
        rl("3", "1G"),
        rl("1", "0G"),
        rl("0", "1G"),
        rl("1", "1G"),
    )
    groups = {
        "pod1": (pg("pg1", "q1", "Running", min_resources=r1c3g), pod("pod1", "pg1", r1c3g, "n1")),
        "pod2": (pg("pg2", "q2", "Running", min_resources=r3c1g), pod("pod2", "pg2", r3c1g, "n2")),
        "pod3": (pg("pg3", "q1", "Pending", min_resources=r1c0g), pod("pod3", "pg3", r1c0g)),
        "pod4": (pg("pg4", "q2", "Pending", min_resources=r0c1g), pod("pod4", "pg4", r0c1g)),
        "pod5": (pg("pg5", "q1", "Pending", min_resources=r1c1g), pod("pod5", "pg5", r1c1g)),
        "pod6": (pg("pg6", "q3", "Pending", min_resources=r1c1g), pod("pod6", "pg6", r1c1g)),
    }
    objects: list[Any] = [
        node("n1", "3", "3G", {"pods": "10"}),
        node("n2", "3", "3G", {"pods": "10"}),
        queue("q1", rl("2", "2G"), rl("2", "2G")),
        queue("q2", rl("2", "2G"), rl("3", "3G")),
        queue("q3", None, rl("3", "3G"), state="Closed"),
    ]
    for name in pods:
        objects.extend(groups[name])
    return objects


ENQUEUE_CASES = [
    pytest.param(
        Case(
            lambda: enqueue_objects("pod1", "pod2", "pod3"),
            [
                Attr(
                    "q1",
                    real_capability=res("2", "2G", {"pods": "20"}),
                    allocated=res("1", "3G", {"pods": "1"}),
                    inqueue=res(),
                    elastic=res("", "", {"pods": "1"}),
                ),
                Enqueueable("pg3", True),
                Enqueued("pg3"),
                Attr("q1", inqueue=res("1", "0")),
                Allocatable("q1", "pod3", True),
            ],
        ),
        id="case0: memory exceed derserved, job only request cpu can be enqueued and allocated",
    ),
    pytest.param(
        Case(
            lambda: enqueue_objects("pod1", "pod2", "pod4"),
            [Enqueueable("pg4", True), Enqueued("pg4"), Allocatable("q2", "pod4", True)],
        ),
        id="case1: cpu exceed derserved, job only request memory can be enqueued and allocated",
    ),
    pytest.param(
        Case(
            lambda: enqueue_objects("pod1", "pod2", "pod5"),
            [Enqueueable("pg5", False), Attr("q1", inqueue=res())],
            logged=[
                "[capacity] PodGroup ns1/pg5 Unschedulable: "
                "queue resource quota insufficient: insufficient memory"
            ],
        ),
        id="case2: exceed capacity, can not enqueue",
    ),
    pytest.param(
        Case(
            lambda: enqueue_objects("pod6"),
            [Enqueueable("pg6", False), Allocatable("q3", "pod6", False), Preemptive("q3", ["pod6"], False)],
        ),
        id="case4: queue with non-open state, can not enqueue",
    ),
]


@pytest.mark.parametrize("case", ENQUEUE_CASES)
def test_enqueue_and_allocatable(case: Case, fumarole_logs: list[str]) -> None:
    run_case(case, fumarole_logs)


def test_no_double_counting_for_inqueue_job_with_bound_tasks() -> None:
    """Upstream TestNoDoubleCountingForInqueueJobWithBindingTasks: allocated tasks of an Inqueue job
    are in allocated, so only the rest of minResources is reserved as inqueue."""
    objects = [
        node("n1", "4", "8Gi", {"pods": "10"}),
        queue("q1", None, rl("4", "8Gi")),
        pg("pgA", "q1", "Inqueue", min_member=3, min_resources=rl("3", "3Gi")),
        *(pod(f"pA{i}", "pgA", rl("1", "1Gi"), "n1", phase="Pending") for i in (1, 2, 3)),
        pg("pgB", "q1", "Pending", min_resources=rl("1", "1Gi")),
        pod("pB1", "pgB", rl("1", "1Gi")),
    ]
    ssn = open_session(objects)
    plugin = plugin_of(ssn)
    for step in (
        Attr(
            "q1", allocated=res("3", "3Gi", {"pods": "3"}), inqueue=res(), elastic=res("", "", {"pods": "3"})
        ),
        Enqueueable("pgB", True),
    ):
        step.run(ssn, plugin)


@pytest.mark.parametrize(
    ("min_cpu", "expected"),
    [
        pytest.param("2", True, id="2 + 3 allocated - 2 elastic fits 4 CPUs"),
        pytest.param("4", False, id="4 + 3 allocated - 2 elastic exceeds 4 CPUs"),
    ],
)
def test_enqueue_discounts_elastic_resources(min_cpu: str, expected: bool) -> None:
    """What running jobs hold beyond their minResources (elastic) does not block an enqueue."""
    objects = [
        node("n1", "8", "8Gi", {"pods": "10"}),
        queue("q1", None, rl("4", "8Gi")),
        pg("pgA", "q1", "Running", min_resources=rl("1")),
        *(pod(f"pA{i}", "pgA", rl("1"), "n1") for i in (1, 2, 3)),
        pg("pgB", "q1", "Pending", min_resources=rl(min_cpu)),
    ]
    ssn = open_session(objects)
    plugin = plugin_of(ssn)
    for step in (
        Attr("q1", allocated=res("3", "", {"pods": "3"}), elastic=res("2", "", {"pods": "3"}), inqueue=res()),
        Enqueueable("pgB", expected),
    ):
        step.run(ssn, plugin)


@pytest.mark.parametrize(
    ("phase", "bound", "min_resources", "inqueue"),
    [
        pytest.param(
            "Inqueue", 1, rl("3", "3Gi"), res("2", "2Gi"), id="Inqueue job reserves the unallocated part"
        ),
        pytest.param("Inqueue", 3, rl("3", "3Gi"), res(), id="Inqueue job fully allocated reserves nothing"),
        pytest.param(
            "Inqueue",
            1,
            rl("3", "", {GPU: "2", "pods": "3"}),
            res("2", "", {GPU: "2", "pods": "2"}),
            id="pods in whole pods; a scalar absent from allocated is reserved in full",
        ),
        pytest.param(
            "Running", 3, rl("4", "4Gi"), res("1", "1Gi"), id="Running job with minMember allocated"
        ),
        pytest.param("Running", 2, rl("4", "4Gi"), res(), id="Running job below minMember reserves nothing"),
        pytest.param("Pending", 0, rl("3", "3Gi"), res(), id="Pending job reserves nothing"),
    ],
)
def test_inqueue_at_session_open(
    phase: str, bound: int, min_resources: dict[str, str], inqueue: Resource
) -> None:
    objects = [
        node("n1", "8", "8Gi", {"pods": "10"}),
        queue("q1"),
        pg("pgA", "q1", phase, min_member=3, min_resources=min_resources),
        *(pod(f"pA{i}", "pgA", rl("1", "1Gi"), "n1" if i <= bound else "") for i in (1, 2, 3)),
    ]
    ssn = open_session(objects)
    assert plugin_of(ssn).queue_opts["q1"].inqueue == inqueue


@pytest.mark.parametrize(
    ("gates", "inqueue"),
    [
        pytest.param((), res("3", "3Gi"), id="no gated task: all of minResources"),
        pytest.param(("example.com/gate",), res("2", "2Gi"), id="a gated task's request is deducted"),
        pytest.param(
            ("scheduling.volcano.sh/queue-allocation-gate",),
            res("3", "3Gi"),
            id="a task held only by the queue-allocation gate still counts",
        ),
    ],
)
def test_job_enqueued_deducts_gated_tasks(gates: tuple[str, ...], inqueue: Resource) -> None:
    objects = [
        node("n1", "8", "8Gi", {"pods": "10"}),
        queue("q1", None, rl("8", "8Gi")),
        pg("pgA", "q1", "Pending", min_member=3, min_resources=rl("3", "3Gi")),
        pod("pA1", "pgA", rl("1", "1Gi")),
        pod("pA2", "pgA", rl("1", "1Gi")),
        pod("pA3", "pgA", rl("1", "1Gi"), gates=gates),
    ]
    ssn = open_session(objects)
    ssn.job_enqueued(job(ssn, "pgA"))
    assert plugin_of(ssn).queue_opts["q1"].inqueue == inqueue


class RejectPgA:
    """A co-tier plugin that rejects ns1/pgA at enqueue (upstream uthelper.RejecterPlugin)."""

    name = "rejecter"

    def __init__(self, arguments: NoArguments) -> None:
        self.arguments = arguments

    def on_session_open(self, ssn: Session) -> None:
        ssn.job_enqueueable.register(lambda target: REJECT if target.name == "pgA" else PERMIT)

    def on_session_close(self, ssn: Session) -> None:
        return None


def test_job_enqueued_only_after_every_plugin_admits() -> None:
    """Upstream TestJobEnqueuedOnOtherPluginsReject: capacity permits pgA but a co-tier plugin rejects
    it; the enqueue action then never calls job_enqueued, so pgB still fits q1's single CPU."""
    objects = [
        node("n1", "4", "4G", {"pods": "10"}),
        queue("q1", rl("1", "4G"), rl("1", "4G")),
        pg("pgA", "q1", "Pending", min_resources=rl("1", "1G")),
        pg("pgB", "q1", "Pending", min_resources=rl("1", "1G")),
        pod("podA", "pgA", rl("1", "1G")),
        pod("podB", "pgB", rl("1", "1G")),
    ]
    rejecter = PluginOption(name="rejecter", enabled_job_enqueued=True)
    ssn = open_session(objects, extra=(("rejecter", RejectPgA, rejecter),))
    plugin = plugin_of(ssn)
    assert plugin.job_enqueueable(job(ssn, "pgA")) == PERMIT
    assert ssn.job_enqueueable(job(ssn, "pgA")) is False
    assert ssn.job_enqueueable(job(ssn, "pgB")) is True
    ssn.job_enqueued(job(ssn, "pgB"))
    assert plugin.queue_opts["q1"].inqueue == res("1", "1G")
    assert plugin.job_enqueueable(job(ssn, "pgA")) == REJECT


# ---------------------------------------------------------------------------------------- hierarchy
def h_queue(
    name: str, parent: str, deserved: dict[str, str] | None = None, capability: dict[str, str] | None = None
) -> Any:
    """Upstream's ``buildQueueWithParents``."""
    return queue(name, deserved, capability, parent=parent)


def h_node() -> Any:
    return node("n1", "8", "8Gi", {"pods": "11"})


def pods4(cpu: str, memory: str, pods: str) -> dict[str, str]:
    return rl(cpu, memory, {"pods": pods})


def h_tree_q1() -> list[Any]:
    return [
        h_queue("root", ""),
        h_queue("q1", "root", None, rl("4", "4Gi")),
        h_queue("q2", "root", None, rl("4", "4Gi")),
        h_queue("q11", "q1", None, rl("1", "1Gi")),
        h_queue("q12", "q1", None, rl("3", "3Gi")),
    ]


def h_tree_q3(*extra: str) -> list[Any]:
    queues = {
        "q3": h_queue("q3", "root", pods4("4", "4Gi", "10"), pods4("4", "4Gi", "10")),
        "q4": h_queue("q4", "root", pods4("2", "2Gi", "1"), pods4("4", "4Gi", "4")),
        "q31": h_queue("q31", "q3", pods4("2", "2Gi", "2"), pods4("4", "4Gi", "4")),
        "q32": h_queue("q32", "q3", pods4("2", "2Gi", "2"), pods4("4", "4Gi", "4")),
        "q33": h_queue("q33", "q3", pods4("0", "0Gi", "2"), pods4("4", "4Gi", "4")),
    }
    return [h_queue("root", ""), *(queues[name] for name in extra)]


def h_case0() -> list[Any]:
    return [h_node(), *h_tree_q1(), pg("pg1", "q11", "Inqueue"), pod("p1", "pg1", rl("1", "1Gi"))]


def h_case1() -> list[Any]:
    return [h_node(), *h_tree_q1(), pg("pg2", "q1", "Pending"), pod("p2", "pg2", rl("1", "1Gi"))]


def h_case2() -> list[Any]:
    return [
        h_node(),
        *h_tree_q3("q3", "q4", "q31", "q32"),
        pg("pg3", "q31", "Inqueue", min_member=2),
        pod("p3", "pg3", rl("2", "2Gi")),
        pod("p4", "pg3", rl("2", "2Gi")),
    ]


def h_case3() -> list[Any]:
    return [
        h_node(),
        *h_tree_q3("q3", "q31", "q32", "q4"),
        pg("pg4", "q4", "Running"),
        pg("pg5", "q31", "Running"),
        pg("pg6", "q32", "Inqueue"),
        pod("p5", "pg4", rl("4", "4Gi"), "n1"),
        pod("p6", "pg5", rl("2", "2Gi"), "n1", preemptable=False),
        pod("p7", "pg5", rl("2", "2Gi"), "n1"),
        pod("p8", "pg6", rl("2", "2Gi")),
    ]


def h_case4() -> list[Any]:
    return [
        h_node(),
        *h_tree_q3("q3", "q31", "q32", "q33"),
        pg("pg5", "q31", "Running"),
        pg("pg7", "q32", "Running"),
        pg("pg8", "q33", "Inqueue"),
        pod("p6", "pg5", rl("2", "2Gi"), "n1", preemptable=False),
        pod("p9", "pg7", rl("2", "2Gi"), "n1"),
        pod("p10", "pg8", rl("3", "3Gi")),
    ]


def h_case5() -> list[Any]:
    return [
        h_node(),
        h_queue("root", ""),
        h_queue("q5", "root", None, rl("", "4Gi")),
        h_queue("q51", "q5", None, rl("", "2Gi")),
        pg("pg9", "q51", "Running"),
        pod("p11", "pg9", rl("1", "")),
    ]


def h_case6() -> list[Any]:
    return [
        h_node(),
        h_queue("root", ""),
        h_queue("q6", "root", None, rl("2", "4Gi")),
        h_queue("q61", "q6"),
        h_queue("q62", "q6"),
        pg("pg10", "q61", "Pending", min_resources=rl("2", "4Gi")),
        pg("pg11", "q62", "Pending", min_resources=rl("2", "4Gi")),
    ]


def h_case7() -> list[Any]:
    q71 = queue("q71", None, rl("6", "4Gi"), parent="q7", guarantee=rl("4", "3Gi"))
    q72 = queue("q72", None, rl("6", "4Gi"), parent="q7", guarantee=rl("4", "3Gi"))
    return [h_node(), h_queue("root", ""), h_queue("q7", "root", None, rl("6", "4Gi")), q71, q72]


def h_case8() -> list[Any]:
    return [
        node("n-gpu", "8", "8Gi", {GPU: "8", "pods": "10"}),
        h_queue("root", ""),
        h_queue("q8", "root", rl("4", "4Gi", {GPU: "8"})),
        h_queue("q81", "q8", rl("2", "2Gi", {GPU: "4"})),
        h_queue("q82", "q8", rl("2", "2Gi", {GPU: "4"})),
        pg("pg12", "q81", "Inqueue"),
        pod("p12", "pg12", rl("2", "2Gi", {GPU: "1"})),
    ]


def h_case9() -> list[Any]:
    return [
        node("n2", "8", "8Gi", {GPU: "8", "pods": "10", "hugepages-1Gi": "0"}),
        h_queue("root", ""),
        h_queue("q9", "root", rl("2", "2Gi", {GPU: "8", "hugepages-1Gi": "0"})),
        h_queue("q91", "q9", rl("2", "2Gi", {GPU: "4", "hugepages-1Gi": "0"})),
        pg("pg13", "q91", "Inqueue"),
        pod("p13", "pg13", rl("2", "2Gi", {GPU: "1"})),
    ]


def h_case10() -> list[Any]:
    return [
        h_node(),
        h_queue("root", "", None, rl("16", "16Gi")),
        h_queue("q10", "root", None, rl("10", "4Gi")),
    ]


def h_case11() -> list[Any]:
    gpu4 = rl("4", "4Gi", {GPU: "4"})
    return [
        node("n2", "8", "8Gi", {GPU: "8", "pods": "10", "hugepages-1Gi": "0"}),
        h_queue("root", ""),
        h_queue("case11_queue1", "root"),
        h_queue("case11_queue11", "case11_queue1", None, gpu4),
        h_queue("case11_queue12", "case11_queue1", None, gpu4),
        pg("pg14", "case11_queue11", "Inqueue"),
        pg("pg15", "case11_queue12", "Inqueue"),
        pod("p14", "pg14", rl("1", "1Gi", {GPU: "4"})),
        pod("p15", "pg15", rl("1", "1Gi", {GPU: "4"})),
    ]


def a100_request(count: str = "1") -> dict[str, str]:
    return rl("1", "1Gi", {A100_LOWER: count, RDMA: "1"})


def root_with_deserved() -> Any:
    return h_queue("root", "", rl("16", "16Gi", {A100_LOWER: "4", "rdma": "1000"}))


def h_case12() -> list[Any]:
    return [
        node("n3", "16", "16Gi", {A100_LOWER: "5", RDMA: "1001", "pods": "11"}),
        root_with_deserved(),
        h_queue("case12_queue1", "root", rl("", "", {A100_LOWER: "2"})),
        h_queue("case12_queue11", "case12_queue1", rl("", "", {A100_LOWER: "2"})),
        h_queue("case12_queue12", "case12_queue1"),
        pg("pg16", "case12_queue11", "Inqueue"),
        pg("pg17", "case12_queue12", "Running"),
        pg("pg18", "case12_queue12", "Running"),
        pod("p16", "pg16", a100_request("2")),
        pod("p17", "pg17", a100_request("2"), "n3"),
        pod("p18", "pg18", a100_request("2"), "n3", preemptable=False),
    ]


def unlimited(scalars: dict[str, float]) -> Resource:
    return Resource(INF, INF, scalars)


HIERARCHY_CASES = [
    pytest.param(
        Case(
            h_case0,
            [
                Ready(True),
                Attr("root", capability=unlimited({"pods": MAX}), real_capability=unlimited({"pods": MAX})),
                Attr("q1", ancestors=["root"], real_capability=Resource(4000, 4 * 2**30, {"pods": MAX})),
                Attr("q11", ancestors=["root", "q1"], real_capability=Resource(1000, 2**30, {"pods": MAX})),
                Allocatable("q11", "p1", True),
                Allocatable("q1", "p1", False),
            ],
            hierarchy=True,
        ),
        id="case0: Pod allocatable when queue is leaf queue",
    ),
    pytest.param(
        Case(
            h_case1,
            [
                Ready(False),
                Allocatable("q1", "p2", False),
                Allocatable("q11", "p2", False),
                Enqueueable("pg2", False),
                Preemptive("q1", ["p2"], False),
            ],
            hierarchy=True,
            logged=["[capacity] the Queue <q1> of Job <ns1/pg2> is not leaf queue"],
        ),
        id="case1: Pod not allocatable when queue is not leaf queue",
    ),
    pytest.param(
        Case(
            h_case2,
            [
                Attr("q3", real_capability=res("4", "4Gi", {"pods": "10"})),
                Attr("q31", real_capability=res("4", "4Gi", {"pods": "4"}), share=0.0),
                Allocatable("q31", "p3", True),
                Allocate("p3", "n1"),
                Attr("q31", allocated=res("2", "2Gi", {"pods": "1"}), share=1.0),
                Attr("q3", allocated=res("2", "2Gi", {"pods": "1"}), share=0.0),
                Attr("root", allocated=res("2", "2Gi", {"pods": "1"})),
                Allocatable("q31", "p4", True),
                Allocate("p4", "n1"),
                Attr("q31", allocated=res("4", "4Gi", {"pods": "2"}), share=2.0),
                Attr("q3", allocated=res("4", "4Gi", {"pods": "2"}), share=0.0),
            ],
            hierarchy=True,
        ),
        id="case2: Pod allocatable when queue has not exceed capability",
    ),
    pytest.param(
        Case(
            h_case3,
            [
                Attr(
                    "q31", allocated=res("4", "4Gi", {"pods": "2"}), deserved=res("2", "2Gi", {"pods": "2"})
                ),
                Attr("q3", allocated=res("4", "4Gi", {"pods": "2"})),
                Attr("q4", allocated=res("4", "4Gi", {"pods": "1"})),
                Preemptive("q32", ["p8"], True),
                VictimQueueOrder("q31", "q4", "q32", -1),
                VictimQueueOrder("q4", "q31", "q32", 1),
                VictimQueueOrder("q31", "q31", "q32", 0),
                Reclaim("p8", ["p5", "p7"], ["p7", "p5"]),
                Evict("p7"),
                Attr("q31", allocated=res("2", "2Gi", {"pods": "1"}), share=1.0),
                Attr("q3", allocated=res("2", "2Gi", {"pods": "1"})),
                Attr("root", allocated=res("6", "6Gi", {"pods": "2"})),
            ],
            hierarchy=True,
        ),
        id="case3: Can reclaim from other queues when allocated < deserved",
    ),
    pytest.param(
        Case(
            h_case4,
            [
                Attr("q33", real_capability=res("4", "4Gi", {"pods": "4"}), allocated=res()),
                Attr("q3", allocated=res("4", "4Gi", {"pods": "2"})),
                Allocatable("q33", "p10", False),
            ],
            hierarchy=True,
        ),
        id="case4: Pod is not allocatable when ancestor queue's real capability not enough",
    ),
    pytest.param(
        Case(
            h_case5,
            [
                Attr("q5", capability=Resource(INF, 4 * 2**30, {"pods": MAX})),
                Attr("q51", real_capability=Resource(INF, 2 * 2**30, {"pods": MAX})),
                Allocatable("q51", "p11", True),
            ],
            hierarchy=True,
        ),
        id="case5: If the capability cpu or memory is not specified, it is inherited from parent queue",
    ),
    pytest.param(
        Case(
            h_case6,
            [
                Attr("q62", real_capability=Resource(2000, 4 * 2**30, {"pods": MAX})),
                Enqueueable("pg10", True),
                Enqueued("pg10"),
                Attr("q61", inqueue=res("2", "4Gi")),
                Attr("q6", inqueue=res("2", "4Gi")),
                Attr("root", inqueue=res("2", "4Gi")),
                Attr("q62", inqueue=res()),
                Enqueueable("pg11", False),
            ],
            hierarchy=True,
            logged=[
                "[capacity] PodGroup ns1/pg11 Unschedulable: "
                "queue resource quota insufficient: insufficient cpu, insufficient memory"
            ],
        ),
        id="case6: podgroup can't be enqueued when any ancestor queue's capability is not enough",
    ),
    pytest.param(
        Case(
            h_case7,
            [
                Ready(True),
                Attr("root", deserved=res(), guarantee=res()),
                Attr("q7", real_capability=Resource(6000, 4 * 2**30, {"pods": MAX}), deserved=res()),
                Attr(
                    "q71", deserved=res("4", "3Gi"), real_capability=Resource(4000, 3 * 2**30, {"pods": MAX})
                ),
                Attr(
                    "q72", deserved=res("4", "3Gi"), real_capability=Resource(4000, 3 * 2**30, {"pods": MAX})
                ),
            ],
            hierarchy=True,
            logged=[
                "[capacity] Sum of child queue guarantees (cpu 8000.00, memory 6442450944.00) exceeds "
                "parent queue q7 guarantee (cpu 0.00, memory 0.00). "
                "Not all child guarantees can be satisfied simultaneously.",
                "[capacity] Sum of child queue deserved (cpu 8000.00, memory 6442450944.00) exceeds "
                "parent queue q7 deserved (cpu 0.00, memory 0.00). "
                "This may affect resource distribution during scheduling.",
            ],
        ),
        id="case7: the sum of sub queue 71 and 72's guarantee exceeds the capacity of queue7, no panic",
    ),
    pytest.param(
        Case(
            h_case8,
            [
                Attr("q81", real_capability=unlimited({GPU: MAX, "pods": MAX})),
                Allocatable("q81", "p12", True),
            ],
            hierarchy=True,
        ),
        id="case8: When the queue's deserved value has a scalar resource set, the check can pass",
    ),
    pytest.param(
        Case(h_case9, [Allocatable("q91", "p13", True)], hierarchy=True),
        id="case9: When some scalar resources are 0 in deserved, the check can still pass",
    ),
    pytest.param(
        Case(
            h_case10,
            [
                Ready(True),
                Attr("root", capability=res("16", "16Gi"), real_capability=res("16", "16Gi")),
                Attr("q10", real_capability=res("10", "4Gi")),
            ],
            hierarchy=True,
            logged=[],
        ),
        id="case10: root queue's capability > cluster total resource, but should not panic",
    ),
    pytest.param(
        Case(
            h_case11,
            [
                Attr(
                    "case11_queue11",
                    capability=Resource(4000, 4 * 2**30, {GPU: 4000, "pods": MAX, "hugepages-1Gi": MAX}),
                ),
                Allocatable("case11_queue11", "p14", True),
                Allocate("p14", "n2"),
                Attr("case11_queue1", allocated=res("1", "1Gi", {GPU: "4", "pods": "1"})),
                Allocatable("case11_queue12", "p15", True),
            ],
            hierarchy=True,
        ),
        id="case11: If the capability scalar resources is not specified, they are inherited from parent",
    ),
    pytest.param(
        Case(
            h_case12,
            [
                Attr("root", deserved=res("", "", {A100_LOWER: "2"})),
                Attr("case12_queue11", deserved=res("", "", {A100_LOWER: "2"}), allocated=res()),
                Preemptive("case12_queue11", ["p16"], True),
                Reclaim("p16", ["p17"], ["p17"]),
            ],
            hierarchy=True,
        ),
        id="case12: Can reclaim from other queues when allocated <= deserved on a single scalar dimension",
    ),
]


@pytest.mark.parametrize("case", HIERARCHY_CASES)
def test_with_hierarchy(case: Case, fumarole_logs: list[str]) -> None:
    run_case(case, fumarole_logs)


# ---------------------------------------------------------------------------------------- ancestor reclaim
def a100_node(a100: str = "4", cpu: str = "16", memory: str = "16Gi") -> Any:
    return node("n1", cpu, memory, {A100_LOWER: a100, RDMA: "1001", "pods": "11"})


def a100_only(count: str) -> dict[str, str]:
    return rl("", "", {A100_LOWER: count})


def project_tree() -> list[Any]:
    return [
        root_with_deserved(),
        h_queue("project1_root", "root", a100_only("1"), a100_only("2")),
        h_queue("project1_non-preemptable", "project1_root", a100_only("1"), a100_only("1")),
        h_queue("project1_preemptable", "project1_root"),
        h_queue("project2_root", "root", a100_only("3"), a100_only("4")),
        h_queue("project2_non-preemptable", "project2_root", a100_only("3"), a100_only("3")),
        h_queue("project2_preemptable", "project2_root"),
    ]


def level_tree() -> list[Any]:
    return [
        h_queue("root", ""),
        h_queue("grand-a", "root", rl("2", "2Gi"), rl("4", "4Gi")),
        h_queue("parent-a", "grand-a", rl("2", "2Gi"), rl("2", "2Gi")),
        h_queue("queue-a", "parent-a", rl("2", "2Gi"), rl("2", "2Gi")),
        h_queue("grand-b", "root", rl("3", "3Gi"), rl("4", "4Gi")),
        h_queue("parent-b", "grand-b", rl("1", "1Gi"), rl("2", "2Gi")),
        h_queue("queue-b", "parent-b", rl("1", "1Gi"), rl("2", "2Gi")),
    ]


def victim_and_reclaimer(
    victim_queue: str, reclaimer_queue: str, request: dict[str, str] | None = None
) -> list[Any]:
    request = request or rl("2", "2Gi")
    return [
        pg("pg-victim", victim_queue, "Running"),
        pg("pg-reclaimer", reclaimer_queue, "Inqueue"),
        pod("p-victim", "pg-victim", request, "n1"),
    ]


def small_node() -> Any:
    return node("n1", "2", "2Gi", {"pods": "10"})


def anc_case1() -> list[Any]:
    return [
        a100_node(),
        root_with_deserved(),
        h_queue("case1_queue1", "root", a100_only("1")),
        h_queue("case1_queue11", "case1_queue1"),
        h_queue("case1_queue2", "root"),
        pg("pg1", "case1_queue2", "Running"),
        pg("pg2", "case1_queue11", "Inqueue"),
        pod("p1", "pg1", a100_request("4"), "n1"),
        pod("p2", "pg2", a100_request("1")),
    ]


def anc_case2() -> list[Any]:
    return [
        a100_node(),
        *project_tree(),
        *(pg(f"pg{i}", "project2_preemptable", "Running") for i in (1, 2, 3, 4)),
        pg("pg5", "project1_preemptable", "Pending"),
        *(pod(f"p{i}", f"pg{i}", a100_request(), "n1", priority=2) for i in (1, 2, 3)),
        pod("p4", "pg4", a100_request(), "n1", priority=1),
        pod("p5", "pg5", a100_request()),
    ]


def anc_case3() -> list[Any]:
    return [
        a100_node(),
        *project_tree(),
        *(pg(f"pg{i}", "project2_preemptable", "Running") for i in (1, 2, 3)),
        pg("pg4_reclaimed", "project2_preemptable", "Inqueue"),
        pg("pg5_pipelined", "project1_preemptable", "Running"),
        pg("pg6", "project2_non-preemptable", "Pending"),
        *(pod(f"p{i}", f"pg{i}", a100_request(), "n1", priority=2) for i in (1, 2, 3)),
        pod("p4", "pg4_reclaimed", a100_request()),
        pod("p5", "pg5_pipelined", a100_request(), "n1"),
        pod("p6", "pg6", a100_request()),
    ]


def anc_case4() -> list[Any]:
    return [
        a100_node("1", "8", "8Gi"),
        root_with_deserved(),
        h_queue("case4_parent1", "root", a100_only("1")),
        h_queue("case4_child1", "case4_parent1", a100_only("1")),
        h_queue("case4_child1_sibling", "case4_parent1"),
        h_queue("case4_parent2", "root", a100_only("1")),
        h_queue("case4_child2", "case4_parent2", a100_only("1")),
        pg("pg1", "case4_child1", "Running"),
        pg("pg2", "case4_child2", "Pending"),
        pg("pg3", "case4_child1_sibling", "Running"),
        pod("p1", "pg1", a100_request(), "n1"),
        pod("p2", "pg2", a100_request()),
        pod("p3", "pg3", a100_request(), "n1", preemptable=False),
    ]


def anc_level_tree() -> list[Any]:
    return [
        small_node(),
        *level_tree(),
        *victim_and_reclaimer("queue-b", "queue-a"),
        pod("p-reclaimer", "pg-reclaimer", rl("2", "2Gi")),
    ]


def anc_case8() -> list[Any]:
    return [
        small_node(),
        h_queue("root", ""),
        h_queue("parent", "root", rl("4", "4Gi"), rl("4", "4Gi")),
        h_queue("queue-a", "parent"),
        h_queue("queue-b", "parent"),
        *victim_and_reclaimer("queue-b", "queue-a"),
        pod("p-reclaimer", "pg-reclaimer", rl("2", "2Gi")),
    ]


def anc_case9() -> list[Any]:
    return [
        small_node(),
        h_queue("root", ""),
        h_queue("grand", "root", rl("2", "2Gi"), rl("2", "2Gi")),
        h_queue("parent-a", "grand"),
        h_queue("queue-a", "parent-a"),
        h_queue("parent-b", "grand"),
        h_queue("queue-b", "parent-b"),
        *victim_and_reclaimer("queue-b", "queue-a"),
        pod("p-reclaimer", "pg-reclaimer", rl("2", "2Gi")),
    ]


def anc_case10() -> list[Any]:
    return [
        small_node(),
        h_queue("root", ""),
        h_queue("grand", "root", rl("1", "1Gi"), rl("2", "2Gi")),
        h_queue("parent-deep", "grand", rl("1", "1Gi"), rl("2", "2Gi")),
        h_queue("queue-deep", "parent-deep"),
        h_queue("queue-shallow", "grand"),
        *victim_and_reclaimer("queue-deep", "queue-shallow"),
        pod("p-reclaimer", "pg-reclaimer", rl("2", "2Gi")),
    ]


def anc_case11() -> list[Any]:
    return [
        node("n1", "4", "4Gi", {"pods": "10", A100_LOWER: "2"}),
        h_queue("root", ""),
        h_queue("shallow-parent", "root", a100_only("1")),
        h_queue("queue-shallow", "shallow-parent", a100_only("1")),
        h_queue("deep-grand", "root", a100_only("2")),
        h_queue("deep-parent", "deep-grand", a100_only("1")),
        h_queue("queue-deep", "deep-parent", a100_only("1")),
        *victim_and_reclaimer("queue-deep", "queue-shallow", rl("1", "1Gi", {A100_LOWER: "2"})),
        pod("p-reclaimer", "pg-reclaimer", rl("1", "1Gi", {A100_LOWER: "1"})),
    ]


ANCESTOR_CASES = [
    pytest.param(
        Case(
            anc_case1,
            [Preemptive("case1_queue11", ["p2"], True), Reclaim("p2", ["p1"], ["p1"])],
            hierarchy=True,
            level=1,
            with_priority=True,
        ),
        id="case1: Can reclaim based on parent deserved when ancestorReclaimLevel is 1",
    ),
    pytest.param(
        Case(
            anc_case2,
            [
                Attr("project2_root", allocated=res("4", "4Gi", {A100_LOWER: "4", RDMA: "4", "pods": "4"})),
                Enqueueable("pg5", True),
                Preemptive("project1_preemptable", ["p5"], True),
                Reclaim("p5", ["p1", "p2", "p3", "p4"], ["p4"]),
            ],
            hierarchy=True,
            level=1,
            with_priority=True,
        ),
        id="case2: Cross-parent reclaim pipelines project1 job when project2 child and parent over deserved",
    ),
    pytest.param(
        Case(
            anc_case3,
            [
                Preemptive("project2_preemptable", ["p4"], False),
                Enqueueable("pg6", True),
                Preemptive("project2_non-preemptable", ["p6"], True),
                Reclaim("p6", ["p1", "p2", "p3", "p5"], ["p3", "p2", "p1"]),
            ],
            hierarchy=True,
            level=1,
            with_priority=True,
        ),
        id="case3: Cross-parent reclaim can evict sibling-queue victim first",
    ),
    pytest.param(
        Case(
            anc_case4,
            [Preemptive("case4_child2", ["p2"], True), Reclaim("p2", ["p1"], [])],
            hierarchy=True,
            level=1,
            with_priority=True,
        ),
        id="case4: Cross-parent reclaim is blocked when victim child is not over deserved",
    ),
    pytest.param(
        Case(
            anc_level_tree,
            [
                Preemptive("queue-a", ["p-reclaimer"], True),
                Reclaim("p-reclaimer", ["p-victim"], ["p-victim"]),
            ],
            hierarchy=True,
            level=0,
        ),
        id="case5: level 0 allows reclaim based on leaf-level deserved checks",
    ),
    pytest.param(
        Case(
            anc_level_tree,
            [
                Preemptive("queue-a", ["p-reclaimer"], True),
                Reclaim("p-reclaimer", ["p-victim"], ["p-victim"]),
            ],
            hierarchy=True,
            level=1,
        ),
        id="case6: level 1 allows reclaim when parent-level check passes",
    ),
    pytest.param(
        Case(
            anc_level_tree,
            [
                Attr("grand-b", allocated=res("2", "2Gi", {"pods": "1"}), deserved=res("3", "3Gi")),
                Preemptive("queue-a", ["p-reclaimer"], True),
                Reclaim("p-reclaimer", ["p-victim"], []),
            ],
            hierarchy=True,
            level=2,
        ),
        id="case7: level 2 blocks reclaim when grandparent-level check fails",
    ),
    pytest.param(
        Case(
            anc_case8,
            [Preemptive("queue-a", ["p-reclaimer"], True), Reclaim("p-reclaimer", ["p-victim"], [])],
            hierarchy=True,
            level=1,
        ),
        id="case8: level 1 blocks sibling reclaim when leaf deserved is unset and no ancestor gate applies",
    ),
    pytest.param(
        Case(
            anc_case9,
            [Preemptive("queue-a", ["p-reclaimer"], False), Reclaim("p-reclaimer", ["p-victim"], [])],
            hierarchy=True,
            level=2,
        ),
        id="case9: level 2 blocks reclaim when leaf deserved is unset and queues share grandparent",
    ),
    pytest.param(
        Case(
            anc_case10,
            [Preemptive("queue-shallow", ["p-reclaimer"], False), Reclaim("p-reclaimer", ["p-victim"], [])],
            hierarchy=True,
            level=2,
        ),
        id="case10: level 2 blocks reclaim in unbalanced shared-grandparent tree when leaf deserved is unset",
    ),
    pytest.param(
        Case(
            anc_case11,
            [Preemptive("queue-shallow", ["p-reclaimer"], True), Reclaim("p-reclaimer", ["p-victim"], [])],
            hierarchy=True,
            level=2,
        ),
        id="case11: unbalanced level2 blocks reclaim when depth-2 ancestor is not over deserved",
    ),
    pytest.param(
        Case(
            anc_case8,
            [
                Preemptive("queue-a", ["p-reclaimer"], False),
                Reclaim("p-reclaimer", ["p-victim"], ["p-victim"]),
            ],
            hierarchy=True,
            level=0,
        ),
        id="fumarole: case8 tree at level 0 - own deserved only, the immediate victim is taken",
    ),
]


@pytest.mark.parametrize("case", ANCESTOR_CASES)
def test_ancestor_reclaim(case: Case, fumarole_logs: list[str]) -> None:
    run_case(case, fumarole_logs)


# ---------------------------------------------------------------------------------------- guarantee
def guarantee_objects(q1_guarantee: dict[str, str] | None) -> list[Any]:
    return [
        node("n1", "4", "8Gi", {"pods": "10"}),
        queue("q1", rl("2"), guarantee=q1_guarantee),
        queue("q2", rl("2")),
        queue("q3", guarantee=rl("1")),
        pg("pg1", "q1", "Running"),
        pg("pg2", "q1", "Running"),
        pg("pg3", "q2", "Inqueue"),
        pod("p1", "pg1", rl("1"), "n1"),
        pod("p2", "pg2", rl("2"), "n1"),
        pod("p3", "pg3", rl("1")),
    ]


@pytest.mark.parametrize(
    ("q1_guarantee", "steps"),
    [
        pytest.param(
            rl("2"),
            [
                Attr(
                    "q1",
                    deserved=res("2"),
                    guarantee=res("2"),
                    real_capability=res("3", "8Gi", {"pods": "10"}),
                ),
                Attr("q2", real_capability=res("1", "8Gi", {"pods": "10"})),
                Reclaim("p3", ["p1", "p2"], ["p1"]),
            ],
            id="guarantee keeps p2 (3 - 2 < 2) although q1 is above deserved; p1 may go",
        ),
        pytest.param(
            None,
            [
                Attr(
                    "q1", deserved=res("2"), guarantee=res(), real_capability=res("3", "8Gi", {"pods": "10"})
                ),
                Attr("q2", real_capability=res("3", "8Gi", {"pods": "10"})),
                Reclaim("p3", ["p1", "p2"], ["p2"]),
            ],
            id="without guarantee p2 goes first and q1 is then at deserved",
        ),
    ],
)
def test_guarantee(q1_guarantee: dict[str, str] | None, steps: list[Step]) -> None:
    """Real capability = ExceededPart(total, Σ guarantees of every queue, even jobless q3) + own
    guarantee; a reclaimee is spared when its queue would fall below its guarantee."""
    ssn = open_session(guarantee_objects(q1_guarantee))
    plugin = plugin_of(ssn)
    for step in steps:
        step.run(ssn, plugin)


# ---------------------------------------------------------------------------------------- unified evictable
@pytest.mark.parametrize(
    ("kind", "candidates", "victims"),
    [
        pytest.param(
            EvictionKind.GANG_PREEMPT, ["p5", "p6"], ["p5", "p6"], id="gang preempt permits every candidate"
        ),
        pytest.param(
            EvictionKind.GANG_RECLAIM,
            ["p5", "p6"],
            ["p5"],
            id="gang reclaim takes candidates in the given order",
        ),
        pytest.param(EvictionKind.GANG_RECLAIM, ["p6", "p5"], ["p6"], id="gang reclaim, other order"),
        pytest.param(
            EvictionKind.TASK_RECLAIM, ["p5", "p6"], ["p5"], id="other kinds follow the reclaim rules"
        ),
    ],
)
def test_unified_evictable(kind: EvictionKind, candidates: list[str], victims: list[str]) -> None:
    ssn = open_session(flat_case2())
    ctx = EvictionContext(kind, job(ssn, "pg6"), task(ssn, "p7"))
    found, vote = plugin_of(ssn).unified_evictable(ctx, [task(ssn, name) for name in candidates])
    assert ([t.name for t in found], vote) == (victims, PERMIT)
    combined = ssn.unified_evictable(ctx, [task(ssn, name) for name in candidates])
    assert combined is not None and [t.name for t in combined] == victims


def test_unified_evictable_keeps_guarantee() -> None:
    ssn = open_session(guarantee_objects(rl("2")))
    ctx = EvictionContext(EvictionKind.GANG_RECLAIM, job(ssn, "pg3"))
    found, vote = plugin_of(ssn).unified_evictable(ctx, [task(ssn, "p2"), task(ssn, "p1")])
    assert ([t.name for t in found], vote) == (["p1"], PERMIT)


# ---------------------------------------------------------------------------------------- invalid hierarchies
def invalid_missing_parent() -> list[Any]:
    return [
        h_node(),
        h_queue("root", ""),
        h_queue("qa", "nope"),
        pg("pg1", "qa", "Inqueue"),
        pod("p1", "pg1", rl("1")),
    ]


def invalid_missing_root() -> list[Any]:
    return [h_node(), h_queue("qa", ""), pg("pg1", "qa", "Inqueue"), pod("p1", "pg1", rl("1"))]


def invalid_cycle_with_job() -> list[Any]:
    return [
        h_node(),
        h_queue("root", ""),
        h_queue("qa", "qb"),
        h_queue("qb", "qa"),
        pg("pg1", "qa", "Inqueue"),
        pod("p1", "pg1", rl("1")),
    ]


@pytest.mark.parametrize(
    ("objects", "queue_name", "message"),
    [
        pytest.param(
            invalid_missing_parent,
            "qa",
            "[capacity] failed to update Queue <qa> attributes, error: "
            "the queue qa has invalid parent queue nope",
            id="a parent that is not a queue",
        ),
        pytest.param(
            invalid_missing_root,
            "qa",
            "[capacity] failed to update Queue <qa> attributes, error: "
            "the queue qa has invalid parent queue root",
            id="no root queue",
        ),
        pytest.param(
            invalid_cycle_with_job,
            "qa",
            "[capacity] the Queue <qa> of Job <ns1/pg1> is not leaf queue",
            id="a cycle is not reported but its queues are not leaves",
        ),
        pytest.param(
            h_case1,
            "q1",
            "[capacity] the Queue <q1> of Job <ns1/pg2> is not leaf queue",
            id="a job in a queue with children",
        ),
    ],
)
def test_invalid_hierarchy_refuses_everything(
    objects: Callable[[], list[Any]], queue_name: str, message: str, fumarole_logs: list[str]
) -> None:
    """Upstream: ``buildHierarchicalQueueAttrs`` returns false and every function refuses; queue
    order and victim queue order are not registered."""
    ssn = open_session(objects(), hierarchy=True, level=1)
    plugin = plugin_of(ssn)
    assert plugin.ready_to_schedule is False
    assert message in fumarole_logs
    pending = next(iter(next(iter(ssn.jobs.values())).tasks.values()))
    queue_info = ssn.queues[queue_name]
    assert plugin.allocatable(queue_info, pending) is False
    assert plugin.preemptive(queue_info, [pending]) is False
    assert plugin.job_enqueueable(ssn.jobs[pending.job]) == REJECT
    assert plugin.reclaimable(pending, []) == ([], REJECT)
    ctx = EvictionContext(EvictionKind.GANG_RECLAIM, ssn.jobs[pending.job])
    assert plugin.unified_evictable(ctx, [pending]) == ([], REJECT)
    assert plugin.unified_evictable(
        EvictionContext(EvictionKind.GANG_PREEMPT, ssn.jobs[pending.job]), [pending]
    ) == (
        [pending],
        PERMIT,
    )
    plugin.pre_predicate(pending)
    assert plugin.simulate_allocatable(ssn.get_cycle_state(pending.uid), queue_info, pending) is False
    assert not ssn.has_fns("queue_order")
    assert not ssn.has_fns("victim_queue_order")


def test_queues_hanging_off_a_cycle_get_no_capacity() -> None:
    """A cycle without jobs does not fail the build; a leaf below it is never reached from root,
    keeps an empty real capability and can allocate nothing, while the rest of the tree works."""
    objects = [
        h_node(),
        h_queue("root", ""),
        h_queue("q1", "root"),
        h_queue("qa", "qb"),
        h_queue("qb", "qa"),
        h_queue("qc", "qa"),
        pg("pg1", "qc", "Inqueue"),
        pg("pg2", "q1", "Inqueue"),
        pg("pg3", "qc", "Pending", min_resources=rl("1")),
        pod("p1", "pg1", rl("1")),
        pod("p2", "pg2", rl("1")),
    ]
    ssn = open_session(objects, hierarchy=True)
    plugin = plugin_of(ssn)
    assert plugin.ready_to_schedule is True
    assert plugin.queue_opts["qa"].ancestors == ["qa", "qb"]
    assert plugin.queue_opts["qc"].ancestors == ["qa", "qb", "qa"]
    assert plugin.queue_opts["qc"].real_capability == Resource()
    assert plugin.allocatable(ssn.queues["qc"], task(ssn, "p1")) is False
    assert plugin.job_enqueueable(job(ssn, "pg1")) == PERMIT
    assert plugin.job_enqueueable(job(ssn, "pg3")) == REJECT
    assert plugin.allocatable(ssn.queues["q1"], task(ssn, "p2")) is True


def test_no_queues_at_all(fumarole_logs: list[str]) -> None:
    """Upstream Test_buildHierarchicalQueueAttrs_nilSafety: no root queue, no panic, nothing ready."""
    ssn = open_session([node("n1", "4", "4Gi", {"pods": "10"})], hierarchy=True)
    assert plugin_of(ssn).ready_to_schedule is False
    assert "[capacity] root queue 'root' not found in session queues, skipping hierarchy" in fumarole_logs
    assert not ssn.has_fns("queue_order")


def test_job_whose_queue_left_the_session(monkeypatch: pytest.MonkeyPatch, fumarole_logs: list[str]) -> None:
    """Upstream nilSafety "job references a deleted queue": fumarole's cache already leaves such a
    job out; a job whose queue vanishes from the snapshot anyway is skipped by the plugin."""
    objects = [
        node("n1", "4", "4Gi", {"pods": "10"}),
        h_queue("root", ""),
        h_queue("deleted-queue", "root"),
        pg("pg-orphan", "deleted-queue", "Inqueue"),
        pod("orphan", "pg-orphan", rl("1", "1Gi")),
    ]
    harness = harness_with(objects, capacity_option(True))
    snapshot = harness.cache.snapshot

    def without_queue() -> Any:
        found = snapshot()
        del found.queues["deleted-queue"]
        return found

    monkeypatch.setattr(harness.cache, "snapshot", without_queue)
    ssn = harness.open_session()
    plugin = plugin_of(ssn)
    orphan = task(ssn, "orphan")
    assert plugin.ready_to_schedule is True
    assert (
        "[capacity] Job <ns1/pg-orphan> references queue deleted-queue which is not found in session queues, "
        "skipping"
    ) in fumarole_logs
    assert plugin.reclaimable(orphan, []) == ([], REJECT)
    ssn.statement().allocate(orphan, ssn.nodes["n1"])
    assert plugin.queue_opts["root"].allocated == Resource()


# ---------------------------------------------------------------------------------------- flat fallbacks
def test_flat_mode_has_attributes_only_for_queues_with_jobs() -> None:
    """Deliberate difference: upstream dereferences nil for a jobless queue in flat mode."""
    objects = [*flat_case0(), queue("empty", rl("1"), priority=0)]
    ssn = open_session(objects)
    plugin = plugin_of(ssn)
    assert set(plugin.queue_opts) == {"q1"}
    assert plugin.queue_order(ssn.queues["q1"], ssn.queues["empty"]) == 0
    assert plugin.allocatable(ssn.queues["empty"], task(ssn, "p2")) is False
    assert plugin.preemptive(ssn.queues["empty"], [task(ssn, "p2")]) is False


# ---------------------------------------------------------------------------------------- queue order
def order_objects(hierarchical: bool, qb_priority: int = 0) -> list[Any]:
    """Shares: qa 0.5 (deserved 2, allocated 1), qb 1.0 (best effort), qc 0.0, qd 1.0 (deserved 1);
    hierarchical: qa, qb under p1 (share 0.5), qc, qd under p2 (share 0.25)."""
    parents = {"qa": "p1", "qb": "p1", "qc": "p2", "qd": "p2"} if hierarchical else {}
    objects: list[Any] = [node("n1", "8", "8Gi", {"pods": "10"})]
    if hierarchical:
        objects += [h_queue("root", ""), h_queue("p1", "root", rl("4")), h_queue("p2", "root", rl("4"))]
    objects += [
        queue("qa", rl("2"), parent=parents.get("qa", "")),
        queue("qb", parent=parents.get("qb", ""), priority=qb_priority),
        queue("qc", rl("2"), parent=parents.get("qc", "")),
        queue("qd", rl("1"), parent=parents.get("qd", "")),
        pg("pga", "qa", "Running"),
        pg("pgb", "qb", "Running"),
        pg("pgc", "qc", "Running"),
        pg("pgd", "qd", "Running"),
        pod("pa", "pga", rl("1"), "n1"),
        pod("pb", "pgb", rl("1"), "n1"),
        pod("pc", "pgc", rl("", "1Gi")),
        pod("pd", "pgd", rl("1"), "n1"),
    ]
    return objects


@pytest.mark.parametrize(
    ("hierarchical", "order", "shares"),
    [
        pytest.param(
            False,
            ["qc", "qa", "qd", "qb"],
            {"qa": 0.5, "qb": 1.0, "qc": 0.0, "qd": 1.0},
            id="flat: lower share first; equal shares put the queue with a deserved first",
        ),
        pytest.param(
            True,
            ["qc", "qd", "qa", "qb", "p2", "root", "p1"],
            {"qa": 0.5, "qb": 1.0, "qc": 0.0, "qd": 1.0, "p1": 0.5, "p2": 0.25, "root": 0.375},
            id="hierarchical: leaves first, leaves of different parents compared through the parents",
        ),
    ],
)
def test_queue_order(hierarchical: bool, order: list[str], shares: dict[str, float]) -> None:
    ssn = open_session(order_objects(hierarchical), hierarchy=hierarchical)
    plugin = plugin_of(ssn)
    assert {name: plugin.queue_opts[name].share for name in shares} == shares
    QueueOrder(order).run(ssn, plugin)


def test_hierarchical_order_of_two_parents_and_leaf_siblings() -> None:
    ssn = open_session(order_objects(True), hierarchy=True)
    plugin = plugin_of(ssn)
    queues = ssn.queues
    assert plugin.hierarchical_queue_order(queues["p1"], queues["p2"]) == 1
    assert plugin.hierarchical_queue_order(queues["qa"], queues["qc"]) == 1
    assert plugin.hierarchical_queue_order(queues["qa"], queues["qb"]) == -1
    assert plugin.hierarchical_queue_order(queues["qd"], queues["p1"]) == -1
    assert plugin.hierarchical_queue_order(queues["p1"], queues["qd"]) == 1


def test_queue_priority_goes_before_share() -> None:
    ssn = open_session(order_objects(False, qb_priority=3))
    plugin = plugin_of(ssn)
    QueueOrder(["qb", "qc", "qa", "qd"]).run(ssn, plugin)
    assert plugin.queue_order(ssn.queues["qa"], ssn.queues["qb"]) == 3
    assert plugin.queue_order(ssn.queues["qb"], ssn.queues["qa"]) == -3


# ---------------------------------------------------------------------------------------- simulation
def test_simulate_functions_work_on_the_pre_predicate_copy() -> None:
    ssn = open_session(flat_case1())
    plugin = plugin_of(ssn)
    p3, p4, q2 = task(ssn, "p3"), task(ssn, "p4"), ssn.queues["q2"]
    state = ssn.get_cycle_state(p4.uid)
    assert ssn.pre_predicate(p4) is None
    copy_state = state["capacity"]
    assert isinstance(copy_state, CapacityState)
    assert copy_state.queue_attrs["q2"] is not plugin.queue_opts["q2"]
    assert ssn.simulate_allocatable(state, q2, p4) is False
    assert ssn.simulate_remove_task(state, p4, p3, ssn.nodes["n1"]) is None
    assert copy_state.queue_attrs["q2"].allocated == res("0", "0", {"pods": "0"})
    assert copy_state.queue_attrs["q2"].share == 1.0
    assert ssn.simulate_allocatable(state, q2, p4) is True
    assert plugin.allocatable(q2, p4) is False
    assert plugin.queue_opts["q2"].allocated == res("1", "1Gi", {"pods": "1"})
    assert ssn.simulate_add_task(state, p4, p3, ssn.nodes["n1"]) is None
    assert ssn.simulate_allocatable(state, q2, p4) is False


def test_simulate_in_hierarchy_updates_ancestors_of_the_copy() -> None:
    ssn = open_session(h_case4(), hierarchy=True)
    plugin = plugin_of(ssn)
    p9, p10, q33 = task(ssn, "p9"), task(ssn, "p10"), ssn.queues["q33"]
    plugin.pre_predicate(p10)
    state = ssn.get_cycle_state(p10.uid)
    attrs = state["capacity"].queue_attrs
    assert plugin.simulate_allocatable(state, q33, p10) is False
    assert plugin.simulate_remove_task(state, p10, p9, ssn.nodes["n1"]) is None
    assert attrs["q32"].allocated == res("0", "0", {"pods": "0"})
    assert attrs["q3"].allocated == res("2", "2Gi", {"pods": "1"})
    assert attrs["root"].allocated == res("2", "2Gi", {"pods": "1"})
    assert plugin.simulate_allocatable(state, q33, p10) is False, "q3 would hold 5 of its 4 CPUs"
    assert plugin.simulate_remove_task(state, p10, task(ssn, "p6"), ssn.nodes["n1"]) is None
    assert attrs["q3"].allocated == res("0", "0", {"pods": "0"})
    assert plugin.simulate_allocatable(state, q33, p10) is True
    assert plugin.simulate_allocatable(state, ssn.queues["q3"], p10) is False
    assert plugin.queue_opts["q3"].allocated == res("4", "4Gi", {"pods": "2"})


def test_simulate_without_state() -> None:
    ssn = open_session(flat_case1())
    plugin = plugin_of(ssn)
    p3, p4 = task(ssn, "p3"), task(ssn, "p4")
    error = plugin.simulate_add_task({}, p4, p3, ssn.nodes["n1"])
    assert str(error) == "failed to get capacity state: error reading 'capacity' from cycle state"
    assert plugin.simulate_allocatable({}, ssn.queues["q2"], p4) is False


def test_capacity_state_copies_are_independent() -> None:
    ssn = open_session(h_case2(), hierarchy=True)
    plugin = plugin_of(ssn)
    plugin.pre_predicate(task(ssn, "p3"))
    original = ssn.get_cycle_state(task(ssn, "p3").uid)["capacity"]
    for twin in (original.clone(), copy.deepcopy(original)):
        twin.queue_attrs["q31"].allocated.add(res("1"))
        assert twin.queue_attrs["q3"].children["q31"] is twin.queue_attrs["q31"]
        assert original.queue_attrs["q31"].allocated == res()


# ---------------------------------------------------------------------------------------- registration
ALL_POINTS = {
    "queue_order",
    "victim_queue_order",
    "reclaimable",
    "unified_evictable",
    "preemptive",
    "allocatable",
    "job_enqueueable",
    "job_enqueued",
    "pre_predicate",
    "simulate_add_task",
    "simulate_remove_task",
    "simulate_allocatable",
}


@pytest.mark.parametrize(
    ("objects", "hierarchy", "points"),
    [
        pytest.param(flat_case0, False, ALL_POINTS - {"victim_queue_order"}, id="flat"),
        pytest.param(h_case0, True, ALL_POINTS, id="hierarchical"),
        pytest.param(
            h_case1, True, ALL_POINTS - {"queue_order", "victim_queue_order"}, id="invalid hierarchy"
        ),
    ],
)
def test_registered_points(objects: Callable[[], list[Any]], hierarchy: bool, points: set[str]) -> None:
    option = PluginOption.all_enabled("capacity", enabled_hierarchy=hierarchy)
    ssn = harness_with(objects(), option).open_session()
    assert {point for point in ALL_POINTS if ssn.has_fns(point)} == points
    assert ssn.allocate_event.plugins() == [["capacity"]]
    assert ssn.deallocate_event.plugins() == [["capacity"]]


def test_flags_gate_the_points() -> None:
    ssn = harness_with(flat_case1(), PluginOption(name="capacity")).open_session()
    assert {point for point in ALL_POINTS if ssn.has_fns(point)} == {"unified_evictable"}
    assert ssn.allocatable(ssn.queues["q2"], task(ssn, "p4")) is True


# ---------------------------------------------------------------------------------------- arguments
@pytest.mark.parametrize(
    ("arguments", "level"),
    [
        pytest.param({}, 0, id="default 0"),
        pytest.param({"ancestorReclaimLevel": 2}, 2, id="level 2"),
        pytest.param({"ancestorReclaimLevel": -3}, 0, id="negative falls back to 0"),
        pytest.param(
            {"capacity.DynamicResourceAllocationEnable": True, "capacity.DRAConsumableCapacityEnable": False},
            0,
            id="DRA flags accepted and ignored",
        ),
    ],
)
def test_arguments(arguments: dict[str, Any], level: int) -> None:
    CapacityArguments.model_validate(arguments)
    ssn = harness_with(h_case0(), capacity_option(True, arguments)).open_session()
    assert plugin_of(ssn).ancestor_reclaim_level == level


@pytest.mark.parametrize(
    ("arguments", "error"),
    [
        pytest.param({"ancestorReclaimLevel": "2"}, "ancestorReclaimLevel", id="level must be an integer"),
        pytest.param({"ancestorReclaimLevel": True}, "ancestorReclaimLevel", id="a boolean is not a level"),
        pytest.param(
            {"capacity.DynamicResourceAllocationEnable": "yes"},
            "capacity.DynamicResourceAllocationEnable",
            id="DRA flag must be a boolean",
        ),
        pytest.param({"ancestorReclaimLevels": 1}, "ancestorReclaimLevels", id="unknown key"),
    ],
)
def test_arguments_rejected(arguments: dict[str, Any], error: str) -> None:
    with pytest.raises(ValidationError, match=error.replace(".", r"\.")):
        CapacityArguments.model_validate(arguments)


def test_conf_loader_names_the_bad_argument() -> None:
    registry = Registry(entry_points=False)
    registry.register_plugin("capacity", CapacityPlugin)
    registry.register_action("noop", NoopAction)
    text = (
        "actions: noop\ntiers:\n- plugins:\n  - name: capacity\n    arguments: {ancestorReclaimLevel: one}\n"
    )
    with pytest.raises(
        ConfError, match=r"<c>:5: tiers\[0\]\.plugins\[0\]\.arguments\.ancestorReclaimLevel: "
    ):
        parse_conf(text, "<c>", registry)
    good = text.replace("one", "1")
    assert parse_conf(good, "<c>", registry).tiers[0].plugins[0].arguments == {"ancestorReclaimLevel": 1}
