"""The corpus of real confs (tests/fixtures/confs/README.md, and the reference confs of
tests/fixtures/manifests/): each loads, with exactly the warnings listed here, or fails with exactly
the error listed here; and the Ascend plugin's confs schedule a small 910B training job as the shipped
confs do where their plugins agree.

"Agree" is compared, not assumed: the job of
tests/scenarios/confs/npu-inference-training/test_restart_returns_to_cached_nodes.yaml (two ranks of
four chips, restarted by their controller after cycle 1) runs under every Ascend conf and under
conf/npu-inference-training.yaml (the affinity cache on) and its baseline (cache off). A conf with the
Ascend plugin and ``prefer-previous-node: "true"`` decides as npu-inference-training does in both
cycles; one without that key, or with ``"false"`` (upstream's default), as the baseline; the plain
upstream conf once shipped by the Ascend repository (no Ascend plugin) places the first cycle alike and
the restart elsewhere, which the table pins.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import yaml
from fumarole.framework.conf import ConfError, load_conf
from fumarole.framework.diagnostics import Code
from fumarole.framework.registry import Registry
from fumarole.testing.scenarios import run_scenario

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "fixtures" / "confs"
MANIFESTS = ROOT / "tests" / "fixtures" / "manifests"
SCENARIO = (
    ROOT
    / "tests"
    / "scenarios"
    / "confs"
    / "npu-inference-training"
    / "test_restart_returns_to_cached_nodes.yaml"
)

GPU_SHARING = (
    "predicates argument predicate.GPUSharingEnable is obsolete: read by Volcano v1.5.0 to v1.8.x; since "
    "v1.9.0 the deviceshare plugin reads deviceshare.GPUSharingEnable; ignored"
)
GPU_NUMBER = (
    "predicates argument predicate.GPUNumberEnable is obsolete: read by Volcano v1.7.0 to v1.8.x; since "
    "v1.9.0 the deviceshare plugin reads deviceshare.GPUNumberEnable; ignored"
)
ACTIONS = ["enqueue", "allocate", "backfill"]
NPU = "volcano-npu_v6.0.RC1_linux-x86_64"
ASCEND_TIER_2 = ["drf", "predicates", "proportion", "nodeorder", "binpack"]
ASCEND_V9 = [["priority", "gang", "conformance", NPU], ASCEND_TIER_2]
ASCEND_V12 = [["gang", NPU, "priority", "conformance"], ASCEND_TIER_2]
UPSTREAM = [["priority", "gang", "conformance"], ["overcommit", *ASCEND_TIER_2]]


@dataclass(frozen=True)
class Case:
    path: Path
    tiers: list[list[str]]
    warnings: list[tuple[int, Code, str]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    """Without ``--skip-unsupported``: the entries it names that fumarole lacks (``{path}``: the file)."""
    actions: list[str] = field(default_factory=lambda: ACTIONS)
    cache: bool | None = None
    """For an Ascend conf: whether it turns the affinity cache on (None: no Ascend plugin)."""


def _gpu(path: str, line: int, tiers: list[list[str]], *, cache: bool) -> Case:
    warned = [(line, Code.OBSOLETE_KEY, GPU_SHARING), (line + 1, Code.OBSOLETE_KEY, GPU_NUMBER)]
    return Case(CORPUS / path, tiers, warned, cache=cache)


CASES = [
    _gpu("ascend/volcano-v1.9.0.yaml", 23, ASCEND_V9, cache=True),
    _gpu("ascend/volcano-v1.12.0.yaml", 25, ASCEND_V12, cache=True),
    _gpu("ascend/volcano-v1.15.0.yaml", 25, ASCEND_V12, cache=True),
    _gpu("ascend/configmaps/volcano-v1.9.0-scheduler-configmap.yaml", 27, ASCEND_V9, cache=True),
    _gpu("ascend/configmaps/volcano-v1.12.0-scheduler-configmap.yaml", 29, ASCEND_V12, cache=True),
    _gpu("ascend/configmaps/volcano-v1.15.0-scheduler-configmap.yaml", 29, ASCEND_V12, cache=True),
    _gpu("ascend/installer-v1.15.0-excerpt.yaml", 288, ASCEND_V12, cache=True),
    _gpu("ascend/history/2024-10-07_volcano-v1.7.0_d894bbca61.yaml", 23, ASCEND_V9, cache=False),
    _gpu("ascend/history/2025-06-04_volcano-v1.7.0_bde2cd7cc7.yaml", 23, ASCEND_V9, cache=False),
    _gpu("ascend/history/2025-09-09_volcano-v1.7.0_945d1ccbc5.yaml", 23, ASCEND_V9, cache=False),
    _gpu("ascend/history/2025-09-09_volcano-v1.9.0_945d1ccbc5.yaml", 23, ASCEND_V9, cache=False),
    _gpu("ascend/history/2026-05-29_volcano-v1.7.0_b7ebe0b402.yaml", 23, ASCEND_V9, cache=False),
    Case(CORPUS / "ascend/history/2026-06-08_volcano-v1.12.0_c9f1b9fab4.yaml", UPSTREAM),
    _gpu("ascend/history/2026-06-11_volcano-v1.7.0_bcc0716ca8.yaml", 23, ASCEND_V9, cache=False),
    _gpu("ascend/history/2026-06-13_volcano-v1.12.0_55bb4a5836.yaml", 27, ASCEND_V12, cache=False),
    _gpu("ascend/history/2026-06-16_volcano-v1.12.0_84c202d6a0.yaml", 27, ASCEND_V12, cache=True),
    Case(CORPUS / "volcano/installer-configmap.yaml", UPSTREAM),
    Case(CORPUS / "volcano/installer-development-excerpt.yaml", UPSTREAM),
    Case(
        CORPUS / "volcano/volcano-scheduler-ci.conf",
        [["priority", "gang", "conformance"], [*UPSTREAM[1], "network-topology-aware"]],
        [
            (
                11,
                Code.UNSUPPORTED_SKIPPED,
                "plugin 'sla' skipped (--skip-unsupported): a Volcano plugin (since v1.5.0) that fumarole "
                "does not implement",
            ),
            (
                18,
                Code.OBSOLETE_KEY,
                "predicates argument predicate.DynamicResourceAllocationEnable is obsolete: read by Volcano "
                "v1.12.0 to v1.14.x; since v1.15.0 Kubernetes' DynamicResourceAllocation feature gate "
                "decides; ignored",
            ),
        ],
        problems=[
            "{path}:11: tiers[0].plugins[3].name: 'sla' is a Volcano plugin (since v1.5.0) that fumarole "
            "does not implement; --skip-unsupported (FUMAROLE_SKIP_UNSUPPORTED=true) skips it"
        ],
        actions=["enqueue", "allocate", "backfill", "reclaim", "preempt"],
    ),
    Case(MANIFESTS / "scheduler-config-benchmark-gang.yaml", UPSTREAM),
    # Volcano's design doc spells the gang actions gangPreempt / gangReclaim (seed 002 too); Volcano
    # registers them lower-case and rejects this conf; fumarole matches action names in any case.
    Case(
        MANIFESTS / "scheduler-config-gangpreempt.yaml",
        [["gang", "priority", "drf", "predicates", "nodeorder", "binpack"]],
        actions=["allocate", "backfill", "gangpreempt", "gangreclaim"],
    ),
]
FAILING = {
    MANIFESTS / "fgd-test-scheduler-config.yaml": [
        "{path}:3: kind: a kube-scheduler KubeSchedulerConfiguration, not a Volcano scheduler conf (a "
        "Volcano conf has actions and tiers of plugins)"
    ],
}
"""Reference confs that do not load, and why (Volcano would not run them either)."""


def _id(path: Path) -> str:
    return str(path.relative_to(ROOT / "tests" / "fixtures"))


@pytest.fixture(scope="module")
def registry() -> Registry:
    return Registry()


def test_the_table_covers_the_whole_corpus() -> None:
    listed = {case.path for case in CASES} | set(FAILING)
    corpus = {path for path in CORPUS.rglob("*") if path.is_file() and path.name != "README.md"}
    reference = set(MANIFESTS.glob("scheduler-config-*.yaml")) | {
        MANIFESTS / "fgd-test-scheduler-config.yaml"
    }
    assert listed == corpus | reference


@pytest.mark.parametrize("case", [pytest.param(case, id=_id(case.path)) for case in CASES])
def test_each_conf_loads_with_exactly_its_warnings(registry: Registry, case: Case) -> None:
    conf = load_conf(case.path, registry, skip_unsupported=bool(case.problems))
    assert conf.action_names == case.actions
    assert [[plugin.name for plugin in tier.plugins] for tier in conf.tiers] == case.tiers
    expected = [(code, f"{case.path}:{line}", text) for line, code, text in case.warnings]
    assert [(d.code, d.subject, d.text) for d in conf.diagnostics] == expected
    assert "predicate.GPU" not in conf.to_text()  # the conf as fumarole reads it


@pytest.mark.parametrize("case", [pytest.param(case, id=_id(case.path)) for case in CASES if case.problems])
def test_without_skip_unsupported_the_lacking_entries_are_errors(registry: Registry, case: Case) -> None:
    with pytest.raises(ConfError) as info:
        load_conf(case.path, registry)
    assert info.value.problems == [problem.format(path=case.path) for problem in case.problems]


@pytest.mark.parametrize(("path", "problems"), [pytest.param(p, m, id=_id(p)) for p, m in FAILING.items()])
@pytest.mark.parametrize("skip", [False, True], ids=["", "skip-unsupported"])
def test_reference_confs_that_do_not_load(
    registry: Registry, path: Path, problems: list[str], skip: bool
) -> None:
    with pytest.raises(ConfError) as info:
        load_conf(path, registry, skip_unsupported=skip)
    assert info.value.problems == [problem.format(path=path) for problem in problems]


# ---------------------------------------------------------------------------------------- a 910B job
def _binds(conf_path: Path) -> list[dict[str, str]]:
    document = copy.deepcopy(yaml.safe_load(SCENARIO.read_text()))
    document["conf_file"] = str(conf_path)
    return [{bind.pod: bind.node for bind in cycle.binds} for cycle in run_scenario(document, SCENARIO)]


@pytest.fixture(scope="module")
def shipped() -> dict[bool, list[dict[str, str]]]:
    """The decisions of the shipped confs: cache on (npu-inference-training) and off (its baseline)."""
    return {
        True: _binds(ROOT / "conf" / "npu-inference-training.yaml"),
        False: _binds(ROOT / "conf" / "npu-inference-training-baseline.yaml"),
    }


def test_the_shipped_confs_differ_on_the_restart(shipped: dict[bool, list[dict[str, str]]]) -> None:
    placed = {"default/job-a-worker-0": "node-1", "default/job-a-worker-1": "node-0"}
    assert shipped[True] == [placed, placed]
    assert shipped[False] == [
        placed,
        {"default/job-a-worker-0": "node-1", "default/job-a-worker-1": "node-2"},
    ]


ASCEND = [case for case in CASES if "ascend" in case.path.parts]


@pytest.mark.parametrize("case", [pytest.param(case, id=_id(case.path)) for case in ASCEND])
def test_the_ascend_confs_schedule_a_910b_job_as_the_shipped_confs_do(
    shipped: dict[bool, list[dict[str, str]]], case: Case
) -> None:
    binds = _binds(case.path)
    if case.cache is not None:
        assert binds == shipped[case.cache]
    else:  # no Ascend plugin: the same first placement; the restart ignores the ranks' previous nodes
        assert binds == [
            shipped[True][0],
            {"default/job-a-worker-0": "node-2", "default/job-a-worker-1": "node-0"},
        ]
