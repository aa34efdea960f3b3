"""Fault injection: what the simulator writes on the node (annotations, taints), which pods fail, and
how the controllers and the scheduler (predicates: taints) react — on NPU nodes and plain nodes.

One node ``n-00`` (8 cpu; the NPU variant has ``npu: {chips: 4}``: chips Ascend910-0..3). A batch
pod ``p`` (2 cpu, 1000 s; on the NPU node it asks 1 NPU and holds chip Ascend910-1 by annotation, as
the NPU plugin would have written) is bound and Running at 5 (zero-size image). The huawei-npu
plugin is not in the conf: the scheduler sees chips only as a countable resource.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from fumarole.simulator.workload import WorkloadError, load_workload
from sim_helpers import Life, events, lives, new_simulation, node_group, probe, workload

NPU = "huawei.com/Ascend910"
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
            (npu_node("Ascend910-1", "", "Healthy"), []),
            (npu_node("", "", "Healthy"), []),
            # p holds Ascend910-1: it fails and is re-created at 100. Without the NPU plugin nothing
            # reads the chip list, so the new pod binds in the cycle at 100, on the same node.
            [("batch/p", "n-00", 0, 5, 5, 100, "failed"), ("batch/p", "n-00", 100, 100, 100, None, "")],
            id="npu-chip-held-by-pod",
        ),
        pytest.param(
            True,
            {"kind": "chip", "chips": [2, 3]},
            (npu_node("Ascend910-2,Ascend910-3", "", "Healthy"), []),
            (npu_node("", "", "Healthy"), []),
            # p holds Ascend910-1 only: unaffected.
            [("batch/p", "n-00", 0, 5, 5, None, "")],
            id="npu-chip-not-held",
        ),
        pytest.param(
            True,
            {"kind": "chip"},
            (npu_node("Ascend910-0", "", "Healthy"), []),
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
                (npu_node(CHIPS, "", "UnHealthy"), UNREACHABLE),  # 151: both
                (npu_node("Ascend910-1", "", "Healthy"), []),  # 251: the chip is still broken
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
