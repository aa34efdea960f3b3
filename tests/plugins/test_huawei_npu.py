"""The ``huawei-npu`` plugin: registration and alias, arguments, policy dispatch, the predicate's
codes and reasons, the scoring pipeline, job functions, task order and the chip annotations
written at allocation (objects after shared/reference/ascend-npu-plugin.md §8)."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest
from fumarole.framework.api.fit_errors import Code, FitError
from fumarole.framework.api.task_info import TaskInfo
from fumarole.framework.api.types import ABSTAIN, REJECT
from fumarole.framework.cache.objects import KubeObject
from fumarole.framework.conf import ConfError, PluginOption, parse_conf
from fumarole.framework.registry import Registry, RegistryError
from fumarole.framework.session import Session
from fumarole.plugins.huawei_npu import HuaweiNpuPlugin
from fumarole.plugins.huawei_npu.arguments import (
    HuaweiNpuArguments,
    NpuConfig,
    parse_duration,
    resolve_config,
)
from fumarole.plugins.huawei_npu.dispatch import handler_name
from fumarole.plugins.huawei_npu.npu_session import NpuSession
from fumarole.plugins.huawei_npu.policy_index import index_policies
from fumarole.policies.chips import ASCEND_310P, ASCEND_910
from fumarole.testing import build_node, build_pod, build_pod_group
from pydantic import ValidationError
from test_huawei_npu_objects import (
    NS,
    cluster_device_cm,
    handler_of,
    harness,
    npu_conf,
    npu_node,
    npu_pod,
    npu_pod_group,
    plugin_device_cm,
)

HOUR = 3600.0


def tasks_by_name(ssn: Session) -> dict[str, TaskInfo]:
    return {task.name: task for job in ssn.jobs.values() for task in job.tasks.values()}


def npu_session(ssn: Session) -> NpuSession:
    session = handler_of(ssn).current
    assert session is not None
    return session


def fit(ssn: Session, task: TaskInfo, node: str) -> tuple[Code, str] | None:
    error = ssn.predicate(task, ssn.nodes[node])
    if error is None:
        return None
    assert isinstance(error, FitError)
    assert len(error.statuses) == 1
    return error.statuses[0].code, error.statuses[0].reason


def scores(ssn: Session, task: TaskInfo, nodes: list[str] | None = None) -> dict[str, float]:
    table = ssn.node_table
    rows = np.asarray([table.index[n] for n in (nodes or table.names)], dtype=np.int64)
    values = ssn.batch_node_order(task, rows)
    return {table.names[row]: float(value) for row, value in zip(rows.tolist(), values.tolist(), strict=True)}


def job_objects(
    name: str = "job-a", tasks: int = 2, chips: int = 8, owner: str | None = "owner-a", **pod: Any
) -> list[KubeObject]:
    objects: list[KubeObject] = [npu_pod_group(name, tasks * chips, min_member=tasks, owner_uid=owner)]
    objects += [npu_pod(f"{name}-worker-{rank}", name, chips, rank=rank, **pod) for rank in range(tasks)]
    return objects


def event_handlers(ssn: Session) -> int:
    """How many plugins added an event handler (allocate and deallocate callbacks in pairs)."""
    allocate = [fn for tier in ssn.enabled_fns("allocate_event") for fn in tier]
    deallocate = [fn for tier in ssn.enabled_fns("deallocate_event") for fn in tier]
    assert len(allocate) == len(deallocate)
    return len(allocate)


def busy_pod(node: str, chips: list[int], name: str | None = None, phase: str = "Running") -> KubeObject:
    """A pod of another scheduler holding ``chips`` of ``node`` (no PodGroup)."""
    return npu_pod(
        name or f"busy-{node}",
        "",
        len(chips),
        node=node,
        phase=phase,
        used=chips,
        scheduler_name="default-scheduler",
    )


# ---------------------------------------------------------------------------------------- registration
def test_upstream_name_is_an_alias() -> None:
    registry = Registry()
    assert registry.plugin_builder("huawei-npu") is HuaweiNpuPlugin
    assert registry.plugin_builder("volcano-npu_v6.0.RC1_linux-x86_64") is HuaweiNpuPlugin
    assert registry.has_plugin("volcano-npu_v6.0.0")


def test_functions_registered_under_the_conf_name_of_the_alias() -> None:
    conf = parse_conf(
        "actions: noop\n"
        "tiers:\n- plugins:\n  - name: volcano-npu_v6.0.0\n    enablePreemptable: true\n"
        "configurations:\n- name: init-params\n  arguments: {prefer-previous-node: 'true'}\n",
        "<test>",
        None,
    )
    objects = [npu_node("n1"), *job_objects(tasks=1)]
    ssn = harness(objects, conf, plugins={}).open_session()
    assert ssn.enabled_fns("batch_predicate") == [[npu_session(ssn).batch_predicate]]
    assert list(ssn.plugins) == ["volcano-npu_v6.0.0"]
    assert isinstance(ssn.plugins["volcano-npu_v6.0.0"], HuaweiNpuPlugin)
    assert ssn.predicate.plugins() == [["volcano-npu_v6.0.0"]]
    task = tasks_by_name(ssn)["job-a-worker-0"]
    assert scores(ssn, task) == {"n1": (8 * 100 - 8) * 100.0}


@pytest.mark.parametrize(
    ("flags", "points"),
    [
        pytest.param(
            {},
            ["batch_node_order", "batch_predicate", "job_pipelined", "job_ready", "job_valid", "task_order"],
            id="all-on",
        ),
        pytest.param(
            {"enabled_predicate": False, "enabled_node_order": False, "enabled_task_order": False},
            ["job_pipelined", "job_ready", "job_valid"],
            id="flags-off",
        ),
    ],
)
def test_extension_points_follow_the_enable_flags(flags: dict[str, bool], points: list[str]) -> None:
    conf = npu_conf()
    conf.tiers[0].plugins[0] = PluginOption.all_enabled("huawei-npu", **flags)
    ssn = harness([npu_node("n1"), *job_objects(tasks=1)], conf).open_session()
    candidates = [
        "batch_node_order",
        "batch_predicate",
        "job_pipelined",
        "job_ready",
        "job_valid",
        "task_order",
    ]
    assert [point for point in candidates if ssn.has_fns(point)] == points
    assert event_handlers(ssn) == 1


def test_a_second_instance_in_the_same_session_does_nothing() -> None:
    conf = npu_conf(extra=[PluginOption.all_enabled("volcano-npu_v6.0.0")])
    ssn = harness([npu_node("n1"), *job_objects(tasks=1)], conf).open_session()
    assert event_handlers(ssn) == 1


# ---------------------------------------------------------------------------------------- arguments
@pytest.mark.parametrize(
    ("init_params", "own", "expected"),
    [
        pytest.param({}, {}, NpuConfig(), id="defaults"),
        pytest.param(
            {"prefer-previous-node": "true", "affinity-cache-ttl": "72h", "grace-over-time": "600"},
            {},
            NpuConfig(prefer_previous_node=True, affinity_cache_ttl=72 * HOUR, grace_over_time=600),
            id="init-params",
        ),
        pytest.param(
            {"prefer-previous-node": "True"}, {}, NpuConfig(), id="init-params-true-only-as-text-true"
        ),
        pytest.param(
            {"prefer-previous-node": True}, {}, NpuConfig(prefer_previous_node=True), id="yaml-bool"
        ),
        pytest.param(
            {"prefer-previous-node": "true", "prefer-previous-node-bonus": "50"},
            {"prefer-previous-node": False, "score-weight": 10},
            NpuConfig(prefer_previous_node=False, prefer_previous_node_bonus=50.0, score_weight=10.0),
            id="plugin-arguments-win",
        ),
        pytest.param(
            {"grace-over-time": "1", "affinity-cache-ttl": "soon", "score-weight": "x"},
            {},
            NpuConfig(),
            id="invalid-init-params-keep-defaults",
        ),
        pytest.param(
            {
                "useClusterInfoManager": "false",
                "self-maintain-available-card": "false",
                "super-pod-size": "48",
            },
            {},
            NpuConfig(use_cluster_info_manager=False, self_maintain_available_card=False, super_pod_size=48),
            id="static-parameters",
        ),
    ],
)
def test_resolve_config(init_params: dict[str, Any], own: dict[str, Any], expected: NpuConfig) -> None:
    assert resolve_config(init_params, HuaweiNpuArguments.model_validate(own)) == expected


@pytest.mark.parametrize(
    "arguments",
    [
        pytest.param({"prefer-previous-node": "yes"}, id="not-a-bool"),
        pytest.param({"affinity-cache-ttl": "-1"}, id="negative-ttl"),
        pytest.param({"unknown-key": 1}, id="unknown-key"),
        pytest.param({"grace-over-time": 1}, id="grace-over-time-out-of-range"),
    ],
)
def test_invalid_plugin_arguments_are_rejected(arguments: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        HuaweiNpuArguments.model_validate(arguments)


def test_conf_loader_checks_the_plugin_arguments() -> None:
    from fumarole.framework.conf import ConfError

    text = "actions: allocate\ntiers:\n- plugins:\n  - name: huawei-npu\n    arguments: {score-weight: abc}\n"
    with pytest.raises(ConfError, match="score-weight"):
        parse_conf(text, "npu.yaml", Registry())


@pytest.mark.parametrize(
    ("raw", "seconds"),
    [
        pytest.param("24h", 86400.0, id="hours"),
        pytest.param("1h30m", 5400.0, id="compound"),
        pytest.param("90s", 90.0, id="seconds-unit"),
        pytest.param("3600", 3600.0, id="number-text"),
        pytest.param(120, 120.0, id="number"),
    ],
)
def test_parse_duration(raw: object, seconds: float) -> None:
    assert parse_duration(raw) == seconds


def test_plugin_arguments_override_init_params_in_a_session() -> None:
    conf = npu_conf(prefer=True, arguments={"prefer-previous-node": "false", "score-weight": 2})
    ssn = harness([npu_node("n1"), *job_objects(tasks=1)], conf).open_session()
    assert npu_session(ssn).config == NpuConfig(prefer_previous_node=False, score_weight=2.0)
    assert scores(ssn, tasks_by_name(ssn)["job-a-worker-0"]) == {"n1": 792.0 * 2}


# ---------------------------------------------------------------------------------------- dispatch
@pytest.mark.parametrize(
    ("resource", "annotations", "selector", "labels", "handler", "policy"),
    [
        pytest.param(
            ASCEND_910, {}, {}, {}, "huawei.com/Ascend910module", "ascend910-module-x8", id="no-selector"
        ),
        pytest.param(
            ASCEND_910,
            {},
            {"accelerator-type": "module-910b-8"},
            {},
            "huawei.com/Ascend910module-910b-8",
            "ascend910b-module-x8",
            id="910b-x8-selector",
        ),
        pytest.param(
            ASCEND_910,
            {},
            {"accelerator-type": "module-910b-16"},
            {},
            "huawei.com/Ascend910module-910b-16",
            "ascend910b-module-x16",
            id="910b-x16-selector",
        ),
        pytest.param(
            ASCEND_910,
            {"huawei.com/schedule_policy": "chip8-node8"},
            {"accelerator-type": "module-910b-16"},
            {},
            "huawei.com/Ascend910module-910b-8",
            "ascend910b-module-x8",
            id="schedule-policy-first",
        ),
        pytest.param(
            ASCEND_910,
            {"huawei.com/schedule_policy": "chip8-node16"},
            {},
            {},
            "huawei.com/Ascend910module-910b-16",
            "ascend910b-module-x16",
            id="chip8-node16",
        ),
        pytest.param(
            ASCEND_910,
            {"huawei.com/schedule_policy": "nonsense"},
            {"accelerator-type": "module"},
            {},
            "huawei.com/Ascend910module",
            "ascend910-module-x8",
            id="unknown-policy-ignored",
        ),
        pytest.param(
            ASCEND_910,
            {"sp-block": "32"},
            {"accelerator-type": "module-a3-8-super-pod"},
            {},
            "huawei.com/Ascend910module-a3-8-super-pod",
            "ascend910a3-superpod-x8",
            id="sp-block-a3-x8",
        ),
        pytest.param(
            ASCEND_910,
            {"sp-block": "32"},
            {},
            {},
            "huawei.com/Ascend910module-a3-16-super-pod",
            "ascend910a3-superpod-x16",
            id="sp-block-a3-x16",
        ),
        pytest.param(
            "huawei.com/npu",
            {"huawei.com/schedule_policy": "chip8-node8-sp", "sp-block": "16"},
            {},
            {},
            "8p-8-sp",
            "chip8-node8-sp",
            id="chip8-node8-sp",
        ),
        pytest.param(
            ASCEND_910, {}, {"accelerator-type": "card"}, {}, "huawei.com/Ascend910card", "", id="card"
        ),
        pytest.param("huawei.com/npu", {}, {}, {}, "", "", id="npu-without-policy"),
        pytest.param(
            "huawei.com/npu", {"huawei.com/schedule_policy": "chip4-node8"}, {}, {}, "4p-8", "", id="npu-4p-8"
        ),
        pytest.param(ASCEND_310P, {}, {}, {}, "huawei.com/Ascend310P", "ascend310p", id="310p"),
        pytest.param(ASCEND_310P, {}, {}, {"duo": "true"}, "huawei.com/Ascend310Pduochip", "", id="310p-duo"),
        pytest.param("huawei.com/Ascend310", {}, {}, {}, "huawei.com/Ascend310chip", "", id="310"),
        pytest.param("huawei.com/npu-core", {}, {}, {}, "vnpu:huawei.com/npu-core", "", id="dynamic-vnpu"),
    ],
)
def test_dispatch(
    resource: str,
    annotations: dict[str, str],
    selector: dict[str, str],
    labels: dict[str, str],
    handler: str,
    policy: str,
) -> None:
    assert handler_name(resource, annotations, selector, labels) == handler
    found = index_policies(Registry()).get(handler)
    assert (found.name if found is not None else "") == policy


def test_a_third_party_policy_is_found_through_the_handler_it_declares() -> None:
    from fumarole.policies.card import Module910bx8Policy

    class A3Policy(Module910bx8Policy):
        name = "ascend910-a3-x16"
        handler_name = "huawei.com/Ascend910module-a3-16"

    registry = Registry()
    registry.register_policy("ascend910-a3-x16", A3Policy)
    assert isinstance(index_policies(registry)["huawei.com/Ascend910module-a3-16"], A3Policy)


class _NotAPolicy:
    name = "broken"
    handler_name = "huawei.com/Ascend910module-x"


class _Impostor(_NotAPolicy):
    resource = "huawei.com/Ascend910"
    network_fault_attention = False
    chip_prefix = "Ascend910"

    def validate_requests(self, requests: Any) -> str:
        return ""

    def fits(self, *args: Any) -> Any:
        return None

    def scores(self, *args: Any) -> Any:
        return None

    def select(self, *args: Any) -> Any:
        return None


@pytest.mark.parametrize(
    ("name", "policy", "message"),
    [
        pytest.param(
            "broken",
            _NotAPolicy,
            "fumarole.policies: 'broken' is not a card policy (missing resource, network_fault_attention, "
            "chip_prefix, validate_requests, fits, scores, select)",
            id="breaks-the-contract",
        ),
        pytest.param(
            "other-name",
            _Impostor,
            "fumarole.policies: 'other-name' reports the name 'broken': a policy's name must be its "
            "entry-point name",
            id="name-differs",
        ),
        pytest.param(
            "broken",
            type("Twin", (_Impostor,), {"handler_name": "huawei.com/Ascend910module-910b-8"}),
            "fumarole.policies: 'broken' and 'ascend910b-module-x8' both declare the handler "
            "'huawei.com/Ascend910module-910b-8'",
            id="handler-declared-twice",
        ),
    ],
)
def test_policies_are_checked_when_indexed(name: str, policy: Any, message: str) -> None:
    registry = Registry()
    registry.register_policy(name, policy)
    with pytest.raises(RegistryError) as info:
        index_policies(registry)
    assert str(info.value) == message


# ---------------------------------------------------------------------------------------- predicate
UNRESOLVABLE = Code.UNSCHEDULABLE_AND_UNRESOLVABLE
SHORTAGE = "NPUResourceShortage: not enough free huawei.com/Ascend910 chips for 8 in the topology of policy "
TOO_BIG = "NPUResourceShortage: the task requests 8 huawei.com/Ascend910 chips, more than the node has"


@pytest.mark.parametrize(
    ("node", "extra", "tasks", "expected"),
    [
        pytest.param(npu_node("n1"), [], 2, None, id="free-node"),
        pytest.param(
            npu_node("n1"),
            [busy_pod("n1", [0])],
            2,
            (Code.UNSCHEDULABLE, SHORTAGE + "ascend910b-module-x8"),
            id="one-chip-held-resolvable",
        ),
        pytest.param(
            npu_node("n1", 4),
            [],
            2,
            (UNRESOLVABLE, TOO_BIG),
            id="request-above-node-total-unresolvable",
        ),
        pytest.param(
            npu_node("n1", unhealthy=[3]),
            [],
            2,
            (Code.UNSCHEDULABLE, SHORTAGE + "ascend910b-module-x8"),
            id="unhealthy-chip-removed",
        ),
        pytest.param(
            npu_node("n1", recovering=[3]),
            [],
            2,
            (Code.UNSCHEDULABLE, SHORTAGE + "ascend910b-module-x8"),
            id="recovering-chip-removed",
        ),
        pytest.param(
            npu_node("n1", network_unhealthy=[3]),
            [],
            2,
            (UNRESOLVABLE, TOO_BIG),
            id="network-unhealthy-chip-distributed-unresolvable",
        ),
        pytest.param(
            npu_node("n1", network_unhealthy=[3]), [], 1, None, id="network-unhealthy-chip-single-task"
        ),
        pytest.param(
            npu_node("n1", network_unhealthy=None),
            [],
            2,
            (
                UNRESOLVABLE,
                "node has no huawei.com/Ascend910-NetworkUnhealthy annotation "
                "(required for distributed jobs)",
            ),
            id="network-key-missing-distributed",
        ),
        pytest.param(
            npu_node("n1", network_unhealthy=None), [], 1, None, id="network-key-missing-single-task"
        ),
        pytest.param(
            npu_node("n1", base=False),
            [],
            2,
            (UNRESOLVABLE, "node has no baseDeviceInfos annotation: its chips are unknown"),
            id="no-base-device-infos",
        ),
        pytest.param(
            npu_node("n1", accelerator=""),
            [],
            2,
            (UNRESOLVABLE, "node has no accelerator label (e.g. accelerator: huawei-Ascend910)"),
            id="no-accelerator",
        ),
        pytest.param(
            npu_node("n1", annotations={"NodeHealthyStatus": "UnHealthy"}),
            [],
            2,
            (UNRESOLVABLE, "node is unhealthy"),
            id="noded-unhealthy",
        ),
        pytest.param(
            npu_node("n1", annotations={"NodeHealthyStatus": "PreSeparate"}),
            [],
            2,
            (UNRESOLVABLE, "node health status is PreSeparate"),
            id="pre-separate",
        ),
        pytest.param(
            npu_node("n1", annotations={"NodeStatus": "SubHealthy"}), [], 2, None, id="sub-healthy-is-usable"
        ),
        pytest.param(
            npu_node("n1", 4, resource=ASCEND_310P),
            [],
            2,
            (UNRESOLVABLE, "node has no huawei.com/Ascend910 chips"),
            id="other-chip-kind",
        ),
        pytest.param(
            build_node("cpu", {"cpu": "64", "memory": "256Gi", "pods": "110"}),
            [],
            2,
            (UNRESOLVABLE, "node has no huawei.com/Ascend910 chips"),
            id="cpu-node",
        ),
    ],
)
def test_predicate(
    node: KubeObject, extra: list[KubeObject], tasks: int, expected: tuple[Code, str] | None
) -> None:
    ssn = harness([node, *extra, *job_objects(tasks=tasks)]).open_session()
    assert fit(ssn, tasks_by_name(ssn)["job-a-worker-0"], node.metadata.name) == expected


@pytest.mark.parametrize(
    ("annotations", "labels", "expected"),
    [
        pytest.param(
            {"NodeHealthyStatus": "UnHealthy"}, {}, (UNRESOLVABLE, "node is unhealthy"), id="unhealthy"
        ),
        pytest.param(
            {},
            {"accelerator": ""},
            (UNRESOLVABLE, "node has no accelerator label (e.g. accelerator: huawei-Ascend910)"),
            id="no-accelerator",
        ),
        pytest.param({"NodeStatus": "SubHealthy"}, {}, None, id="sub-healthy"),
    ],
)
def test_fault_checks_apply_to_cpu_tasks_on_npu_nodes(
    annotations: dict[str, str], labels: dict[str, str], expected: tuple[Code, str] | None
) -> None:
    node = npu_node("n1", annotations=annotations, labels=labels)
    objects = [
        node,
        build_pod_group(NS, "cpu-job"),
        build_pod(NS, "cpu-job-0", group="cpu-job", requests={"cpu": "1"}),
    ]
    ssn = harness(objects).open_session()
    assert fit(ssn, tasks_by_name(ssn)["cpu-job-0"], "n1") == expected


@pytest.mark.parametrize(
    ("strategy", "expected"),
    [
        pytest.param("ignore", None, id="ignore"),
        pytest.param("nonsense", None, id="unknown-strategy-is-ignore"),
        pytest.param(
            "graceExit",
            (UNRESOLVABLE, "node is sub-healthy and the job's subHealthyStrategy is graceExit"),
            id="grace-exit",
        ),
    ],
)
def test_sub_healthy_node_and_the_jobs_strategy(strategy: str, expected: tuple[Code, str] | None) -> None:
    faults = [{"npu_name": "Ascend910-1", "fault_handling": "SubHealthFault"}]
    objects = [npu_node("n1", faults=faults), *job_objects(tasks=2, labels={"subHealthyStrategy": strategy})]
    ssn = harness(objects).open_session()
    assert fit(ssn, tasks_by_name(ssn)["job-a-worker-0"], "n1") == expected


def test_free_chips_recomputed_from_pods_not_from_the_device_list() -> None:
    """The device list says every chip is free; a running pod holds chips 0-3: 4 are free."""
    objects = [npu_node("n1"), busy_pod("n1", [0, 1, 2, 3]), *job_objects(tasks=1, chips=4)]
    ssn = harness(objects).open_session()
    state = npu_session(ssn).nodes
    assert state.free_chips(0) == [4, 5, 6, 7]
    task = tasks_by_name(ssn)["job-a-worker-0"]
    assert fit(ssn, task, "n1") is None


def test_stale_device_list_annotation_does_not_hide_free_chips() -> None:
    """The annotation lists only chip 0 as free, but no pod holds the others: all 8 are free."""
    ssn = harness([npu_node("n1", device_list=[0]), *job_objects(tasks=1)]).open_session()
    assert npu_session(ssn).nodes.free_chips(0) == list(range(8))


def test_self_maintain_false_starts_from_the_device_list() -> None:
    conf = npu_conf(init_params={"self-maintain-available-card": "false"})
    ssn = harness(
        [npu_node("n1", device_list=[0, 1, 2]), *job_objects(tasks=1, chips=2)], conf
    ).open_session()
    assert npu_session(ssn).nodes.free_chips(0) == [0, 1, 2]


def test_device_info_config_maps_feed_the_chip_health() -> None:
    """ClusterD's ConfigMap marks chip 2 of n1 unhealthy; the device plugin's marks n2's switch
    unhealthy: n1 loses the chip, n2 every task."""
    cms = [
        cluster_device_cm(
            {
                "n1": {
                    ASCEND_910: "",
                    f"{ASCEND_910}-Unhealthy": "Ascend910-2",
                    f"{ASCEND_910}-NetworkUnhealthy": "",
                }
            }
        ),
        plugin_device_cm("n2", {f"{ASCEND_910}-NetworkUnhealthy": ""}, switch_status="UnHealthy"),
    ]
    ssn = harness([npu_node("n1"), npu_node("n2"), *cms, *job_objects(tasks=1, chips=4)]).open_session()
    state = npu_session(ssn).nodes
    assert state.free_chips(0) == [0, 1, 3, 4, 5, 6, 7]
    task = tasks_by_name(ssn)["job-a-worker-0"]
    assert fit(ssn, task, "n2") == (UNRESOLVABLE, "node is unhealthy")
    assert sorted(ssn.config_maps) == ["kube-system/mindx-dl-deviceinfo-n2", "mindx-dl/cluster-info-device-0"]


def test_idle_npu_count_also_limits() -> None:
    """A pod of another scheduler uses 4 chips without annotations: Volcano's idle count says 4."""
    hidden = npu_pod("hidden", "", 4, node="n1", phase="Running")
    ssn = harness([npu_node("n1"), hidden, *job_objects(tasks=2)]).open_session()
    assert npu_session(ssn).nodes.free_chips(0) == list(range(8))
    assert fit(ssn, tasks_by_name(ssn)["job-a-worker-0"], "n1") == (
        Code.UNSCHEDULABLE,
        SHORTAGE + "ascend910b-module-x8",
    )


# ---------------------------------------------------------------------------------------- preemption
def test_chips_of_releasing_victims_count_as_becoming_free() -> None:
    """Upstream re-runs a predicate that reads only idle chips, so preempt never frees NPUs there;
    here the chips of victims already evicted count as becoming free, in every action (the
    future-idle check), so the preemptor stays placeable behind its victims."""
    victim = npu_pod("victim", "low", 8, node="n1", phase="Running", used=range(8), uid="victim")
    objects = [npu_node("n1"), npu_pod_group("low", 8, min_member=1), victim, *job_objects(tasks=1)]
    ssn = harness(objects).open_session()
    task = tasks_by_name(ssn)["job-a-worker-0"]
    node = ssn.nodes["n1"]
    shortage = (Code.UNSCHEDULABLE, SHORTAGE + "ascend910b-module-x8")
    ssn.current_action = "preempt"
    assert ssn.predicate_for_preempt_action(task, node) is None  # resolvable: may evict
    assert fit(ssn, task, "n1") == shortage
    stmt = ssn.statement()
    stmt.evict(tasks_by_name(ssn)["victim"], "preempted")
    assert fit(ssn, task, "n1") is None
    ssn.current_action = "allocate"
    assert fit(ssn, task, "n1") is None
    ssn.current_action = "preempt"
    stmt.pipeline(task, "n1", True)
    assert task.pod_annotations[ASCEND_910] == ",".join(f"Ascend910-{i}" for i in range(8))
    stmt.discard()
    assert ASCEND_910 not in task.pod_annotations
    assert fit(ssn, task, "n1") == shortage
    assert npu_session(ssn).nodes.free_chips(0, future=True) == []


# ---------------------------------------------------------------------------------------- scoring
def prefer_objects(**node_kwargs: Any) -> list[KubeObject]:
    nodes = [npu_node(f"n{i}", **node_kwargs.get(f"n{i}", {})) for i in range(4)]
    return [*nodes, busy_pod("n3", [0, 1, 2, 3]), *job_objects(tasks=2, chips=4)]


def test_scores_favour_fuller_nodes_and_follow_the_weight() -> None:
    ssn = harness(prefer_objects(), npu_conf(prefer=False)).open_session()
    task = tasks_by_name(ssn)["job-a-worker-0"]
    assert scores(ssn, task) == {"n0": 79200.0, "n1": 79200.0, "n2": 79200.0, "n3": 79600.0}


@pytest.mark.parametrize(
    ("cached", "expected"),
    [
        pytest.param({}, {"n0": 79200.0, "n1": 79200.0, "n2": 79200.0, "n3": 79600.0}, id="no-cache-entry"),
        pytest.param(
            {"0": "n1"},
            {"n0": 79200.0, "n1": 89600.0, "n2": 79200.0, "n3": 79600.0},
            id="previous-node-max-plus-bonus",
        ),
        pytest.param(
            {"0": "gone"},
            {"n0": 79200.0, "n1": 79200.0, "n2": 79200.0, "n3": 79600.0},
            id="previous-node-not-a-candidate",
        ),
        pytest.param(
            {"1": "n1"},
            {"n0": 79200.0, "n1": 79200.0, "n2": 79200.0, "n3": 79600.0},
            id="only-another-rank-cached",
        ),
    ],
)
def test_prefer_previous_node(cached: dict[str, str], expected: dict[str, float]) -> None:
    h = harness(prefer_objects())
    ssn = h.open_session(now=100.0)
    for rank, node in cached.items():
        handler_of(ssn).affinity_cache.record_assignment("owner-a", rank, node, now=100.0)
    assert scores(ssn, tasks_by_name(ssn)["job-a-worker-0"]) == expected


def test_previous_node_not_passing_the_predicates_is_not_scored() -> None:
    """n1 is rank 0's previous node but unhealthy: it fails the predicate; the others keep their scores."""
    objects = prefer_objects(n1={"annotations": {"NodeHealthyStatus": "UnHealthy"}})
    h = harness(objects, npu_conf(actions="allocate", extra=[PluginOption.all_enabled("gang")]))
    ssn = h.open_session()
    handler_of(ssn).affinity_cache.record_assignment("owner-a", "0", "n1", now=0.0)
    task = tasks_by_name(ssn)["job-a-worker-0"]
    passed, _ = ssn.batch_predicate(task, ssn.node_table.all_rows)
    candidates = [ssn.node_table.names[row] for row in passed.tolist()]
    assert candidates == ["n0", "n2", "n3"]
    assert scores(ssn, task, candidates) == {"n0": 79200.0, "n2": 79200.0, "n3": 79600.0}


@pytest.mark.parametrize(
    ("node_kwargs", "expected"),
    [
        pytest.param(
            {"n1": {"annotations": {"NodeStatus": "SubHealthy"}}},
            {"n0": 79200.0, "n1": 89500.0, "n2": 79200.0, "n3": 79600.0},
            id="sub-healthy-previous-node-minus-1-after-the-bonus",
        ),
        pytest.param(
            {"n2": {"annotations": {"NodeStatus": "SubHealthy"}}},
            {"n0": 79200.0, "n1": 89600.0, "n2": 79100.0, "n3": 79600.0},
            id="sub-healthy-other-node",
        ),
    ],
)
def test_sub_health_penalty_follows_the_preference(
    node_kwargs: dict[str, dict[str, Any]], expected: dict[str, float]
) -> None:
    ssn = harness(prefer_objects(**node_kwargs)).open_session()
    handler_of(ssn).affinity_cache.record_assignment("owner-a", "0", "n1", now=0.0)
    assert scores(ssn, tasks_by_name(ssn)["job-a-worker-0"]) == expected


def test_fault_rank_is_pushed_away_and_its_node_loses_64() -> None:
    """Rank 1 failed on n1: rank 1 gets the bonus on the best node no rank used (n3, the fuller one),
    n1 loses 64 for every task of the job; rank 0 keeps n0."""
    from fumarole.policies.fault import TaskFault

    ssn = harness(prefer_objects()).open_session()
    handler = handler_of(ssn)
    handler.affinity_cache.record_assignment("owner-a", "0", "n0", now=0.0)
    handler.affinity_cache.record_assignment("owner-a", "1", "n1", now=0.0)
    handler.faults.observe("owner-a", "default/job-a", [TaskFault("1", "n1", "CardUnhealthy")], now=0.0)
    tasks = tasks_by_name(ssn)
    assert scores(ssn, tasks["job-a-worker-1"]) == {
        "n0": 79200.0,
        "n1": 72800.0,
        "n2": 79200.0,
        "n3": 89600.0,
    }
    assert scores(ssn, tasks["job-a-worker-0"]) == {
        "n0": 89600.0,
        "n1": 72800.0,
        "n2": 79200.0,
        "n3": 79600.0,
    }


def test_non_npu_task_scores_zero() -> None:
    objects = [
        npu_node("n1"),
        build_pod_group(NS, "cpu-job"),
        build_pod(NS, "cpu-job-0", group="cpu-job", requests={"cpu": "1"}),
    ]
    ssn = harness(objects).open_session()
    assert scores(ssn, tasks_by_name(ssn)["cpu-job-0"]) == {"n1": 0.0}


# ---------------------------------------------------------------------------------------- job functions
@pytest.mark.parametrize(
    ("objects", "expected"),
    [
        pytest.param(job_objects(tasks=2), None, id="valid"),
        pytest.param(
            [npu_pod_group("job-a", 16, min_member=2), npu_pod("job-a-worker-0", "job-a", 8, rank=0)],
            ("NotEnoughPod", "the pods of job is not enough, req: 2, actual: 1"),
            id="not-enough-pods",
        ),
        pytest.param(
            [
                npu_pod_group("job-a", 16, min_member=2),
                npu_pod("job-a-worker-0", "job-a", 8, rank=0),
                npu_pod("job-a-worker-1", "job-a", 8, rank=1, deleting=True, node="n1", phase="Running"),
            ],
            ("NotEnoughPod", "the pods of job is not enough, req: 2, actual: 1, terminating: 1"),
            id="terminating-pod",
        ),
        pytest.param(
            job_objects(tasks=1, chips=3, accelerator_type=None),
            (
                "InvalidResourceRequest",
                "job default/job-a: task job-a-worker-0 requests 3 huawei.com/Ascend910: "
                "policy ascend910-module-x8 accepts 1 to 8 chips per task and not in [3, 5, 6, 7]",
            ),
            id="910x8-invalid-request",
        ),
        pytest.param(
            job_objects(tasks=1, accelerator_type="module-a3-16"),
            (
                "NotSupportPolicy",
                "job default/job-a: no NPU policy for huawei.com/Ascend910module-a3-16 "
                "(request huawei.com/Ascend910)",
            ),
            id="a3-not-implemented",
        ),
        pytest.param(
            [
                npu_pod_group("job-a", 8, annotations={"huawei.com/schedule_minAvailable": "x"}),
                npu_pod("job-a-worker-0", "job-a", 8, rank=0),
            ],
            ("InvalidArgument", "job default/job-a task minAvailable x is invalid"),
            id="invalid-schedule-min-available",
        ),
        pytest.param(
            [
                build_pod_group(NS, "cpu-job"),
                build_pod(NS, "cpu-job-0", group="cpu-job", requests={"cpu": "1"}),
            ],
            None,
            id="cpu-job",
        ),
    ],
)
def test_job_valid(objects: list[KubeObject], expected: tuple[str, str] | None) -> None:
    ssn = harness([npu_node("n1"), *objects]).open_session()
    job = next(iter(ssn.jobs.values()))
    result = npu_session(ssn).job_valid(job)
    assert (None if result is None else (result.reason, result.message)) == expected
    assert result is None or not result.passed


def test_job_ready_and_pipelined() -> None:
    ssn = harness([npu_node("n1"), npu_node("n2"), *job_objects(tasks=2)]).open_session()
    session = npu_session(ssn)
    job = ssn.jobs["default/job-a"]
    assert (session.job_ready(job), session.job_pipelined(job)) == (False, REJECT)
    stmt = ssn.statement()
    tasks = tasks_by_name(ssn)
    stmt.allocate(tasks["job-a-worker-0"], ssn.nodes["n1"])
    stmt.pipeline(tasks["job-a-worker-1"], "n2")
    assert (session.job_ready(job), session.job_pipelined(job)) == (False, ABSTAIN)


# ---------------------------------------------------------------------------------------- task order
def ordered(ssn: Session) -> list[str]:
    from functools import cmp_to_key

    session = npu_session(ssn)
    tasks = sorted(tasks_by_name(ssn).values(), key=cmp_to_key(session.task_order))
    return [task.name for task in tasks]


def test_task_order_rank_order_with_podgroup_sched_enable() -> None:
    objects = [
        npu_node("n1"),
        npu_pod_group("job-a", 24, min_member=3, labels={"podgroup-sched-enable": "true"}),
    ]
    objects += [npu_pod(f"job-a-worker-{i}", "job-a", 8, rank=rank) for i, rank in enumerate([2, 0, 1])]
    assert ordered(harness(objects).open_session()) == ["job-a-worker-1", "job-a-worker-2", "job-a-worker-0"]


@pytest.mark.parametrize(
    ("cached", "expected"),
    [
        pytest.param({}, ["job-a-worker-0", "job-a-worker-1", "job-a-worker-2"], id="no-cache-pod-index"),
        pytest.param(
            {"2": "n1"}, ["job-a-worker-2", "job-a-worker-0", "job-a-worker-1"], id="cached-rank-first"
        ),
        pytest.param(
            {"0": "gone", "2": "n1"},
            ["job-a-worker-2", "job-a-worker-0", "job-a-worker-1"],
            id="usable-cached-node-before-a-gone-one",
        ),
        pytest.param(
            {"0": "n2", "1": "n1"},
            ["job-a-worker-1", "job-a-worker-0", "job-a-worker-2"],
            id="cached-node-full-goes-after-usable",
        ),
        pytest.param(
            {"0": "n3", "1": "n1"},
            ["job-a-worker-1", "job-a-worker-0", "job-a-worker-2"],
            id="cached-node-unhealthy-goes-after-usable",
        ),
    ],
)
def test_task_order_ranks_that_can_go_back_first(cached: dict[str, str], expected: list[str]) -> None:
    objects = [
        npu_node("n1"),
        npu_node("n2"),
        npu_node("n3", annotations={"NodeHealthyStatus": "UnHealthy"}),
        busy_pod("n2", list(range(8))),
        npu_pod_group("job-a", 24, min_member=3, owner_uid="owner-a"),
    ]
    objects += [npu_pod(f"job-a-worker-{i}", "job-a", 8, rank=i) for i in range(3)]
    h = harness(objects)
    ssn = h.open_session()
    for rank, node in cached.items():
        handler_of(ssn).affinity_cache.record_assignment("owner-a", rank, node, now=0.0)
    ssn.close()
    assert ordered(h.open_session()) == expected


def test_task_order_is_decided_once_per_session() -> None:
    """The order of a session does not change under it (a heap needs a fixed order)."""
    objects = [npu_node("n1"), npu_pod_group("job-a", 16, min_member=2, owner_uid="owner-a")]
    objects += [npu_pod(f"job-a-worker-{i}", "job-a", 8, rank=i) for i in range(2)]
    ssn = harness(objects).open_session()
    assert ordered(ssn) == ["job-a-worker-0", "job-a-worker-1"]
    handler_of(ssn).affinity_cache.record_assignment("owner-a", "1", "n1", now=0.0)
    assert ordered(ssn) == ["job-a-worker-0", "job-a-worker-1"]


def job_order_objects(**groups: dict[str, Any]) -> list[KubeObject]:
    objects: list[KubeObject] = [npu_node("n1"), npu_node("n2"), busy_pod("n2", list(range(8)))]
    for name, options in groups.items():
        objects.append(
            npu_pod_group(
                name, 8, min_member=1, owner_uid=f"owner-{name}", annotations=options.get("annotations")
            )
        )
        objects.append(npu_pod(f"{name}-0", name, 8, rank=0, uid=f"uid-{name}"))
        if options.get("running"):
            objects.append(npu_pod(f"{name}-1", name, 8, rank=1, node="n1", phase="Running", used=range(8)))
    return objects


@pytest.mark.parametrize(
    ("groups", "cached", "expected"),
    [
        pytest.param({"a": {}, "b": {}}, {}, 0, id="equal"),
        pytest.param({"a": {"running": True}, "b": {}}, {}, 0, id="both-fragile-at-min"),
        pytest.param(
            {
                "a": {"annotations": {"huawei.com/schedule_dequeue_frequency": "3"}},
                "b": {"annotations": {"huawei.com/schedule_dequeue_frequency": "1"}},
            },
            {},
            1,
            id="lower-dequeue-frequency-first",
        ),
        pytest.param(
            {"a": {"annotations": {"huawei.com/schedule_dequeue_frequency": "x"}}, "b": {}},
            {"owner-a": "n2"},
            0,
            id="bad-dequeue-frequency-equal",
        ),
        pytest.param({"a": {}, "b": {}}, {"owner-a": "n2"}, 1, id="degraded-job-after"),
        pytest.param({"a": {}, "b": {}}, {"owner-b": "n2"}, -1, id="other-degraded-job-after"),
        pytest.param({"a": {}, "b": {}}, {"owner-a": "n1"}, 0, id="usable-cached-node-not-degraded"),
    ],
)
def test_job_order(groups: dict[str, dict[str, Any]], cached: dict[str, str], expected: int) -> None:
    h = harness(job_order_objects(**groups))
    ssn = h.open_session()
    for owner, node in cached.items():
        handler_of(ssn).affinity_cache.record_assignment(owner, "0", node, now=0.0)
    ssn.close()
    ssn = h.open_session()
    session = npu_session(ssn)
    assert session.job_order(ssn.jobs[job_uid(ssn, "a")], ssn.jobs[job_uid(ssn, "b")]) == expected


def test_job_order_fragile_first() -> None:
    """A job with more ready tasks than its minAvailable is not fragile and goes after."""
    objects = [npu_node("n1"), npu_node("n2"), npu_node("n3")]
    objects += [npu_pod_group("a", 8, min_member=1), npu_pod("a-0", "a", 8, rank=0)]
    objects += [npu_pod_group("b", 16, min_member=1)]
    objects += [
        npu_pod(f"b-{i}", "b", 8, rank=i, node=f"n{i + 1}", phase="Running", used=range(8)) for i in range(2)
    ]
    ssn = harness(objects).open_session()
    session = npu_session(ssn)
    a, b = ssn.jobs[job_uid(ssn, "a")], ssn.jobs[job_uid(ssn, "b")]
    assert (session.job_order(a, b), session.job_order(b, a)) == (-1, 1)


def job_uid(ssn: Session, name: str) -> str:
    return next(uid for uid, job in ssn.jobs.items() if job.name == name)


def test_task_order_ties_break_by_uid() -> None:
    objects = [npu_node("n1"), npu_pod_group("job-a", 16, min_member=2)]
    objects += [npu_pod("b", "job-a", 8, uid="uid-2"), npu_pod("a", "job-a", 8, uid="uid-1")]
    assert ordered(harness(objects).open_session()) == ["a", "b"]


# ---------------------------------------------------------------------------------------- allocation
def test_allocation_writes_the_chips_to_the_pod_and_rollback_removes_them() -> None:
    objects = [npu_node("n1"), busy_pod("n1", [0, 1]), *job_objects(tasks=2, chips=4)]
    ssn = harness(objects).open_session(now=1.5)
    tasks = tasks_by_name(ssn)
    task = tasks["job-a-worker-0"]
    original = dict(task.pod_annotations)
    stmt = ssn.statement()
    stmt.allocate(task, ssn.nodes["n1"])
    assert {k: v for k, v in task.pod_annotations.items() if original.get(k) != v} == {
        ASCEND_910: "Ascend910-2,Ascend910-3,Ascend910-4,Ascend910-5",
        "predicate-time": "1500000000",
        "distributed-job": "true",
    }
    assert npu_session(ssn).nodes.free_chips(0) == [6, 7]
    assert handler_of(ssn).affinity_cache.get_preferred_node("owner-a", "0") == "n1"
    stmt.discard()
    assert task.pod_annotations == original
    assert npu_session(ssn).nodes.free_chips(0) == [2, 3, 4, 5, 6, 7]
    assert handler_of(ssn).affinity_cache.size() == 0


@pytest.mark.parametrize(
    ("cached", "allocate", "commit", "expected"),
    [
        pytest.param({}, ["job-a-worker-0"], False, {}, id="first-entry-of-an-unconfirmed-placement-removed"),
        pytest.param(
            {"0": "n9"},
            ["job-a-worker-0"],
            False,
            {0: "n9"},
            id="unconfirmed-restores-the-old-node",
        ),
        pytest.param(
            {"0": "n9"},
            ["job-a-worker-0", "job-a-worker-1"],
            True,
            {0: "n1", 1: "n2"},
            id="committed-placements-kept",
        ),
    ],
)
def test_placements_not_committed_in_the_session_leave_no_cache_entry(
    cached: dict[str, str], allocate: list[str], commit: bool, expected: dict[int, str]
) -> None:
    """A gang left Allocated (not ready, neither committed nor discarded) was never bound: at
    session close its cache entries are rolled back, so the rank's real node is not overwritten."""
    h = harness([npu_node("n1"), npu_node("n2"), *job_objects(tasks=2)])
    ssn = h.open_session()
    for rank, node in cached.items():
        handler_of(ssn).affinity_cache.record_assignment("owner-a", rank, node, now=0.0)
    tasks = tasks_by_name(ssn)
    stmt = ssn.statement()
    for name, node in zip(allocate, ["n1", "n2"], strict=False):
        stmt.allocate(tasks[name], ssn.nodes[node])
    if commit:
        stmt.commit()
    ssn.close()
    assert handler_of(ssn).affinity_cache.get_preferred_node_map("owner-a") == expected


def test_whole_node_allocation_writes_the_real_chips_and_the_device_configuration() -> None:
    ssn = harness([npu_node("n1"), *job_objects(tasks=1)]).open_session()
    task = tasks_by_name(ssn)["job-a-worker-0"]
    ssn.statement().allocate(task, ssn.nodes["n1"])
    assert task.pod_annotations["huawei.com/AscendReal"] == task.pod_annotations[ASCEND_910]
    assert task.pod_annotations["distributed-job"] == "false"
    config = json.loads(task.pod_annotations["ascend.kubectl.kubernetes.io/ascend-910-configuration"])
    assert config["pod_name"] == "job-a-worker-0"
    assert config["devices"][:2] == [
        {"device_id": "0", "device_ip": "10.0.0.10", "super_device_id": "0"},
        {"device_id": "1", "device_ip": "10.0.0.11", "super_device_id": "1"},
    ]
    assert len(config["devices"]) == 8


def test_operator_label_and_replica_set_owner_annotations() -> None:
    from fumarole.framework.cache.objects import OwnerReference

    pg = build_pod_group(NS, "infer", min_member=1, min_resources={ASCEND_910: "2"})
    pg.metadata.owner_references.append(
        OwnerReference.model_validate(
            {
                "apiVersion": "apps/v1",
                "kind": "ReplicaSet",
                "name": "infer-rs",
                "uid": "rs-uid",
                "controller": True,
            }
        )
    )
    pod = npu_pod("infer-abc12", "infer", 2, labels={"training.kubeflow.org/operator-name": "x"})
    ssn = harness([npu_node("n1"), pg, pod]).open_session()
    task = tasks_by_name(ssn)["infer-abc12"]
    ssn.statement().allocate(task, ssn.nodes["n1"])
    assert task.pod_annotations["hccl/rankIndex"] == "0"
    assert task.pod_annotations["huawei.com/AscendReal"] == "Ascend910-0,Ascend910-1"
    assert "ascend.kubectl.kubernetes.io/ascend-910-configuration" in task.pod_annotations
    assert handler_of(ssn).affinity_cache.get_preferred_node("rs-uid", "0") == "n1"


def test_bound_pods_keep_their_chips_in_later_cycles() -> None:
    """Cycle 1 binds rank 0 to chips 0-3 of n1; cycle 2 sees those chips held, from the pod's annotation."""
    objects = [npu_node("n1"), *job_objects(tasks=1, chips=4)]
    h = harness(objects, npu_conf(actions="allocate", extra=[PluginOption.all_enabled("gang")]))
    first, second = h.run(2)
    assert [(b.pod, b.node, b.annotations[ASCEND_910]) for b in first.binds] == [
        ("default/job-a-worker-0", "n1", "Ascend910-0,Ascend910-1,Ascend910-2,Ascend910-3")
    ]
    assert second.binds == []
    ssn = h.open_session()
    assert npu_session(ssn).nodes.free_chips(0) == [4, 5, 6, 7]


def test_allocation_fails_when_no_chips_are_left() -> None:
    """The statement refuses an allocation the plugin cannot give chips to (here a pod asks for 2
    chips but its annotation holds 6, so Volcano's idle count still shows 6)."""
    from fumarole.framework.statement import StatementError

    greedy = npu_pod("greedy", "", 2, node="n1", phase="Running", used=range(6))
    objects = [npu_node("n1"), greedy, *job_objects(tasks=1, chips=4)]
    ssn = harness(objects).open_session()
    task = tasks_by_name(ssn)["job-a-worker-0"]
    with pytest.raises(
        StatementError, match=r"NPUResourceShortage: node n1 has no 4 free huawei\.com/Ascend910 chips"
    ):
        ssn.statement().allocate(task, ssn.nodes["n1"])
    assert npu_session(ssn).nodes.free_chips(0) == [6, 7]


def test_metrics_after_session_close() -> None:
    h = harness(
        [npu_node("n1"), *job_objects(tasks=1)],
        npu_conf(actions="allocate", extra=[PluginOption.all_enabled("gang")]),
    )
    h.run(1)
    ssn = h.open_session()
    assert handler_of(ssn).metrics == {
        "affinity_cache_size": 1.0,
        "affinity_cache_owners": 1.0,
        "fault_records": 0.0,
    }


def test_a_broken_card_policy_fails_the_conf_at_load() -> None:
    registry = Registry()
    registry.register_policy("broken", _NotAPolicy)
    with pytest.raises(ConfError) as info:
        parse_conf('actions: "allocate"\ntiers:\n- plugins:\n  - name: huawei-npu\n', "npu.conf", registry)
    assert str(info.value) == (
        "npu.conf:4: tiers[0].plugins[0].name: fumarole.policies: 'broken' is not a card policy (missing "
        "resource, network_fault_attention, chip_prefix, validate_requests, fits, scores, select)"
    )
