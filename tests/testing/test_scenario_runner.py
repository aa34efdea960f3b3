"""fumarole.testing.scenarios: loading a folder, every key of the format, and what a failure says."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from fumarole.framework.cache import SnapshotError
from fumarole.testing.scenarios import (
    ScenarioError,
    check,
    iter_scenarios,
    load_scenarios,
    run_and_check,
    run_scenario,
)

ROOT = Path(__file__).resolve().parents[2]
CONF = {"actions": "allocate", "tiers": [{"plugins": [{"name": "gang"}, {"name": "predicates"}]}]}


def node(name: str, cpu: str = "2") -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name},
        "status": {"allocatable": {"cpu": cpu, "memory": "4Gi", "pods": "110"}},
    }


def pod(name: str, cpu: str = "1", **metadata: Any) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": "ns",
            "annotations": {"scheduling.k8s.io/group-name": "pg"},
            **metadata,
        },
        "spec": {"containers": [{"name": "main", "resources": {"requests": {"cpu": cpu}}}]},
        "status": {"phase": "Pending"},
    }


BASE = [
    node("n1"),
    {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue", "metadata": {"name": "default"}},
    {
        "apiVersion": "scheduling.volcano.sh/v1beta1",
        "kind": "PodGroup",
        "metadata": {"name": "pg", "namespace": "ns"},
        "spec": {"minMember": 1},
        "status": {"phase": "Inqueue"},
    },
    pod("a"),
]


def deleted(name: str) -> dict[str, Any]:
    """The pod ``name`` annotated for deletion (fumarole.io/delete)."""
    return pod(name, annotations={"fumarole.io/delete": "true"})


def scenario(**fields: Any) -> dict[str, Any]:
    return {"name": "s", "conf": CONF, "objects": BASE, **fields}


def write(folder: Path, name: str, *documents: dict[str, Any]) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump_all(documents), encoding="utf-8")
    return path


# ---------------------------------------------------------------------------------------- loading
def test_load_a_folder_with_ids_and_exclusions(tmp_path: Path) -> None:
    write(tmp_path, "b.yaml", scenario(name="one"), scenario(name="two"))
    write(tmp_path, "sub/a.yaml", scenario(name="three"))
    write(tmp_path, "skipped/c.yaml", scenario(name="four"))
    assert [s.id for s in iter_scenarios(tmp_path, exclude=["skipped"])] == [
        "b::one",
        "b::two",
        "sub/a::three",
    ]
    params = load_scenarios(tmp_path)
    assert [p.id for p in params] == ["b::one", "b::two", "skipped/c::four", "sub/a::three"]
    assert params[0].values == (scenario(name="one"), tmp_path / "b.yaml")


@pytest.mark.parametrize(
    ("document", "message"),
    [
        pytest.param(scenario(expected={}), "unknown keys ['expected']", id="unknown-key"),
        pytest.param(
            scenario(expect={"bind": {}}), "unknown expectation keys ['bind']", id="unknown-expectation"
        ),
        pytest.param(
            scenario(expect_cycles=[{}, {"evicts": []}]),
            "unknown expectation keys ['evicts']",
            id="unknown-expectation-of-a-cycle",
        ),
        pytest.param(scenario(conf_file="x.yaml"), "exactly one of conf and conf_file", id="both-confs"),
        pytest.param({"name": "s", "objects": []}, "exactly one of conf and conf_file", id="no-conf"),
        pytest.param({"name": "s", "conf": CONF}, "objects: required key is missing", id="no-objects"),
        pytest.param(
            {"name": "s", "conf": CONF, "snapshots": "a.yaml"},
            "snapshots must be a list of file names",
            id="snapshots-not-a-list",
        ),
        pytest.param(scenario(changes=[pod("x")]), "changes must be a list of lists", id="changes-not-lists"),
        pytest.param(scenario(expect={}, expect_cycles=[{}]), "expect or expect_cycles", id="both-expects"),
        pytest.param(["not", "a", "mapping"], "a scenario must be a mapping", id="not-a-mapping"),
    ],
)
def test_invalid_scenarios_fail_at_load(tmp_path: Path, document: Any, message: str) -> None:
    path = write(tmp_path, "bad.yaml", document)
    with pytest.raises(ScenarioError, match=message.replace("[", r"\[").replace("]", r"\]")) as info:
        list(iter_scenarios(tmp_path))
    assert str(info.value).startswith(f"{path}: document 1: ")


def test_run_refuses_an_invalid_document_too(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match="unknown keys"):
        run_scenario(scenario(cycle=2), tmp_path / "x.yaml")


# ---------------------------------------------------------------------------------------- running
def test_conf_file_is_relative_to_the_scenario(tmp_path: Path) -> None:
    (tmp_path / "confs").mkdir()
    (tmp_path / "confs" / "mine.yaml").write_text(yaml.safe_dump(CONF), encoding="utf-8")
    document = {
        "name": "s",
        "conf_file": "../confs/mine.yaml",
        "objects": BASE,
        "expect": {"binds": {"ns/a": "n1"}},
    }
    path = write(tmp_path, "scenarios/s.yaml", document)
    [decisions] = run_and_check(document, path)
    assert [b.pod for b in decisions.binds] == ["ns/a"]


def test_shipped_conf_file_with_defaulting(tmp_path: Path) -> None:
    document = {
        "name": "s",
        "conf_file": str(ROOT / "conf" / "default.yaml"),
        "objects": BASE,
        "expect": {"binds": {"ns/a": "n1"}, "podgroups": {"ns/pg": "Inqueue"}},
    }
    run_and_check(document, tmp_path / "s.yaml")


def test_changes_between_cycles_with_a_deletion(tmp_path: Path) -> None:
    document = scenario(
        changes=[
            [pod("b", cpu="2"), node("n2")],
            [deleted("a")],
        ],
        expect_cycles=[{"binds": {"ns/a": "n1"}}, {"binds": {"ns/b": "n2"}}, {"binds": {}, "evictions": []}],
    )
    results = run_and_check(document, tmp_path / "s.yaml")
    assert len(results) == 3


def test_cycles_must_use_every_change(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match="leaves changes unused"):
        run_scenario(scenario(cycles=1, changes=[[node("n2")]]), tmp_path / "s.yaml")


def test_expect_cycles_must_match_the_cycles(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match="expect_cycles has 1 entries for 2 cycles"):
        run_scenario(scenario(cycles=2, expect_cycles=[{}]), tmp_path / "s.yaml")


def test_deletions_only_in_changes(tmp_path: Path) -> None:
    with pytest.raises(SnapshotError, match="deletions are only allowed in changes"):
        run_scenario(scenario(objects=[*BASE, deleted("x")]), tmp_path / "s.yaml")


def test_the_seed_reaches_the_run(tmp_path: Path) -> None:
    # Two equal nodes: the seeded tie-break picks one, the same one for the same seed.
    objects = [*BASE, node("n2")]
    picks = {
        seed: run_scenario(scenario(objects=objects, seed=seed), tmp_path / "s.yaml")[0].binds[0].node
        for seed in range(8)
    }
    assert set(picks.values()) == {"n1", "n2"}
    again = run_scenario(scenario(objects=objects, seed=3), tmp_path / "s.yaml")[0].binds[0].node
    assert again == picks[3]


# ---------------------------------------------------------------------------------------- checking
@pytest.mark.parametrize(
    ("expect", "message"),
    [
        pytest.param({"binds": {"ns/a": "n2"}}, "ns/a: got 'n1', expected 'n2'", id="binds"),
        pytest.param({"bind_count": 2}, "bind count: got 1", id="bind-count"),
        pytest.param({"evictions": ["ns/a"]}, "evictions: got []", id="evictions"),
        pytest.param({"evict_count": 1}, "eviction count: got 0", id="evict-count"),
        pytest.param({"pipelined": {"ns/a": "n1"}}, "pipelined: got {}", id="pipelined"),
        pytest.param({"nominations": {"ns/a": "n1"}}, "nominations: got {}", id="nominations"),
        pytest.param(
            {"podgroups": {"ns/pg": "Running"}}, "podgroups: got {'ns/pg': 'Inqueue'}", id="podgroups"
        ),
        pytest.param({"pending": ["ns/a"]}, "pending: got []", id="pending"),
    ],
)
def test_check_says_what_differs(tmp_path: Path, expect: dict[str, Any], message: str) -> None:
    [decisions] = run_scenario(scenario(), tmp_path / "s.yaml")
    with pytest.raises(AssertionError, match=message.replace("[", r"\[").replace("{", r"\{")):
        check(expect, decisions)


def test_check_passes_on_exact_decisions(tmp_path: Path) -> None:
    [decisions] = run_scenario(scenario(), tmp_path / "s.yaml")
    check(
        {
            "binds": {"ns/a": "n1"},
            "bind_count": 1,
            "evictions": [],
            "evict_count": 0,
            "pipelined": {},
            "nominations": {},
            "podgroups": {"ns/pg": "Inqueue"},
            "pending": [],
        },
        decisions,
    )


def test_snapshot_files_are_read_like_snapshots_and_merged_with_objects(tmp_path: Path) -> None:
    (tmp_path / "cluster").mkdir()
    (tmp_path / "cluster" / "base.yaml").write_text(yaml.safe_dump_all(BASE[1:]))
    document = {
        "name": "s",
        "conf": CONF,
        "snapshots": ["cluster/base.yaml"],
        "objects": [BASE[0], pod("b", "5")],
    }
    run_and_check(document | {"expect": {"binds": {"ns/a": "n1"}, "pending": ["ns/b"]}}, tmp_path / "s.yaml")


def test_an_object_both_in_a_snapshot_file_and_inline_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "base.yaml").write_text(yaml.safe_dump_all(BASE))
    document = {"name": "s", "conf": CONF, "snapshots": ["base.yaml"], "objects": [BASE[0]]}
    with pytest.raises(SnapshotError, match="Node n1: duplicate object"):
        run_scenario(document, tmp_path / "s.yaml")


def test_a_failing_cycle_is_named(tmp_path: Path) -> None:
    document = scenario(cycles=2, expect_cycles=[{"binds": {"ns/a": "n1"}}, {"binds": {"ns/a": "n1"}}])
    with pytest.raises(AssertionError, match=r"^cycle 2: binds: "):
        run_and_check(document, tmp_path / "s.yaml")
