"""Fault injection: what the simulator writes on the node (annotations, taints), which pods fail, and
how the controllers and the scheduler (predicates: taints) react — on NPU nodes and plain nodes.

One node ``n-00`` (8 cpu; the NPU variant has ``npu: {chips: 4}``: chips Ascend910-0..3). A batch
pod ``p`` (2 cpu, 1000 s; on the NPU node it asks 1 NPU and holds chip Ascend910-1 by annotation, as
the NPU plugin would have written) is bound and Running at 5 (zero-size image). The huawei-npu
plugin is not in the conf: the scheduler sees chips only as a countable resource.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fumarole.framework.conf import load_conf
from fumarole.framework.registry import Registry
from fumarole.simulator.engine import Simulation
from fumarole.simulator.workload import WorkloadError, load_workload
from sim_helpers import Life, events, lives, new_simulation, node_group, probe, workload

NPU = "huawei.com/Ascend910"
NPU_CONF = Path(__file__).resolve().parents[2] / "conf" / "npu-inference-training.yaml"
CHIPS = "Ascend910-0,Ascend910-1,Ascend910-2,Ascend910-3"
UNREACHABLE = [{"key": "node.kubernetes.io/unreachable", "value": "", "effect": "NoSchedule"}]
SUB_HEALTH = json.dumps(
    [
        {
            "fault_type": "CardUnhealthy",
            "npu_name": "Ascend910-0",
            "fault_level": "SubHealthFault",
            "fault_handling": "SubHealthFault",
            "large_model_fault_level": "SubHealthFault",
            "fault_code": "80C98000",
        }
    ],
    separators=(",", ":"),
)


def chip_faults(*chips: str, level: str = "SeparateNPU", code: str = "80E3A201") -> str:
    """The ``-Fault`` list of chip faults of one level (``code``: the level's fault code)."""
    return json.dumps(
        [
            {
                "fault_type": "CardUnhealthy",
                "npu_name": chip,
                "fault_level": level,
                "fault_handling": level,
                "large_model_fault_level": level,
                "fault_code": code,
            }
            for chip in chips
        ],
        separators=(",", ":"),
    )


def npu_node(unhealthy: str = "", fault: str | None = None, status: str | None = None) -> dict[str, str]:
    """The NPU node's annotations (without baseDeviceInfos)."""
    out = {
        NPU: CHIPS,
        f"{NPU}-Unhealthy": unhealthy,
        f"{NPU}-NetworkUnhealthy": "",
        f"{NPU}-Recovering": "",
    }
    if fault is not None:
        out[f"{NPU}-Fault"] = fault
    if status is not None:
        out["NodeHealthyStatus"] = status
    return out


def run(
    npu: bool, faults: list[dict[str, Any]], times: list[float], horizon: float = 400
) -> tuple[Any, list[Any]]:
    group = node_group("n", cpu="8", **({"npu": {"chips": 4}} if npu else {}))
    batch: dict[str, Any] = {"name": "p", "image": "img", "cpu": "2", "duration": 1000}
    if npu:
        batch.update(npus_per_pod=1, annotations={NPU: "Ascend910-1"})
    sim = new_simulation(
        workload(horizon=horizon, cluster={"node_groups": [group]}, batch=[batch], faults=faults)
    )

    def look() -> tuple[dict[str, str], list[dict[str, Any]]]:
        node = sim.cluster.cache.nodes["n-00"]
        annotations = {k: v for k, v in node.metadata.annotations.items() if k != "baseDeviceInfos"}
        return annotations, [taint.model_dump() for taint in node.spec.taints]

    seen = probe(sim, times, look)
    sim.run()
    return sim, seen


@pytest.mark.parametrize(
    ("npu", "fault", "during", "after", "expected"),
    [
        pytest.param(
            False,
            {"kind": "hard", "detection": "instant"},
            ({"NodeHealthyStatus": "UnHealthy"}, UNREACHABLE),
            ({"NodeHealthyStatus": "Healthy"}, []),
            # p fails with the node at 100 and is re-created at once; the taint keeps it off until the
            # recovery at 200, when it binds (back on n-00) and runs.
            [("batch/p", "n-00", 0, 5, 5, 100, "failed"), ("batch/p", "n-00", 100, 200, 200, None, "")],
            id="plain-hard",
        ),
        pytest.param(
            True,
            {"kind": "hard", "detection": "instant"},
            (npu_node(CHIPS, "", "UnHealthy"), UNREACHABLE),
            (npu_node("", "", "Healthy"), []),
            [("batch/p", "n-00", 0, 5, 5, 100, "failed"), ("batch/p", "n-00", 100, 200, 200, None, "")],
            id="npu-hard-every-chip-unhealthy",
        ),
        pytest.param(
            False,
            {"kind": "subhealthy"},
            ({"NodeHealthyStatus": "SubHealthy"}, []),
            ({"NodeHealthyStatus": "Healthy"}, []),
            # sub-healthy nodes keep working: p runs on.
            [("batch/p", "n-00", 0, 5, 5, None, "")],
            id="plain-subhealthy",
        ),
        pytest.param(
            True,
            {"kind": "subhealthy"},
            (npu_node("", SUB_HEALTH, "Healthy"), []),
            (npu_node("", "", "Healthy"), []),
            [("batch/p", "n-00", 0, 5, 5, None, "")],
            id="npu-subhealthy-fault-annotation",
        ),
        pytest.param(
            True,
            {"kind": "chip", "chips": [1]},
            (npu_node("Ascend910-1", chip_faults("Ascend910-1"), "Healthy"), []),
            (npu_node("", "", "Healthy"), []),
            # p holds Ascend910-1: it fails and is re-created at 100. Without the NPU plugin nothing
            # reads the chip list, so the new pod binds in the cycle at 100, on the same node.
            [("batch/p", "n-00", 0, 5, 5, 100, "failed"), ("batch/p", "n-00", 100, 100, 100, None, "")],
            id="npu-chip-held-by-pod",
        ),
        pytest.param(
            True,
            {"kind": "chip", "chips": [2, 3]},
            (npu_node("Ascend910-2,Ascend910-3", chip_faults("Ascend910-2", "Ascend910-3"), "Healthy"), []),
            (npu_node("", "", "Healthy"), []),
            # p holds Ascend910-1 only: unaffected.
            [("batch/p", "n-00", 0, 5, 5, None, "")],
            id="npu-chip-not-held",
        ),
        pytest.param(
            True,
            {"kind": "chip"},
            (npu_node("Ascend910-0", chip_faults("Ascend910-0"), "Healthy"), []),
            (npu_node("", "", "Healthy"), []),
            # no chips given: chip 0.
            [("batch/p", "n-00", 0, 5, 5, None, "")],
            id="npu-chip-default-chip-0",
        ),
    ],
)
def test_fault_and_recovery(
    npu: bool,
    fault: dict[str, Any],
    during: tuple[dict[str, str], list[dict[str, Any]]],
    after: tuple[dict[str, str], list[dict[str, Any]]],
    expected: list[Life],
) -> None:
    # the fault at 100 lasts 100 s: look at 101 and at 201.
    sim, seen = run(npu, [{"node": "n-00", "at": 100, "duration": 100, **fault}], [50, 101, 201])
    before = (npu_node() if npu else {}, [])
    assert seen == [before, during, after]
    assert lives(sim) == expected
    kind = fault["kind"]
    assert events(sim, f"fault-{kind}", f"recovered-{kind}") == [
        (100, f"fault-{kind}", "", "n-00", ""),
        (200, f"recovered-{kind}", "", "n-00", ""),
    ]
    assert sim.cluster.nodes["n-00"].faults == []


def test_fault_without_duration_stays() -> None:
    sim, seen = run(False, [{"node": "n-00", "at": 100, "kind": "hard", "detection": "instant"}], [399])
    assert seen == [({"NodeHealthyStatus": "UnHealthy"}, UNREACHABLE)]
    # the re-created p never gets past the taint.
    assert lives(sim) == [
        ("batch/p", "n-00", 0, 5, 5, 100, "failed"),
        ("batch/p", "", 100, None, None, None, ""),
    ]
    assert [fault.kind for fault in sim.cluster.nodes["n-00"].faults] == ["hard"]


@pytest.mark.parametrize(
    ("npu", "faults", "seen_at"),
    [
        pytest.param(
            True,
            # chip 1 broken 100..300; the whole node down 150..250.
            [
                {"node": "n-00", "at": 100, "kind": "chip", "chips": [1], "duration": 200},
                {"node": "n-00", "at": 150, "kind": "hard", "detection": "instant", "duration": 100},
            ],
            [
                (npu_node(CHIPS, chip_faults("Ascend910-1"), "UnHealthy"), UNREACHABLE),  # 151: both
                (npu_node("Ascend910-1", chip_faults("Ascend910-1"), "Healthy"), []),  # 251: still broken
                (npu_node("", "", "Healthy"), []),  # 301: all healed
            ],
            id="npu-hard-recovery-keeps-chip-fault",
        ),
        pytest.param(
            False,
            # down 100..300; sub-healthy 150..200 (hidden by the hard fault, which outlasts it).
            [
                {"node": "n-00", "at": 100, "kind": "hard", "detection": "instant", "duration": 200},
                {"node": "n-00", "at": 150, "kind": "subhealthy", "duration": 50},
            ],
            [
                ({"NodeHealthyStatus": "UnHealthy"}, UNREACHABLE),  # 151
                ({"NodeHealthyStatus": "UnHealthy"}, UNREACHABLE),  # 251: still down
                ({"NodeHealthyStatus": "Healthy"}, []),  # 301
            ],
            id="plain-subhealthy-recovery-keeps-hard-fault",
        ),
    ],
)
def test_overlapping_faults_heal_only_their_own(
    npu: bool, faults: list[dict[str, Any]], seen_at: list[Any]
) -> None:
    _, seen = run(npu, faults, [151, 251, 301])
    assert seen == seen_at


def test_hard_fault_taint_steers_new_pods_to_healthy_nodes() -> None:
    # Two nodes; a-00 fails at 50 for good. q (arriving at 60) can only go to b-00.
    sim = new_simulation(
        workload(
            cluster={"node_groups": [node_group("a", cpu="8"), node_group("b", cpu="8")]},
            batch=[{"name": "q", "image": "img", "cpu": "2", "duration": 100, "arrival": 60}],
            faults=[{"node": "a-00", "at": 50, "kind": "hard", "detection": "instant"}],
        )
    )
    sim.run()
    assert lives(sim) == [("batch/q", "b-00", 60, 60, 60, 160, "succeeded")]


@pytest.mark.parametrize(
    ("npu", "fault", "message"),
    [
        pytest.param(
            False,
            {"kind": "chip", "chips": [0]},
            "faults[0]: a chip fault needs an NPU node; n-00 has no npu",
            id="chip-fault-on-plain-node",
        ),
        pytest.param(
            True,
            {"kind": "chip", "chips": [1, 4]},
            "faults[0]: chips [4] are not chips of n-00 (0..3)",
            id="chip-out-of-range",
        ),
    ],
)
def test_chip_fault_validation(tmp_path: Any, npu: bool, fault: dict[str, Any], message: str) -> None:
    group = node_group("n", cpu="8", **({"npu": {"chips": 4}} if npu else {}))
    path = tmp_path / "w.yaml"
    path.write_text(
        json.dumps({"cluster": {"node_groups": [group]}, "faults": [{"node": "n-00", "at": 10, **fault}]}),
        encoding="utf-8",
    )
    with pytest.raises(WorkloadError) as caught:
        load_workload(path)
    assert str(caught.value) == f"{path}: {message}"


LEVEL_CODES = {
    "NotHandleFault": "80E21007",
    "SubHealthFault": "80C98000",
    "RestartRequest": "80C98008",
    "RestartBusiness": "8C204E00",
    "FreeRestartNPU": "8C0E4E00",
    "RestartNPU": "8C03A000",
    "PreSeparateNPU": "8118043C",
    "SeparateNPU": "80E3A201",
}
KEEPS_RUNNING = [("batch/p", "n-00", 0, 5, 5, None, "")]
RESTARTED = [("batch/p", "n-00", 0, 5, 5, 100, "failed"), ("batch/p", "n-00", 100, 100, 100, None, "")]


@pytest.mark.parametrize(
    ("level", "unhealthy", "expected"),
    [
        # which levels isolate the chip (it joins -Unhealthy: the NPU plugin no longer allocates it) and
        # which fail the pods using it (their job is rescheduled); every level is listed in -Fault.
        pytest.param("NotHandleFault", "", KEEPS_RUNNING, id="NotHandleFault-nothing"),
        pytest.param("SubHealthFault", "", KEEPS_RUNNING, id="SubHealthFault-sub-health-only"),
        # p uses the chip: pre-isolated chips stay with the pod that holds them (see the test below).
        pytest.param("PreSeparateNPU", "", KEEPS_RUNNING, id="PreSeparateNPU-kept-while-used"),
        pytest.param("RestartRequest", "Ascend910-1", RESTARTED, id="RestartRequest-isolate-restart"),
        pytest.param("RestartBusiness", "Ascend910-1", RESTARTED, id="RestartBusiness-isolate-restart"),
        pytest.param("FreeRestartNPU", "Ascend910-1", RESTARTED, id="FreeRestartNPU-isolate-restart"),
        pytest.param("RestartNPU", "Ascend910-1", RESTARTED, id="RestartNPU-isolate-restart"),
        pytest.param("SeparateNPU", "Ascend910-1", RESTARTED, id="SeparateNPU-isolate-restart"),
    ],
)
def test_chip_fault_levels(level: str, unhealthy: str, expected: list[Life]) -> None:
    # chip 1, which p holds, reports a fault of ``level`` from 100 to 200 (the reset or the repair).
    fault = {"node": "n-00", "at": 100, "duration": 100, "kind": "chip", "chips": [1], "level": level}
    sim, seen = run(True, [fault], [50, 101, 201])
    listed = chip_faults("Ascend910-1", level=level, code=LEVEL_CODES[level])
    assert seen == [
        (npu_node(), []),
        (npu_node(unhealthy, listed, "Healthy"), []),
        (npu_node("", "", "Healthy"), []),  # recovered
    ]
    assert lives(sim) == expected


def test_a_pre_separated_chip_is_isolated_once_free() -> None:
    # p holds chip 1 and ends at 125 (arrival 0, bound 5, 120 s); chip 1 is pre-separated from 100 to
    # 300: listed in -Fault at once, Unhealthy only from 125, when p no longer uses it; healed at 300.
    group = node_group("n", cpu="8", npu={"chips": 4})
    batch = {
        "name": "p",
        "image": "img",
        "cpu": "2",
        "duration": 120,
        "npus_per_pod": 1,
        "annotations": {NPU: "Ascend910-1"},
    }
    fault = {
        "node": "n-00",
        "at": 100,
        "duration": 200,
        "kind": "chip",
        "chips": [1],
        "level": "PreSeparateNPU",
    }
    sim = new_simulation(
        workload(horizon=400, cluster={"node_groups": [group]}, batch=[batch], faults=[fault])
    )

    def look() -> str:
        return sim.cluster.cache.nodes["n-00"].metadata.annotations[f"{NPU}-Unhealthy"]

    seen = probe(sim, [101, 124, 126, 301], look)
    sim.run()
    assert seen == ["", "", "Ascend910-1", ""]
    assert lives(sim) == [("batch/p", "n-00", 0, 5, 5, 125, "succeeded")]


@pytest.mark.parametrize(
    ("level", "bound"),
    [
        pytest.param("NotHandleFault", 150, id="NotHandleFault-allocatable"),
        pytest.param("SubHealthFault", 150, id="SubHealthFault-allocatable-scores-lower"),
        pytest.param("PreSeparateNPU", 200, id="PreSeparateNPU-free-chip-isolated"),
        pytest.param("RestartRequest", 200, id="RestartRequest-isolated"),
        pytest.param("RestartNPU", 200, id="RestartNPU-isolated"),
        pytest.param("SeparateNPU", 200, id="SeparateNPU-isolated"),
    ],
)
def test_an_isolated_chip_leaves_the_allocatable_set(level: str, bound: float) -> None:
    # Under the shipped NPU conf (huawei-npu reads the chip lists): an 8-chip 910B node whose chip 2
    # reports ``level`` from 100 to 200; q, arriving at 150, asks all 8 chips. Bound at 150 when the
    # chip stays allocatable, at 200 (the recovery) when it was isolated.
    registry = Registry()
    group = node_group("n", cpu="16", npu={"chips": 8, "accelerator_type": "module-910b-8"})
    q = {
        "name": "q",
        "image": "img",
        "cpu": "2",
        "duration": 1000,
        "arrival": 150,
        "npus_per_pod": 8,
        "node_selector": {"accelerator-type": "module-910b-8"},
    }
    fault = {"node": "n-00", "at": 100, "duration": 100, "kind": "chip", "chips": [2], "level": level}
    wl = workload(horizon=400, cluster={"node_groups": [group]}, batch=[q], faults=[fault])
    sim = Simulation(wl, load_conf(str(NPU_CONF), registry), registry=registry)
    sim.run()
    assert lives(sim) == [("batch/q", "n-00", 150, bound, bound, None, "")]


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        pytest.param(
            {"faults": [{"node": "n-00", "at": 10, "kind": "subhealthy", "detection": "instant"}]},
            "faults[0]: detection applies to hard faults only",
            id="detection-on-subhealthy",
        ),
        pytest.param(
            {"faults": [{"node": "n-00", "at": 10, "kind": "hard", "replaced": True}]},
            "faults[0]: replaced needs a hard fault with a duration (the node that comes back)",
            id="replaced-without-duration",
        ),
        pytest.param(
            {"faults": [{"node": "n-00", "at": 10, "kind": "chip", "replaced": True, "duration": 5}]},
            "faults[0]: replaced needs a hard fault with a duration (the node that comes back)",
            id="replaced-chip",
        ),
        pytest.param(
            {"faults": [{"node": "n-00", "at": 10, "kind": "hard", "level": "RestartNPU"}]},
            "faults[0]: level applies to chip faults only",
            id="level-on-hard",
        ),
        pytest.param(
            {"faults": [{"node": "n-00", "at": 10, "kind": "chip", "level": "Reboot"}]},
            "faults[0].level: Input should be 'NotHandleFault', 'SubHealthFault', 'RestartRequest', "
            "'RestartBusiness', 'FreeRestartNPU', 'RestartNPU', 'PreSeparateNPU' or 'SeparateNPU' "
            "(got 'Reboot')",
            id="unknown-level",
        ),
        pytest.param(
            {"scheduler_restarts": [{"at": 100, "downtime": 10}, {"at": 50}]},
            "scheduler_restarts must be sorted by at",
            id="restarts-unsorted",
        ),
        pytest.param(
            {"scheduler_restarts": [{"at": 100, "downtime": 60}, {"at": 150}]},
            "scheduler_restarts[1]: at 150 is during the downtime of scheduler_restarts[0] (until 160)",
            id="restart-during-downtime",
        ),
        pytest.param(
            {"node_lifecycle": {"node_monitor_grace_period": -1}},
            "node_lifecycle.node_monitor_grace_period: Input should be greater than or equal to 0 (got -1)",
            id="negative-grace",
        ),
        pytest.param(
            {"batch": [{"name": "p", "image": "img", "duration": 5, "tolerations": [{"operator": "Equal"}]}]},
            "batch[0] (p).tolerations[0]: an empty key needs operator Exists (it tolerates every taint)",
            id="toleration-empty-key",
        ),
        pytest.param(
            {
                "batch": [
                    {
                        "name": "p",
                        "image": "img",
                        "duration": 5,
                        "tolerations": [{"key": "k", "effect": "NoSchedule", "toleration_seconds": 5}],
                    }
                ]
            },
            "batch[0] (p).tolerations[0]: toleration_seconds applies to NoExecute taints only",
            id="toleration-seconds-on-noschedule",
        ),
    ],
)
def test_fault_lifecycle_and_restart_validation(tmp_path: Any, fields: dict[str, Any], message: str) -> None:
    group = node_group("n", cpu="8", npu={"chips": 4})
    path = tmp_path / "w.yaml"
    document = {"cluster": {"node_groups": [group]}, "images": [{"name": "img", "size_gb": 0}], **fields}
    path.write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(WorkloadError) as caught:
        load_workload(path)
    assert str(caught.value) == f"{path}: {message}"
