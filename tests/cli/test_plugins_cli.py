"""``fumarole plugins list``, run as a user runs it, with fumarole's own entry points plus a test-only
distribution holding an extension of every kind (tests/fixtures/inventoryplugins, see its module
docstring): plugins ``typed``, ``needy`` (a required argument), ``crashy`` (its session open raises),
``misnamed``; action ``tuned``; policy ``card-x``; observers ``counter`` and ``gone`` (not loadable)."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest

from fumarole.cli import main

Run = Callable[..., subprocess.CompletedProcess[str]]
FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "inventoryplugins"
TEST_DIST = {"distribution": "fumarole-inventory-test", "version": "0.2"}
VERSION = metadata.version("fumarole")


def _plugin(name: str, points: list[str] | None, arguments: list[Any], error: str | None) -> dict[str, Any]:
    return {
        "kind": "plugin",
        "name": name,
        **TEST_DIST,
        "entry_point": f"fumarole_inventory_test:{name.capitalize()}Plugin",
        "extension_points": points,
        "arguments": arguments,
        "error": error,
    }


def _argument(key: str, type_: str, default: Any = None, required: bool = False) -> dict[str, Any]:
    return {"key": key, "type": type_, "default": default, "required": required}


TEST_EXTENSIONS = [
    {
        "kind": "action",
        "name": "tuned",
        **TEST_DIST,
        "entry_point": "fumarole_inventory_test:TunedAction",
        "arguments": [_argument("tuned.depth", "int", 3), _argument("strategy", '"first" | "best"', "best")],
        "error": None,
    },
    {
        "kind": "observer",
        "name": "counter",
        **TEST_DIST,
        "entry_point": "fumarole_inventory_test:counter",
        "error": None,
    },
    {
        "kind": "observer",
        "name": "gone",
        **TEST_DIST,
        "entry_point": "fumarole_inventory_test:no_such_observer",
        "error": "failed to load: AttributeError: module 'fumarole_inventory_test' has no attribute "
        "'no_such_observer'",
    },
    _plugin(
        "crashy",
        None,
        [],
        "on_session_open failed on an empty cluster: RuntimeError: crashy cannot open on this cluster",
    ),
    _plugin(
        "misnamed",
        None,
        [],
        "plugin 'misnamed' builds a plugin named 'someone-else': a plugin's name must be its entry-point "
        "name 'misnamed' (its functions are registered under its conf name)",
    ),
    _plugin(
        "needy",
        None,
        [_argument("needy.size", "int", required=True)],
        "cannot be built with its default arguments: arguments.needy.size: required key is missing",
    ),
    _plugin(
        "typed",
        # cluster_order is registered too, but enabledClusterOrder is not defaulted: not consulted
        ["job_order", "predicate", "node_order", "batch_node_order"],
        [
            _argument("typed.mode", '"fast" | "exact"', "fast"),
            _argument("typed.limit", "float"),
            _argument("typed.names", "list[str]", ["a", "b"]),
            _argument("weights", "dict[str, int]", {}),
            _argument("typed.weight.<resource>", "int"),
        ],
        None,
    ),
    {
        "kind": "policy",
        "name": "card-x",
        **TEST_DIST,
        "entry_point": "fumarole_inventory_test:CardX",
        "error": None,
    },
]


def _fumarole_entry(kind: str, name: str, value: str, **rest: Any) -> dict[str, Any]:
    return {
        "kind": kind,
        "name": name,
        "distribution": "fumarole",
        "version": VERSION,
        "entry_point": value,
        **rest,
        "error": None,
    }


BUILT_IN = {
    ("action", "enqueue"): _fumarole_entry(
        "action", "enqueue", "fumarole.actions.enqueue:EnqueueAction", arguments=[]
    ),
    ("action", "allocate"): _fumarole_entry(
        "action",
        "allocate",
        "fumarole.actions.allocate:AllocateAction",
        arguments=[
            _argument("predicateErrorCacheEnable", "bool", True),
            _argument("enablePredicateErrorCache", "bool"),
        ],
    ),
    ("plugin", "binpack"): _fumarole_entry(
        "plugin",
        "binpack",
        "fumarole.plugins.binpack:BinpackPlugin",
        extension_points=["batch_node_order"],
        arguments=[
            _argument("binpack.weight", "int", 1),
            _argument("binpack.cpu", "int", 1),
            _argument("binpack.memory", "int", 1),
            _argument("binpack.resources", "str", ""),
            _argument("binpack.resources.<name>", "int"),
        ],
    ),
    ("plugin", "conformance"): _fumarole_entry(
        "plugin",
        "conformance",
        "fumarole.plugins.conformance:ConformancePlugin",
        extension_points=["preemptable", "reclaimable", "unified_evictable"],
        arguments=[],
    ),
    ("policy", "ascend310p"): _fumarole_entry(
        "policy", "ascend310p", "fumarole.policies.card.ascend310p:Ascend310PPolicy"
    ),
}


def _listed(fumarole: Run, *args: str) -> list[dict[str, Any]]:
    result = fumarole("plugins", "list", *args, paths=(FIXTURE,))
    assert (result.returncode, result.stderr) == (0, "")
    listed: list[dict[str, Any]] = json.loads(result.stdout)
    return listed


def test_json_lists_every_entry_point_sorted_by_kind_then_name(fumarole: Run) -> None:
    listed = _listed(fumarole)
    groups = {"action": "actions", "observer": "observers", "plugin": "plugins", "policy": "policies"}
    installed = sorted(
        (kind, entry_point.name)
        for kind, group in groups.items()
        for entry_point in metadata.entry_points(group=f"fumarole.{group}")
    )
    test_names = [(entry["kind"], entry["name"]) for entry in TEST_EXTENSIONS]
    assert [(entry["kind"], entry["name"]) for entry in listed] == sorted(installed + test_names)


def test_json_describes_the_test_distribution_exactly(fumarole: Run) -> None:
    listed = _listed(fumarole, "--format", "json")
    assert [
        entry for entry in listed if entry["distribution"] == "fumarole-inventory-test"
    ] == TEST_EXTENSIONS


@pytest.mark.parametrize(("kind", "name"), [pytest.param(*key, id="-".join(key)) for key in BUILT_IN])
def test_json_describes_built_ins(fumarole: Run, kind: str, name: str) -> None:
    listed = _listed(fumarole)
    assert [entry for entry in listed if (entry["kind"], entry["name"]) == (kind, name)] == [
        BUILT_IN[kind, name]
    ]


def test_no_built_in_fails_to_load_or_open(fumarole: Run) -> None:
    listed = _listed(fumarole)
    assert [entry["name"] for entry in listed if entry["distribution"] == "fumarole" and entry["error"]] == []
    plugins = [entry for entry in listed if entry["kind"] == "plugin" and entry["distribution"] == "fumarole"]
    assert all(entry["extension_points"] for entry in plugins)


def _rows(stdout: str) -> list[str]:
    return [" ".join(line.replace("│", " ").split()) for line in stdout.splitlines() if line.startswith("│")]


def test_table_format(fumarole: Run) -> None:
    result = fumarole("plugins", "list", "--format", "table", paths=(FIXTURE,), env={"COLUMNS": "400"})
    assert (result.returncode, result.stderr) == (0, "")
    lines = [line.strip() for line in result.stdout.splitlines()]
    assert [line for line in lines if line in ("Plugins", "Actions", "Policies", "Observers")] == [
        "Plugins",
        "Actions",
        "Policies",
        "Observers",
    ]
    rows = _rows(result.stdout)
    assert "binpack fumarole " + VERSION + " batch_node_order binpack.weight: int = 1" in rows
    assert "binpack.resources.<name>: int = unset" in rows
    assert (
        "typed fumarole-inventory-test 0.2 job_order, predicate, node_order, batch_node_order "
        'typed.mode: "fast" | "exact" = "fast"'
    ) in rows
    assert 'typed.names: list[str] = ["a", "b"]' in rows
    assert (
        "needy fumarole-inventory-test 0.2 error: cannot be built with its default arguments: "
        "arguments.needy.size: required key is missing needy.size: int = required"
    ) in rows
    assert "tuned fumarole-inventory-test 0.2 tuned.depth: int = 3" in rows
    assert "card-x fumarole-inventory-test 0.2 fumarole_inventory_test:CardX" in rows
    assert "gone fumarole-inventory-test 0.2 fumarole_inventory_test:no_such_observer" in rows
    assert (
        "error: failed to load: AttributeError: module 'fumarole_inventory_test' has no attribute "
        "'no_such_observer'"
    ) in rows


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_terminal_gets_the_table(monkeypatch: pytest.MonkeyPatch) -> None:
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stdout", terminal)
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.delenv("FUMAROLE_LOG_LEVEL", raising=False)
    assert main(["plugins", "list"]) == 0
    output = re.sub(r"\x1b\[[0-9;]*m", "", terminal.getvalue())  # rich styles a terminal's output
    assert output.splitlines()[0].strip() == "Plugins"
    assert any(row.startswith("gang fumarole") for row in _rows(output))
