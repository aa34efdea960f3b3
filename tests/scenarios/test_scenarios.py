"""Golden scenarios: one runner for every YAML scenario under tests/scenarios/.

A scenario file holds one or more YAML documents, each a scenario::

    name: one Job with two Pods on one node          # the upstream case name when reproduced
    source: pkg/scheduler/actions/allocate/allocate_test.go TestAllocate
    conf: {actions: "allocate", tiers: [...], configurations: [...]}
    defaulting: false        # upstream unit tests never default enable flags (default: true)
    seed: 0                  # FUMAROLE_SEED for the run (default 0)
    cycles: 1                # cycles to run; binds become Running pods between cycles
    objects: [...]           # Kubernetes objects, exactly as in a snapshot file
    expect:                  # checked on the last cycle (or expect_cycles: a list, one per cycle)
      binds: {ns/pod: node}  # the exact binds (all of them)
      bind_count: 2          # or only how many (upstream ExpectBindsNum with MinimalBindCheck)
      evictions: [ns/pod]    # the exact evicted pods (as a multiset)
      evict_count: 1
      pipelined: {ns/pod: node}
      podgroups: {ns/pg: Running}   # PodGroup phases after the job updater (only those listed)

The conf is parsed exactly as a conf file would be (names checked against the installed entry
points), with Volcano's flag defaulting unless ``defaulting: false``.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml
from fumarole.framework.cache import ClusterCache, apply_decisions
from fumarole.framework.cache.codec import parse_text
from fumarole.framework.conf import parse_conf
from fumarole.framework.decisions import CycleDecisions
from fumarole.framework.registry import Registry
from fumarole.framework.scheduler import Scheduler
from fumarole.framework.settings import Settings

HERE = Path(__file__).parent
KNOWN_KEYS = {
    "name",
    "source",
    "conf",
    "defaulting",
    "seed",
    "cycles",
    "objects",
    "expect",
    "expect_cycles",
    "note",
}
EXPECT_KEYS = {"binds", "bind_count", "evictions", "evict_count", "pipelined", "podgroups"}


def load_scenarios() -> list[Any]:
    params = []
    for path in sorted(HERE.rglob("*.yaml")):
        for index, document in enumerate(yaml.safe_load_all(path.read_text(encoding="utf-8"))):
            if document is None:
                continue
            unknown = set(document) - KNOWN_KEYS
            assert not unknown, f"{path}: document {index + 1}: unknown keys {sorted(unknown)}"
            name = document.get("name", f"case-{index}")
            case_id = f"{path.relative_to(HERE).with_suffix('')}::{name}"
            params.append(pytest.param(document, path, id=case_id))
    return params


def run_scenario(document: dict[str, Any], path: Path) -> list[CycleDecisions]:
    registry = Registry()
    conf = parse_conf(
        yaml.safe_dump(document["conf"]),
        f"{path}:{document.get('name')}",
        registry,
        apply_defaults=document.get("defaulting", True),
    )
    settings = Settings(seed=document.get("seed", 0))
    cache = ClusterCache(settings)
    cache.apply_files([parse_text(yaml.safe_dump_all(document["objects"]), str(path))])
    scheduler = Scheduler(conf, cache, registry=registry, settings=settings)
    cycles = document.get("cycles", 1)
    results = []
    for cycle in range(cycles):
        decisions = scheduler.run_once(now=1_000_000.0 + cycle)
        results.append(decisions)
        if cycle < cycles - 1:
            apply_decisions(cache, decisions)
    return results


def check(expect: dict[str, Any], decisions: CycleDecisions) -> None:
    unknown = set(expect) - EXPECT_KEYS
    assert not unknown, f"unknown expectation keys {sorted(unknown)}"
    binds = {bind.pod: bind.node for bind in decisions.binds}
    if "binds" in expect:
        assert len(decisions.binds) == len(binds), f"a pod was bound twice: {decisions.binds}"
        assert binds == (expect["binds"] or {})
    if "bind_count" in expect:
        assert len(decisions.binds) == expect["bind_count"], binds
    evicted = Counter(eviction.pod for eviction in decisions.evictions)
    if "evictions" in expect:
        assert evicted == Counter(expect["evictions"] or [])
    if "evict_count" in expect:
        assert sum(evicted.values()) == expect["evict_count"], evicted
    if "pipelined" in expect:
        assert {p.pod: p.node for p in decisions.pipelined} == (expect["pipelined"] or {})
    if "podgroups" in expect:
        phases = {pg.podgroup: pg.phase for pg in decisions.podgroups}
        assert {name: phases.get(name) for name in expect["podgroups"]} == expect["podgroups"]


@pytest.mark.parametrize(("document", "path"), load_scenarios())
def test_scenario(document: dict[str, Any], path: Path) -> None:
    results = run_scenario(document, path)
    if "expect_cycles" in document:
        expectations = document["expect_cycles"]
        assert len(expectations) == len(results)
        for expect, decisions in zip(expectations, results, strict=True):
            check(expect or {}, decisions)
    else:
        check(document.get("expect") or {}, results[-1])
