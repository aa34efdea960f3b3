"""gpu-share: the per-device GPU model (the FGD artefact's Open-Gpu-Share), hand-worked nodes.

Each case states the devices' free milli-GPU and asserts the exact device chosen, the exact binds
and the ``alibabacloud.com/gpu-index`` annotation the bind carries.
"""

from __future__ import annotations

import numpy as np
import pytest
from fumarole.framework.api import TaskStatus
from fumarole.plugins.gpu_share import GPU_INDEX, GpuAnnotationError, GpuRequest, gpu_request, session_devices
from fumarole.plugins.gpu_share.devices import choose, format_index, node_gpus, pack, parse_index, row_state
from fumarole.testing import Harness, binds, task
from gpu_objects import conf, gpu_node, gpu_pod, objects
from hypothesis import given, settings
from hypothesis import strategies as st


# ---------------------------------------------------------------------- annotations
@pytest.mark.parametrize(
    ("annotations", "expected"),
    [
        pytest.param({}, None, id="no-annotations"),
        pytest.param(
            {"alibabacloud.com/gpu-milli": "500", "alibabacloud.com/gpu-count": "1"},
            GpuRequest(1, 500),
            id="share",
        ),
        pytest.param(
            {
                "alibabacloud.com/gpu-milli": "1000",
                "alibabacloud.com/gpu-count": "2",
                "alibabacloud.com/gpu-card-model": "V100M16|V100M32",
            },
            GpuRequest(2, 1000, ("V100M16", "V100M32")),
            id="two-whole-gpus-two-models",
        ),
        pytest.param(
            {"alibabacloud.com/gpu-milli": "0", "alibabacloud.com/gpu-count": "1"}, None, id="zero-milli"
        ),
        pytest.param({"alibabacloud.com/gpu-milli": "300"}, None, id="no-count"),
    ],
)
def test_gpu_request(annotations, expected):
    assert gpu_request(annotations) == expected


@pytest.mark.parametrize(
    ("annotations", "message"),
    [
        pytest.param(
            {"alibabacloud.com/gpu-milli": "lots", "alibabacloud.com/gpu-count": "1"},
            "annotation alibabacloud.com/gpu-milli: 'lots' is not a quantity",
            id="milli-not-quantity",
        ),
        pytest.param(
            {"alibabacloud.com/gpu-milli": "1500", "alibabacloud.com/gpu-count": "1"},
            "annotation alibabacloud.com/gpu-milli: '1500' is not within 0..1000",
            id="milli-above-one-gpu",
        ),
        pytest.param(
            {"alibabacloud.com/gpu-milli": "500", "alibabacloud.com/gpu-count": "one"},
            "annotation alibabacloud.com/gpu-count: 'one' is not an integer",
            id="count-not-integer",
        ),
    ],
)
def test_gpu_request_errors(annotations, message):
    with pytest.raises(GpuAnnotationError) as caught:
        gpu_request(annotations)
    assert str(caught.value) == message


def test_index_round_trip():
    assert parse_index("2-3-4") == (2, 3, 4)
    assert format_index((2, 3, 4)) == "2-3-4"
    assert parse_index("2,3") is None


# ---------------------------------------------------------------------- device choice on one node
FREE = np.array([1000, 300, 600, 1000, 300, -1, -1, -1])


@pytest.mark.parametrize(
    ("request_", "rule", "expected"),
    [
        pytest.param(GpuRequest(1, 200), "best", (1,), id="best-least-free-first-on-ties"),
        pytest.param(GpuRequest(1, 400), "best", (2,), id="best-skips-too-small"),
        pytest.param(GpuRequest(1, 200), "worst", (0,), id="worst-most-free-first-on-ties"),
        pytest.param(GpuRequest(2, 1000), "worst", (0, 3), id="whole-gpus-index-order"),
        pytest.param(GpuRequest(3, 1000), "best", None, id="three-whole-gpus-do-not-fit"),
        pytest.param(GpuRequest(2, 500), "best", (2, 0), id="two-shared-devices-in-rule-order"),
    ],
)
def test_choose(request_, rule, expected):
    assert choose(FREE, request_, rule, np.random.default_rng(0)) == expected


def test_pack_is_least_sufficient_first():
    assert pack(FREE, GpuRequest(1, 250)) == (1,)
    assert pack(FREE, GpuRequest(2, 1000)) == (0, 3)
    assert pack(FREE, GpuRequest(1, 700)) == (0,)


def test_random_choice_is_seeded():
    picks = [choose(FREE, GpuRequest(1, 200), "random", np.random.default_rng(7))[0] for _ in range(3)]
    assert len(set(picks)) == 1
    many = {choose(FREE, GpuRequest(1, 200), "random", np.random.default_rng(seed))[0] for seed in range(40)}
    assert many == {0, 1, 2, 3, 4}


# ---------------------------------------------------------------------- node state from a snapshot
def test_row_state_reads_indices_and_packs_the_rest():
    harness = Harness(
        objects(
            gpu_node("n1", 4),
            gpu_pod("a", 500, node="n1", index="2"),
            gpu_pod("b", 1000, 2, node="n1", index="0-3"),
            gpu_pod("c", 300, node="n1"),  # no index: packed on the least sufficient device, 2
            gpu_pod("d", 700, node="n1", index="2"),  # device 2 has 200 left: packed on device 1
        ),
        conf(),
    )
    ssn = harness.open_session()
    state = row_state(ssn.nodes["n1"])
    assert state.free == (0, 300, 200, 0)
    assert dict(state.tags) == {"share-gpu": 3, "2-gpu": 1}


def test_node_gpu_count_falls_back_to_gpu_milli():
    harness = Harness(objects(gpu_node("n1", 4, count_label=False), gpu_node("c1", 0, model="")), conf())
    ssn = harness.open_session()
    assert node_gpus(ssn.nodes["n1"]) == (4, "G2")
    assert node_gpus(ssn.nodes["c1"]) == (0, "")
    devices = session_devices(ssn)
    row = ssn.node_table.index["n1"]
    assert devices.free[row].tolist() == [1000, 1000, 1000, 1000]
    assert devices.free[ssn.node_table.index["c1"]].tolist() == [-1, -1, -1, -1]


# ---------------------------------------------------------------------- the plugin, whole cycles
@pytest.mark.parametrize(
    ("parts", "selection", "expected"),
    [
        pytest.param(
            [
                gpu_node("n1", 2),
                gpu_pod("a", 500, node="n1", index="0"),
                gpu_pod("b", 500, node="n1", index="1"),
                gpu_pod("p", 1000),
            ],
            "best",
            {},
            id="whole-gpu-does-not-fit-two-halves",
        ),
        pytest.param(
            [
                gpu_node("n1", 2),
                gpu_pod("a", 500, node="n1", index="0"),
                gpu_pod("b", 500, node="n1", index="0"),
                gpu_pod("p", 1000),
            ],
            "best",
            {"ns/p": ("n1", "1")},
            id="whole-gpu-takes-the-free-device",
        ),
        pytest.param(
            [
                gpu_node("n1", 3),
                gpu_pod("a", 200, node="n1", index="1"),
                gpu_pod("b", 600, node="n1", index="2"),
                gpu_pod("p", 300),
            ],
            "best",
            {"ns/p": ("n1", "2")},
            id="best-takes-the-fullest-device-with-room",
        ),
        pytest.param(
            [
                gpu_node("n1", 3),
                gpu_pod("a", 200, node="n1", index="1"),
                gpu_pod("b", 600, node="n1", index="2"),
                gpu_pod("p", 300),
            ],
            "worst",
            {"ns/p": ("n1", "0")},
            id="worst-takes-the-emptiest-device",
        ),
        pytest.param(
            [gpu_node("n1", 4), gpu_pod("a", 100, node="n1", index="1"), gpu_pod("p", 1000, 2)],
            "best",
            {"ns/p": ("n1", "0-2")},
            id="two-whole-gpus-first-free-in-index-order",
        ),
        pytest.param(
            [
                gpu_node("t4", 2, model="T4"),
                gpu_node("v100", 2, model="V100M32"),
                gpu_pod("p", 1000, models="P100|V100M32"),
            ],
            "best",
            {"ns/p": ("v100", "0")},
            id="model-list",
        ),
        pytest.param(
            [gpu_node("n1", 2), gpu_pod("p", 0)],
            "best",
            {"ns/p": ("n1", None)},
            id="cpu-pod-gets-no-index",
        ),
    ],
)
def test_binds_and_devices(parts, selection, expected):
    harness = Harness(objects(*parts), conf(selection))
    [decisions] = harness.run()
    got = {bind.pod: (bind.node, bind.annotations.get(GPU_INDEX)) for bind in decisions.binds}
    assert got == expected


def test_pending_reason_names_the_devices():
    harness = Harness(
        objects(
            gpu_node("n1", 2),
            gpu_pod("a", 500, node="n1", index="0"),
            gpu_pod("b", 500, node="n1", index="1"),
            gpu_pod("p", 1000),
        ),
        conf(),
    )
    [decisions] = harness.run()
    [pending] = [p for p in decisions.pending if p.pod == "ns/p"]
    assert "node(s) without enough free GPU devices" in pending.reason


def test_snapshot_round_trip_next_cycle_sees_the_devices():
    """The index a bind writes is read back in the next session: the second pod avoids device 1."""
    harness = Harness(objects(gpu_node("n1", 2), gpu_pod("a", 700, index="1")), conf("best"))
    decisions = harness.run(2, changes=[gpu_pod("b", 600)])
    assert binds(decisions[0]) == {"ns/a": "n1"}
    assert [(b.pod, b.annotations[GPU_INDEX]) for b in decisions[1].binds] == [("ns/b", "0")]


def test_pre_assigned_index_is_kept():
    """p names device 1 (best would take device 0): q, asking 700, then only fits device 0."""
    harness = Harness(objects(gpu_node("n1", 2), gpu_pod("p", 400, index="1")), conf("best"))
    decisions = harness.run(2, changes=[gpu_pod("q", 700)])
    assert [(b.pod, b.annotations.get(GPU_INDEX)) for b in decisions[0].binds] == [("ns/p", None)]
    assert [(b.pod, b.annotations[GPU_INDEX]) for b in decisions[1].binds] == [("ns/q", "0")]


def test_same_seed_same_random_devices():
    def run(seed: int) -> list[str]:
        from fumarole.framework.settings import Settings

        parts = [gpu_node("n1", 8), *(gpu_pod(f"p{i}", 300) for i in range(6))]
        harness = Harness(objects(*parts), conf("random"), settings=Settings(seed=seed))
        [decisions] = harness.run()
        return [bind.annotations[GPU_INDEX] for bind in sorted(decisions.binds, key=lambda b: b.pod)]

    assert run(3) == run(3)
    assert len({tuple(run(seed)) for seed in range(4)}) > 1


def test_policy_selector_missing_is_a_clear_error():
    harness = Harness(objects(gpu_node("n1", 2), gpu_pod("p", 300)), conf("fgd-score"))
    [decisions] = harness.run()
    assert decisions.binds == []


# ---------------------------------------------------------------------- discard restores exactly
@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from([100, 250, 500, 1000]), st.sampled_from([1, 2]), st.integers(0, 2)),
        min_size=1,
        max_size=6,
    )
)
def test_discard_leaves_devices_and_annotations_as_they_were(plan):
    pods = []
    for i, (milli, count, _) in enumerate(plan):
        pods.append(gpu_pod(f"p{i}", milli, count if milli == 1000 else 1))
    harness = Harness(
        objects(
            gpu_node("n0", 2),
            gpu_node("n1", 4),
            gpu_node("n2", 8, model="T4"),
            gpu_pod("r", 300, node="n1", index="2"),
            *pods,
        ),
        conf(),
    )
    ssn = harness.open_session()
    devices = session_devices(ssn)
    free_before = devices.free.copy()
    tags_before = {tag: column.copy() for tag, column in devices.tags.items()}
    annotations_before = {f"p{i}": dict(task(ssn, f"p{i}").pod_annotations) for i in range(len(plan))}
    stmt = ssn.statement()
    for i, (_, _, node) in enumerate(plan):
        pod = task(ssn, f"p{i}")
        target = ssn.nodes[f"n{node}"]
        try:
            stmt.allocate(pod, target)
        except RuntimeError:
            continue
    stmt.discard()
    assert devices.free.tolist() == free_before.tolist()
    assert {tag: column.tolist() for tag, column in devices.tags.items() if column.any()} == {
        tag: column.tolist() for tag, column in tags_before.items() if column.any()
    }
    assert devices.holdings == {}
    for i in range(len(plan)):
        pod = task(ssn, f"p{i}")
        assert pod.status == TaskStatus.PENDING
        assert pod.pod_annotations == annotations_before[f"p{i}"]


def test_no_device_is_over_committed_by_allocate():
    parts = [gpu_node("n1", 2), *(gpu_pod(f"p{i}", 400) for i in range(7))]
    harness = Harness(objects(*parts), conf())
    [decisions] = harness.run()
    used: dict[str, int] = {}
    for bind in decisions.binds:
        used[bind.annotations[GPU_INDEX]] = used.get(bind.annotations[GPU_INDEX], 0) + 400
    assert used == {"0": 800, "1": 800}
    assert len(decisions.binds) == 4
