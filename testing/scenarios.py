"""Golden scenarios: a conf, a snapshot and the exact decisions expected, in one YAML document.

A scenario file (``*.yaml``) holds one or more YAML documents, each a scenario::

    name: one Job with two Pods on one node          # the case id (and upstream case name if any)
    source: pkg/scheduler/actions/allocate/allocate_test.go TestAllocate    # where it comes from
    note: free text
    conf: {actions: "allocate", tiers: [...], configurations: [...]}        # the conf inline, or
    conf_file: ../../conf/default.yaml   # a conf file, relative to the scenario file
    defaulting: false        # Volcano's flag defaulting of the conf (default: true, as for a file)
    seed: 0                  # FUMAROLE_SEED for the run (default 0)
    snapshots: [a.yaml]      # snapshot files (relative to the scenario file), read as --snapshot reads them
    objects: [...]           # Kubernetes objects, exactly as in a snapshot file (with snapshots: added)
    changes:                 # objects applied after cycle 1, after cycle 2 … (fumarole schedule --then);
    - [...]                  # an object annotated fumarole.io/delete: "true" is deleted
    cycles: 2                # cycles to run (default: one more than there are changes)
    expect:                  # checked on the last cycle (or expect_cycles: a list, one per cycle)
      binds: {ns/pod: node}  # the exact binds (all of them)
      bind_count: 2          # or only how many (upstream ExpectBindsNum with MinimalBindCheck)
      evictions: [ns/pod]    # the exact evicted pods (as a multiset)
      evict_count: 1
      pipelined: {ns/pod: node}
      nominations: {ns/pod: node}   # pipelined pods for which victims were evicted
      podgroups: {ns/pg: Running}   # PodGroup phases after the job updater (only those listed)
      pending: [ns/pod]        # the exact pods left pending (their reasons are not compared)

Between two cycles the decisions are applied as ``fumarole schedule`` applies them (binds become
Running pods, evicted pods are deleted), then the next ``changes`` entry. The conf is parsed exactly
as a conf file would be (names checked against the installed entry points). Unknown keys, in the
scenario or in an expectation, are errors.

A test module runs every scenario of a folder (sub-folders included)::

    from pathlib import Path
    import pytest
    from fumarole.testing.scenarios import load_scenarios, run_and_check

    HERE = Path(__file__).parent

    @pytest.mark.parametrize(("document", "path"), load_scenarios(HERE))
    def test_scenario(document, path):
        run_and_check(document, path)

Only ``load_scenarios`` imports pytest (to build ``pytest.param`` with ids); the rest of the module
works without it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from fumarole.framework.cache.codec import LoadedFile, check_duplicates, parse_text, read_file
from fumarole.framework.conf import SchedulerConf, load_conf, parse_conf
from fumarole.framework.decisions import CycleDecisions
from fumarole.framework.registry import Registry
from fumarole.framework.settings import Settings

from .harness import Harness

KNOWN_KEYS = frozenset(
    {
        "name",
        "source",
        "note",
        "conf",
        "conf_file",
        "defaulting",
        "seed",
        "cycles",
        "objects",
        "snapshots",
        "changes",
        "expect",
        "expect_cycles",
    }
)
"""The keys a scenario may have."""

EXPECT_KEYS = frozenset(
    {"binds", "bind_count", "evictions", "evict_count", "pipelined", "nominations", "podgroups", "pending"}
)
"""The keys an expectation may have."""

START = 1_000_000.0
"""The clock of the first cycle; each further cycle runs one second later."""


class ScenarioError(ValueError):
    """A scenario document that cannot be run as written."""


@dataclass(frozen=True)
class Scenario:
    """One document of a scenario file, with its id (``<file without .yaml>::<name>``)."""

    document: dict[str, Any]
    path: Path
    id: str


def validate(document: Any, where: str) -> dict[str, Any]:
    """The document, if it is a scenario; ``ScenarioError`` naming ``where`` otherwise."""
    if not isinstance(document, dict):
        raise ScenarioError(f"{where}: a scenario must be a mapping, not {type(document).__name__}")
    unknown = set(document) - KNOWN_KEYS
    if unknown:
        known = ", ".join(sorted(KNOWN_KEYS))
        raise ScenarioError(f"{where}: unknown keys {sorted(unknown)} (known: {known})")
    if ("conf" in document) == ("conf_file" in document):
        raise ScenarioError(f"{where}: give exactly one of conf and conf_file")
    if "objects" not in document and "snapshots" not in document:
        raise ScenarioError(f"{where}: objects: required key is missing (or give snapshots)")
    snapshots = document.get("snapshots", [])
    if not isinstance(snapshots, list) or not all(isinstance(name, str) for name in snapshots):
        raise ScenarioError(f"{where}: snapshots must be a list of file names")
    changes = document.get("changes") or []
    if not isinstance(changes, list) or not all(isinstance(change, list) for change in changes):
        raise ScenarioError(f"{where}: changes must be a list of lists of objects")
    if "expect" in document and "expect_cycles" in document:
        raise ScenarioError(f"{where}: give expect or expect_cycles, not both")
    expectations = document.get("expect_cycles") or [document.get("expect") or {}]
    for expect in expectations:
        unknown = set(expect or {}) - EXPECT_KEYS
        if unknown:
            known = ", ".join(sorted(EXPECT_KEYS))
            raise ScenarioError(f"{where}: unknown expectation keys {sorted(unknown)} (known: {known})")
    return document


def iter_scenarios(folder: str | Path, *, exclude: Sequence[str] = ()) -> Iterator[Scenario]:
    """Every scenario of every ``*.yaml`` file under ``folder``, in path order, validated.

    ``exclude``: sub-folders (relative to ``folder``) left out, e.g. folders with their own test module.
    """
    root = Path(folder)
    skipped = [root / name for name in exclude]
    for path in sorted(root.rglob("*.yaml")):
        if any(path.is_relative_to(skip) for skip in skipped):
            continue
        documents = yaml.safe_load_all(path.read_text(encoding="utf-8"))
        for index, document in enumerate(documents):
            if document is None:
                continue
            validate(document, f"{path}: document {index + 1}")
            name = document.get("name", f"case-{index}")
            yield Scenario(document, path, f"{path.relative_to(root).with_suffix('')}::{name}")


def load_scenarios(folder: str | Path, *, exclude: Sequence[str] = ()) -> list[Any]:
    """``pytest.param(document, path, id=...)`` for every scenario under ``folder`` (see ``iter_scenarios``),
    for ``@pytest.mark.parametrize(("document", "path"), load_scenarios(HERE))``."""
    import pytest

    return [
        pytest.param(scenario.document, scenario.path, id=scenario.id)
        for scenario in iter_scenarios(folder, exclude=exclude)
    ]


def scenario_conf(document: dict[str, Any], path: Path, registry: Registry | None = None) -> SchedulerConf:
    """The scenario's conf: inline, or the file ``conf_file`` names (relative to the scenario file)."""
    registry = registry or Registry()
    defaulting = document.get("defaulting", True)
    if "conf_file" in document:
        return load_conf(path.parent / document["conf_file"], registry, apply_defaults=defaulting)
    return parse_conf(
        yaml.safe_dump(document["conf"]),
        f"{path}:{document.get('name')}",
        registry,
        apply_defaults=defaulting,
        line_numbers=False,
    )


def _objects(objects: list[Any] | None, source: str, *, allow_delete: bool) -> LoadedFile:
    return parse_text(yaml.safe_dump_all(objects or []), source, allow_delete=allow_delete)


def run_scenario(document: dict[str, Any], path: str | Path) -> list[CycleDecisions]:
    """Run the scenario's cycles; return each cycle's decisions."""
    path = Path(path)
    where = f"{path}:{document.get('name', '<unnamed>')}"
    validate(document, where)
    changes = [
        _objects(change, f"{where}: changes[{index}]", allow_delete=True)
        for index, change in enumerate(document.get("changes") or [])
    ]
    cycles = document.get("cycles", len(changes) + 1)
    if cycles < len(changes) + 1:
        raise ScenarioError(f"{where}: cycles {cycles} leaves changes unused ({len(changes)} given)")
    if "expect_cycles" in document and len(document["expect_cycles"]) != cycles:
        given = len(document["expect_cycles"])
        raise ScenarioError(f"{where}: expect_cycles has {given} entries for {cycles} cycles")
    files = [read_file(path.parent / name) for name in document.get("snapshots", [])]
    if "objects" in document:
        files.append(_objects(document["objects"], where, allow_delete=False))
    check_duplicates(files)
    initial = LoadedFile(where, [doc for loaded in files for doc in loaded.documents])
    for loaded in files:
        initial.ignored.update(loaded.ignored)
    harness = Harness(
        initial,
        scenario_conf(document, path),
        settings=Settings(seed=document.get("seed", 0)),
    )
    return harness.run(cycles, START, changes=changes, period=1.0)


def _differs(what: str, got: Any, want: Any) -> AssertionError:
    lines = [f"{what}: got {got!r}", f"{' ' * len(what)}  expected {want!r}"]
    if isinstance(got, dict) and isinstance(want, dict):
        for key in sorted(set(got) | set(want)):
            if got.get(key) != want.get(key):
                lines.append(f"  {key}: got {got.get(key)!r}, expected {want.get(key)!r}")
    return AssertionError("\n".join(lines))


def check(expect: dict[str, Any], decisions: CycleDecisions) -> None:
    """Raise ``AssertionError`` saying what differs when the decisions do not meet ``expect``."""
    unknown = set(expect) - EXPECT_KEYS
    if unknown:
        raise ScenarioError(f"unknown expectation keys {sorted(unknown)}")
    binds = {bind.pod: bind.node for bind in decisions.binds}
    if "binds" in expect:
        if len(decisions.binds) != len(binds):
            raise AssertionError(f"a pod was bound twice: {decisions.binds}")
        if binds != (expect["binds"] or {}):
            raise _differs("binds", binds, expect["binds"] or {})
    if "bind_count" in expect and len(decisions.binds) != expect["bind_count"]:
        raise _differs("bind count", len(decisions.binds), expect["bind_count"])
    evicted = Counter(eviction.pod for eviction in decisions.evictions)
    if "evictions" in expect and evicted != Counter(expect["evictions"] or []):
        raise _differs("evictions", sorted(evicted.elements()), sorted(expect["evictions"] or []))
    if "evict_count" in expect and sum(evicted.values()) != expect["evict_count"]:
        raise _differs("eviction count", sum(evicted.values()), expect["evict_count"])
    for key, placements in (("pipelined", decisions.pipelined), ("nominations", decisions.nominations)):
        if key in expect:
            got = {p.pod: p.node for p in placements}
            if got != (expect[key] or {}):
                raise _differs(key, got, expect[key] or {})
    if "pending" in expect:
        got_pending = sorted(task.pod for task in decisions.pending)
        if got_pending != sorted(expect["pending"] or []):
            raise _differs("pending", got_pending, sorted(expect["pending"] or []))
    if "podgroups" in expect:
        phases = {pg.podgroup: pg.phase for pg in decisions.podgroups}
        listed = {name: phases.get(name) for name in expect["podgroups"]}
        if listed != expect["podgroups"]:
            raise _differs("podgroups", listed, expect["podgroups"])


def run_and_check(document: dict[str, Any], path: str | Path) -> list[CycleDecisions]:
    """Run the scenario and check its expectations (``expect`` on the last cycle, or ``expect_cycles``
    one per cycle); return the decisions."""
    results = run_scenario(document, path)
    if "expect_cycles" in document:
        for cycle, (expect, decisions) in enumerate(zip(document["expect_cycles"], results, strict=True), 1):
            try:
                check(expect or {}, decisions)
            except AssertionError as exc:
                raise AssertionError(f"cycle {cycle}: {exc}") from None
    else:
        check(document.get("expect") or {}, results[-1])
    return results
