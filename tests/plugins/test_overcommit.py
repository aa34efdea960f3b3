"""overcommit plugin: enqueue admission against an over-committed cluster (spec:
plugins/overcommit/overcommit.go, overcommit_test.go, plugins/util/util.go GetInqueueResource)."""

from __future__ import annotations

from typing import Any

import pytest
from fumarole.framework.api.resource import Resource
from fumarole.framework.conf import ConfError, PluginOption, SchedulerConf, Tier, parse_conf
from fumarole.framework.registry import Registry
from fumarole.framework.session import Session
from fumarole.plugins.overcommit import OvercommitPlugin
from fumarole.plugins.util import format_resource_names, inqueue_resource
from fumarole.testing import Harness, NoopAction, build_node, build_pod, build_pod_group, build_queue

GATED = {"schedulingGates": [{"name": "example.com/wait"}]}
QUEUE_GATED = {"schedulingGates": [{"name": "scheduling.volcano.sh/queue-allocation-gate"}]}


def open_session(
    objects: list[Any], arguments: dict[str, Any] | None = None, *, enqueued: bool = True
) -> Session:
    option = PluginOption(name="overcommit", enabled_job_enqueued=enqueued, arguments=arguments or {})
    return Harness(objects, [[option]]).open_session()


# -------------------- Go table
GO_NODES = [build_node("n1", {"cpu": "2", "memory": "4Gi"}), build_node("n2", {"cpu": "4", "memory": "16Gi"})]
HUGE = {"cpu": "20000m", "memory": "20G"}
NORMAL = {"cpu": "2000m", "memory": "2G"}
SMALL = {"cpu": "200m", "memory": "0.5G"}


@pytest.mark.parametrize(
    ("pod_group", "queue", "arguments", "expected"),
    [
        pytest.param(
            build_pod_group("test-namespace", "pg1", queue="c1", min_member=2, min_resources=NORMAL),
            build_queue("c1"),
            {"overcommit-factor": 1.2},
            True,
            id="overCommitFactor is more than 0",
        ),
        pytest.param(
            build_pod_group("test-namespace", "pg1", queue="c1", min_member=2, min_resources=NORMAL),
            build_queue("c1"),
            {"overcommit-factor": 0.8},
            True,
            id="overCommitFactor is less than 0",
        ),
        pytest.param(
            build_pod_group("test-namespace", "pg2", queue="c1", min_member=2, min_resources=HUGE),
            build_queue("c1"),
            {"overcommit-factor": 1.2},
            False,
            id="when the required resources of pg are too large",
        ),
        pytest.param(
            build_pod_group("test-namespace", "pg2", queue="c1", min_member=2),
            build_queue("c1", capability=SMALL),
            {"overcommit-factor": 1.2},
            True,
            id="when pg does not fill MinResources",
        ),
    ],
)
def test_go_overcommit_plugin(pod_group: Any, queue: Any, arguments: dict[str, Any], expected: bool) -> None:
    ssn = open_session([*GO_NODES, queue, pod_group], arguments)
    for job in ssn.jobs.values():
        ssn.job_enqueued(job)
        assert ssn.job_enqueueable(job) is expected


# -------------------- admission
NODE = build_node("n1", {"cpu": "4", "memory": "8Gi", "pods": "10"})


def target(min_resources: dict[str, str] | None) -> Any:
    return build_pod_group("ns", "target", phase="Pending", min_resources=min_resources)


def running_pod(name: str, requests: dict[str, str], group: str | None = None) -> Any:
    return build_pod("other", name, node="n1", phase="Running", group=group, requests=requests)


@pytest.mark.parametrize(
    ("objects", "factor", "target_min", "expected"),
    [
        pytest.param([], 1.0, {"cpu": "4"}, True, id="fits-the-whole-cluster"),
        pytest.param([], 1.0, {"cpu": "4100m"}, False, id="above-the-whole-cluster"),
        pytest.param(
            [running_pod("busy", {"cpu": "3"})], 1.0, {"cpu": "1"}, True, id="used-leaves-exactly-enough"
        ),
        pytest.param([running_pod("busy", {"cpu": "3"})], 1.0, {"cpu": "2"}, False, id="used-is-deducted"),
        pytest.param(
            [running_pod("busy", {"memory": "8Gi"})], 1.0, {"cpu": "1"}, True, id="only-requested-dimensions"
        ),
        pytest.param(
            [running_pod("busy", {"memory": "8Gi"})],
            1.0,
            {"cpu": "1", "memory": "1Gi"},
            False,
            id="requested-dimension-overused",
        ),
        pytest.param(
            [build_pod_group("other", "inq", min_resources={"cpu": "3"})],
            1.0,
            {"cpu": "2"},
            False,
            id="inqueue-jobs-reserve-their-minimum",
        ),
        pytest.param(
            [build_pod_group("other", "pend", phase="Pending", min_resources={"cpu": "3"})],
            1.0,
            {"cpu": "2"},
            True,
            id="pending-jobs-reserve-nothing",
        ),
        pytest.param(
            [
                build_pod_group("other", "run", phase="Running", min_resources={"cpu": "3"}),
                running_pod("r0", {"cpu": "1"}, group="run"),
            ],
            1.0,
            {"cpu": "2"},
            False,
            id="running-job-reserves-unallocated-minimum",
        ),
        pytest.param(
            [
                build_pod_group("other", "run", phase="Running", min_resources={"cpu": "3"}),
                running_pod("r0", {"cpu": "1"}, group="run"),
            ],
            1.0,
            {"cpu": "1"},
            True,
            id="running-job-reservation-exactly-fits",
        ),
        pytest.param(
            [
                build_pod_group("other", "run", phase="Running", min_member=2, min_resources={"cpu": "3"}),
                running_pod("r0", {"cpu": "1"}, group="run"),
            ],
            1.0,
            {"cpu": "2"},
            True,
            id="running-job-below-min-member-reserves-nothing",
        ),
        pytest.param(
            [
                build_pod_group("other", "inq", min_resources={"cpu": "3"}),
                build_pod("other", "gated", group="inq", requests={"cpu": "2"}, extra_spec=GATED),
            ],
            1.0,
            {"cpu": "3"},
            True,
            id="scheduling-gated-pods-deducted",
        ),
        pytest.param(
            [
                build_pod_group("other", "inq", min_resources={"cpu": "3"}),
                build_pod("other", "gated", group="inq", requests={"cpu": "2"}, extra_spec=QUEUE_GATED),
            ],
            1.0,
            {"cpu": "3"},
            False,
            id="queue-allocation-gate-alone-not-deducted",
        ),
        pytest.param(
            [build_pod_group("other", "inq", min_resources={"cpu": "3"})],
            2.0,
            {"cpu": "5"},
            True,
            id="factor-scales-total",
        ),
        pytest.param([], 0.5, {"cpu": "4500m"}, True, id="factor-below-one-falls-back-to-1.2"),
        pytest.param([], 1.2, {"cpu": "4900m"}, False, id="default-factor-bound"),
        pytest.param(
            [running_pod("busy", {"cpu": "4", "memory": "8Gi"})],
            1.0,
            None,
            True,
            id="no-min-resources-permitted",
        ),
        pytest.param([], 1.0, {"pods": "100"}, True, id="pods-never-compared"),
        pytest.param([], 1.0, {"nvidia.com/gpu": "1"}, False, id="scalar-missing-from-cluster"),
    ],
)
def test_job_enqueueable(objects: list[Any], factor: float, target_min: Any, expected: bool) -> None:
    ssn = open_session(
        [NODE, build_queue("default"), *objects, target(target_min)], {"overcommit-factor": factor}
    )
    assert ssn.job_enqueueable(ssn.jobs["ns/target"]) is expected


def test_default_factor_without_argument() -> None:
    objects = [NODE, build_queue("default"), target({"cpu": "4800m"})]
    ssn = open_session(objects)
    assert ssn.job_enqueueable(ssn.jobs["ns/target"]) is True
    assert isinstance(ssn.plugins["overcommit"], OvercommitPlugin)
    assert ssn.plugins["overcommit"].overcommit_factor == 1.2


def test_factor_below_one_warns(fumarole_logs: list[str]) -> None:
    ssn = open_session([NODE, build_queue("default")], {"overcommit-factor": 0.5})
    plugin = ssn.plugins["overcommit"]
    assert isinstance(plugin, OvercommitPlugin)
    assert plugin.overcommit_factor == 1.2
    assert (
        "invalid input 0.5 for overcommit-factor: it cannot be less than 1, using the default 1.2"
        in fumarole_logs
    )


def test_rejection_names_overused_resources(fumarole_logs: list[str]) -> None:
    objects = [
        NODE,
        build_queue("default"),
        running_pod("busy", {"cpu": "4", "memory": "8Gi"}),
        target({"cpu": "1", "memory": "1Gi", "nvidia.com/gpu": "1"}),
    ]
    ssn = open_session(objects, {"overcommit-factor": 1.0})
    assert ssn.job_enqueueable(ssn.jobs["ns/target"]) is False
    assert fumarole_logs[-1] == (
        "reject job <ns/target> to be inqueue: resource in cluster is overused: "
        "overused cpu, overused memory, overused nvidia.com/gpu"
    )


@pytest.mark.parametrize(
    ("names", "expected"),
    [
        pytest.param([], "resource in cluster is overused", id="no-names"),
        pytest.param(["cpu"], "resource in cluster is overused: overused cpu", id="one"),
        pytest.param(
            ["cpu", "memory"], "resource in cluster is overused: overused cpu, overused memory", id="two"
        ),
    ],
)
def test_format_resource_names(names: list[str], expected: str) -> None:
    assert format_resource_names("resource in cluster is overused", "overused", names) == expected


# -------------------- enqueued
def test_job_enqueued_adds_minimum() -> None:
    objects = [
        NODE,
        build_queue("default"),
        build_pod_group("ns", "first", phase="Pending", min_resources={"cpu": "3"}),
        build_pod_group("ns", "second", phase="Pending", min_resources={"cpu": "3"}),
        build_pod_group("ns", "besteffort", phase="Pending"),
    ]
    ssn = open_session(objects, {"overcommit-factor": 1.0})
    first, second = ssn.jobs["ns/first"], ssn.jobs["ns/second"]
    assert ssn.job_enqueueable(first) is True
    assert ssn.job_enqueueable(second) is True
    ssn.job_enqueued(ssn.jobs["ns/besteffort"])
    assert ssn.job_enqueueable(second) is True
    ssn.job_enqueued(first)
    assert ssn.job_enqueueable(second) is False


def test_job_enqueued_deducts_gated_pods() -> None:
    objects = [
        NODE,
        build_queue("default"),
        build_pod_group("ns", "first", phase="Pending", min_resources={"cpu": "3"}),
        build_pod("ns", "gated", group="first", requests={"cpu": "2"}, extra_spec=GATED),
        build_pod_group("ns", "second", phase="Pending", min_resources={"cpu": "3"}),
    ]
    ssn = open_session(objects, {"overcommit-factor": 1.0})
    ssn.job_enqueued(ssn.jobs["ns/first"])
    assert ssn.job_enqueueable(ssn.jobs["ns/second"]) is True


def test_flag_off_not_consulted() -> None:
    objects = [NODE, build_queue("default"), target({"cpu": "100"})]
    ssn = open_session(objects, enqueued=False)
    assert ssn.job_enqueueable(ssn.jobs["ns/target"]) is True
    assert not ssn.has_fns("job_enqueued")


# -------------------- GetInqueueResource
@pytest.mark.parametrize(
    ("min_resources", "pods", "expected"),
    [
        pytest.param(
            {"cpu": "3", "memory": "4Gi"},
            [{"cpu": "1", "memory": "1Gi"}],
            Resource(2000, 3 * 2**30),
            id="cpu-and-memory-remainder",
        ),
        pytest.param({"cpu": "1"}, [{"cpu": "2"}], Resource(), id="over-allocated-reserves-nothing"),
        pytest.param({"pods": "3"}, [{"cpu": "1"}], Resource(scalars={"pods": 2}), id="pods-in-whole-units"),
        pytest.param(
            {"nvidia.com/gpu": "2"},
            [{"cpu": "1"}],
            Resource(scalars={"nvidia.com/gpu": 2000}),
            id="scalar-unallocated",
        ),
        pytest.param(
            {"nvidia.com/gpu": "2"},
            [{"nvidia.com/gpu": "1"}],
            Resource(scalars={"nvidia.com/gpu": 1000}),
            id="scalar-partly-allocated",
        ),
        pytest.param(
            {"nvidia.com/gpu": "1"},
            [{"nvidia.com/gpu": "2"}],
            Resource(),
            id="scalar-over-allocated-reserves-nothing",
        ),
        pytest.param(
            {"count/pods": "3", "ephemeral-storage": "1Gi"},
            [{"cpu": "1"}],
            Resource(),
            id="quota-and-non-scalar-names-skipped",
        ),
    ],
)
def test_inqueue_resource(
    min_resources: dict[str, str], pods: list[dict[str, str]], expected: Resource
) -> None:
    objects: list[Any] = [
        build_node("n1", {"cpu": "8", "memory": "16Gi", "pods": "10", "nvidia.com/gpu": "4"}),
        build_queue("default"),
        build_pod_group("ns", "run", phase="Running", min_resources=min_resources),
    ]
    objects += [
        build_pod("ns", f"r{i}", node="n1", phase="Running", group="run", requests=requests)
        for i, requests in enumerate(pods)
    ]
    job = open_session(objects).jobs["ns/run"]
    assert inqueue_resource(job, job.allocated) == expected


# -------------------- arguments
WHERE = "test.conf:5: tiers[0].plugins[0].arguments.overcommit-factor"


@pytest.mark.parametrize(
    ("arguments", "error"),
    [
        pytest.param("{overcommit-factor: 1.5}", None, id="float"),
        pytest.param("{overcommit-factor: 2}", None, id="integer"),
        pytest.param("{}", None, id="absent"),
        pytest.param(
            "{overcommit-factor: '1.5'}",
            f"{WHERE}: Input should be a valid number (got '1.5')",
            id="string-rejected",
        ),
        pytest.param(
            "{overcommit-factor: true}",
            f"{WHERE}: Input should be a valid number (got True)",
            id="boolean-rejected",
        ),
        pytest.param(
            "{overcommit-ratio: 1.5}",
            "test.conf:5: tiers[0].plugins[0].arguments.overcommit-ratio: unknown key",
            id="unknown-key-rejected",
        ),
        pytest.param(
            "{overcommit_factor: 1.5}",
            "test.conf:5: tiers[0].plugins[0].arguments.overcommit_factor: unknown key",
            id="python-spelling-rejected",
        ),
    ],
)
def test_arguments_model(arguments: str, error: str | None) -> None:
    text = f"actions: noop\ntiers:\n- plugins:\n  - name: overcommit\n    arguments: {arguments}\n"
    registry = Registry()
    registry.register_action("noop", NoopAction)
    if error is None:
        parse_conf(text, "test.conf", registry)
        return
    with pytest.raises(ConfError) as raised:
        parse_conf(text, "test.conf", registry)
    assert str(raised.value) == error


def test_enqueue_action_admits_until_overcommitted() -> None:
    """With the enqueue action: jobs are admitted in creation order while
    ``inqueue + min <= total * factor``; a job without minResources is always admitted."""
    objects = [
        NODE,
        build_queue("default"),
        *(
            build_pod_group("ns", f"pg{i}", phase="Pending", min_resources={"cpu": "2"}, creation=float(i))
            for i in range(3)
        ),
        build_pod_group("ns", "besteffort", phase="Pending", creation=9.0),
    ]
    option = PluginOption(name="overcommit", enabled_job_enqueued=True, arguments={"overcommit-factor": 1.0})
    h = Harness(objects, SchedulerConf(actions="enqueue", tiers=[Tier(plugins=[option])]))
    (decisions,) = h.run(1)
    h.cache.apply(decisions)
    phases = {name: pg.status.phase for name, pg in h.cache.pod_groups.items()}
    assert phases == {
        "ns/pg0": "Inqueue",
        "ns/pg1": "Inqueue",
        "ns/pg2": "Pending",
        "ns/besteffort": "Inqueue",
    }
