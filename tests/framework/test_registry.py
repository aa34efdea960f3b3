"""Finding plugins and actions by entry point (and in-process registration), and when builders run.

The extensions come from a test-only distribution, ``tests/fixtures/testplugins``: the package
``fumarole_testplugins`` and its ``fumarole_testplugins-0.1.dist-info/entry_points.txt``, found by
``importlib.metadata`` once the directory is on ``sys.path``. It declares the plugins ``firstfit``,
``trace-a``/``trace-b``/``trace-c`` (recording builder calls and session open/close), ``broken``
(its module raises ImportError), and the actions ``bindfirst``, ``counting`` and ``broken-action``
(its attribute does not exist).
"""

from __future__ import annotations

import contextlib
import importlib
from importlib import metadata
from pathlib import Path
from types import ModuleType
from typing import Any, ClassVar

import pytest
from fumarole.framework.api.task_status import TaskStatus
from fumarole.framework.cache import ClusterCache
from fumarole.framework.cache.objects import KubeObject
from fumarole.framework.conf import ConfError, PluginOption, SchedulerConf, Tier, parse_conf
from fumarole.framework.interface import PluginArguments
from fumarole.framework.registry import ACTIONS_GROUP, PLUGINS_GROUP, Registry, RegistryError
from fumarole.framework.scheduler import Scheduler
from fumarole.framework.session import Session
from fumarole.framework.settings import Settings
from fumarole.testing import Harness, build_node, build_pod, build_pod_group, build_queue
from stevedore import ExtensionManager

TESTPLUGINS = Path(__file__).resolve().parent.parent / "fixtures" / "testplugins"
TEST_PLUGINS = {"broken", "firstfit", "trace-a", "trace-b", "trace-c"}
TEST_ACTIONS = {"bindfirst", "broken-action", "counting"}
BROKEN_PLUGIN = (
    "fumarole.plugins: entry point 'broken' (fumarole_testplugins.broken:BrokenPlugin) failed to load: "
    "ImportError: fumarole_testplugins.broken needs the uninstalled package 'frobnicate'"
)
BROKEN_ACTION = (
    "fumarole.actions: entry point 'broken-action' (fumarole_testplugins.trace:NoSuchAction) failed to load: "
    "AttributeError: module 'fumarole_testplugins.trace' has no attribute 'NoSuchAction'"
)


def _fresh_entry_point_listing(monkeypatch: pytest.MonkeyPatch) -> None:
    # stevedore keeps each group's entry-point list for the life of the process; start every test
    # from an empty list so that what an earlier test loaded cannot decide what this one finds
    # (test_entry_points_appearing_after_a_first_load_are_loadable shows why the framework needs it).
    monkeypatch.setattr(ExtensionManager, "ENTRY_POINT_CACHE", {})


@pytest.fixture
def trace(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """Put the test distribution on sys.path; return its recording module, cleared."""
    _fresh_entry_point_listing(monkeypatch)
    monkeypatch.syspath_prepend(str(TESTPLUGINS))
    module = importlib.import_module("fumarole_testplugins.trace")
    module.EVENTS.clear()
    module.ACTIONS_BUILT.clear()
    return module


def _conf(
    tiers: list[list[str]], actions: str = "counting", arguments: dict[str, dict[str, Any]] | None = None
) -> SchedulerConf:
    arguments = arguments or {}
    return SchedulerConf(
        actions=actions,
        tiers=[
            Tier(plugins=[PluginOption(name=n, arguments=arguments.get(n, {})) for n in tier])
            for tier in tiers
        ],
    )


def _objects() -> list[KubeObject]:
    """Nodes of 1, 4 and 4 cpu; one job with pods of 2, 2, 2 and 4 cpu."""
    return [
        build_node("n1", {"cpu": "1", "memory": "4Gi", "pods": "10"}),
        build_node("n2", {"cpu": "4", "memory": "4Gi", "pods": "10"}),
        build_node("n3", {"cpu": "4", "memory": "4Gi", "pods": "10"}),
        build_queue("default"),
        build_pod_group("ns", "pg", min_member=1, phase="Inqueue"),
        build_pod("ns", "p-a", group="pg", requests={"cpu": "2"}),
        build_pod("ns", "p-b", group="pg", requests={"cpu": "2"}),
        build_pod("ns", "p-c", group="pg", requests={"cpu": "2"}),
        build_pod("ns", "p-d", group="pg", requests={"cpu": "4"}),
    ]


def _cluster() -> ClusterCache:
    cache = ClusterCache()
    cache.apply_objects(_objects())
    return cache


# ---------------------------------------------------------------------------------------- discovery
def test_the_test_distribution_is_found_through_its_entry_points(trace: ModuleType) -> None:
    registry = Registry()
    assert registry.plugin_names() >= TEST_PLUGINS
    assert registry.action_names() >= TEST_ACTIONS
    assert all(registry.has_plugin(name) for name in TEST_PLUGINS)
    assert registry.has_action("bindfirst")
    assert registry.plugin_builder("trace-a") is trace.TraceA
    assert registry.action_factory("counting") is trace.CountingAction


def test_without_entry_points_only_registered_names_exist(trace: ModuleType) -> None:
    registry = Registry(entry_points=False)
    assert registry.plugin_names() == set()
    assert not registry.has_plugin("firstfit")
    registry.register_plugin("mine", trace.TraceA)
    assert registry.plugin_names() == {"mine"}


# ---------------------------------------------------------------------------------------- order and arguments
def test_builders_run_in_conf_order_at_session_open(trace: ModuleType) -> None:
    registry = Registry()
    conf = parse_conf(
        'actions: "counting"\ntiers:\n- plugins:\n  - name: trace-b\n  - name: trace-a\n'
        "- plugins:\n  - name: trace-c\n",
        "conf.yaml",
        registry,
    )
    Scheduler(conf, ClusterCache(), registry=registry).run_once(now=0.0)
    assert trace.EVENTS == [
        # loading the conf builds each plugin once, to check its arguments and its name
        ("build", "trace-b", {}),
        ("build", "trace-a", {}),
        ("build", "trace-c", {}),
        # then every session builds and opens them in conf order
        ("build", "trace-b", {}),
        ("open", "trace-b", 1),
        ("build", "trace-a", {}),
        ("open", "trace-a", 1),
        ("build", "trace-c", {}),
        ("open", "trace-c", 1),
        ("execute", "counting", 1),
        ("close", "trace-b", 1),
        ("close", "trace-a", 1),
        ("close", "trace-c", 1),
    ]


def test_builders_get_their_arguments_at_every_session_open(trace: ModuleType) -> None:
    arguments = {"trace-a": {"weight": 3, "mode": "spread"}, "trace-c": {"trace.enabled": True}}
    scheduler = Scheduler(
        _conf([["trace-a"], ["trace-c"]], arguments=arguments), ClusterCache(), registry=Registry()
    )
    first = scheduler.open_session(now=0.0)
    first.close()
    second = scheduler.open_session(now=0.0)
    second.close()
    builds = [event for event in trace.EVENTS if event[0] == "build"]
    assert builds == 3 * [  # at load, then at each of the two session opens
        ("build", "trace-a", {"weight": 3, "mode": "spread"}),
        ("build", "trace-c", {"trace.enabled": True}),
    ]
    assert [event for event in trace.EVENTS if event[0] == "open"] == [
        ("open", "trace-a", 1),
        ("open", "trace-c", 1),
        ("open", "trace-a", 2),
        ("open", "trace-c", 2),
    ]
    assert first.plugins["trace-a"] is not second.plugins["trace-a"]
    arguments_seen = second.plugins["trace-a"].arguments
    assert isinstance(arguments_seen, trace.TraceArguments)
    assert arguments_seen is first.plugins["trace-a"].arguments  # validated once, shared, read-only


def test_an_action_is_built_once_per_scheduler_and_runs_every_cycle(trace: ModuleType) -> None:
    scheduler = Scheduler(_conf([["trace-a"]], actions="counting"), ClusterCache(), registry=Registry())
    scheduler.run_once(now=0.0)
    scheduler.run_once(now=0.0)
    assert trace.ACTIONS_BUILT == ["counting"]
    assert [event for event in trace.EVENTS if event[0] == "execute"] == [
        ("execute", "counting", 1),
        ("execute", "counting", 2),
    ]


def test_only_the_names_a_conf_uses_are_loaded(trace: ModuleType) -> None:
    # the broken entry point exists in the same group; a conf that does not name it runs
    scheduler = Scheduler(_conf([["firstfit"]], actions="bindfirst"), _cluster(), registry=Registry())
    assert [type(action).__name__ for action in scheduler.actions] == ["BindFirstAction"]


# ---------------------------------------------------------------------------------------- failures
@pytest.mark.parametrize(
    ("load", "message"),
    [
        pytest.param(lambda r: r.plugin_builder("broken"), BROKEN_PLUGIN, id="plugin-builder"),
        pytest.param(lambda r: r.load(["firstfit", "broken"], ["bindfirst"]), BROKEN_PLUGIN, id="load"),
        pytest.param(
            lambda r: Scheduler(_conf([["trace-a"], ["broken"]]), ClusterCache(), registry=r),
            BROKEN_PLUGIN,
            id="scheduler",
        ),
        pytest.param(lambda r: r.action_factory("broken-action"), BROKEN_ACTION, id="action-factory"),
        pytest.param(
            lambda r: Scheduler(
                _conf([["trace-a"]], actions="counting, broken-action"), ClusterCache(), registry=r
            ),
            BROKEN_ACTION,
            id="scheduler-action",
        ),
    ],
)
def test_a_broken_entry_point_is_an_error_naming_it(trace: ModuleType, load: Any, message: str) -> None:
    with pytest.raises(RegistryError) as info:
        load(Registry())
    assert str(info.value) == message


def test_conf_validation_reports_a_broken_entry_point_at_its_line(trace: ModuleType) -> None:
    with pytest.raises(ConfError) as info:
        parse_conf("actions: counting\ntiers:\n- plugins:\n  - name: broken\n", "c.yaml", Registry())
    assert str(info.value) == f"c.yaml:4: tiers[0].plugins[0].name: {BROKEN_PLUGIN}"


class _Raising:
    name = "raising"

    def __init__(self, arguments: Any) -> None:
        raise ValueError("no room for this plugin")


class _Misnamed(_Raising):
    def __init__(self, arguments: Any) -> None:
        self.name = "someone-else"


@pytest.mark.parametrize(
    ("builder", "message"),
    [
        pytest.param(
            _Raising, "plugin 'raising' failed to build: ValueError: no room for this plugin", id="raises"
        ),
        pytest.param(
            _Misnamed,
            "plugin 'raising' builds a plugin named 'someone-else': a plugin's name must be its entry-point "
            "name 'raising' (its functions are registered under its conf name)",
            id="other-name",
        ),
    ],
)
def test_conf_validation_reports_a_builder_that_fails_at_its_line(builder: Any, message: str) -> None:
    registry = Registry(entry_points=False)
    registry.register_plugin("raising", builder)
    registry.register_action("counting", object)
    with pytest.raises(ConfError) as info:
        parse_conf("actions: counting\ntiers:\n- plugins:\n  - name: raising\n", "c.yaml", registry)
    assert info.value.problems == [f"c.yaml:4: tiers[0].plugins[0].name: {message}"]


def _known(group: str) -> str:
    return ", ".join(sorted({ep.name for ep in metadata.entry_points(group=group)}))


@pytest.mark.parametrize(
    ("lookup", "message"),
    [
        pytest.param(
            lambda r: r.plugin_builder("nope"),
            lambda: f"unknown plugin 'nope' (known: {_known(PLUGINS_GROUP)})",
            id="plugin",
        ),
        pytest.param(
            lambda r: r.action_factory("nope"),
            lambda: f"unknown action 'nope' (known: {_known(ACTIONS_GROUP)})",
            id="action",
        ),
        pytest.param(lambda r: r.policy("nope"), lambda: "unknown policy 'nope'", id="policy"),
        pytest.param(
            lambda r: r.load(["trace-a", "nope"], []),
            lambda: "fumarole.plugins: no entry point named nope",
            id="load-plugin",
        ),
        pytest.param(
            lambda r: r.load([], ["counting", "nope"]),
            lambda: "fumarole.actions: no entry point named nope",
            id="load-action",
        ),
    ],
)
def test_an_unknown_name_is_an_error(trace: ModuleType, lookup: Any, message: Any) -> None:
    with pytest.raises(RegistryError) as info:
        lookup(Registry())
    assert str(info.value) == message()
    assert set(_known(PLUGINS_GROUP).split(", ")) >= TEST_PLUGINS


def test_an_unknown_name_without_entry_points_lists_the_registered_ones(trace: ModuleType) -> None:
    registry = Registry(entry_points=False)
    registry.register_plugin("zeta", type("Zeta", (trace.TraceA,), {"name": "zeta"}))
    registry.register_plugin("alpha", type("Alpha", (trace.TraceB,), {"name": "alpha"}))
    with pytest.raises(RegistryError) as info:
        registry.plugin_builder("firstfit")
    assert str(info.value) == "unknown plugin 'firstfit' (known: alpha, zeta)"


def test_entry_points_appearing_after_a_first_load_are_loadable(monkeypatch: pytest.MonkeyPatch) -> None:
    """A group listed once (here by a failed load) must not hide entry points added to sys.path later:
    the registry says the name exists, so loading it must work."""
    _fresh_entry_point_listing(monkeypatch)
    with contextlib.suppress(RegistryError):
        Registry().load(["not-a-plugin"], [])
    monkeypatch.syspath_prepend(str(TESTPLUGINS))
    registry = Registry()
    assert registry.has_plugin("firstfit")
    assert registry.plugin_builder("firstfit").__name__ == "FirstFitPlugin"


# ------------------------------------------------------------------------------- in-process registration
class _OverrideArguments(PluginArguments):
    k: int = 0


class _Override:
    name = "firstfit"
    arguments_model = _OverrideArguments
    built: ClassVar[list[dict[str, Any]]] = []

    def __init__(self, arguments: _OverrideArguments) -> None:
        _Override.built.append(arguments.model_dump())

    def on_session_open(self, ssn: Session) -> None:
        return None

    def on_session_close(self, ssn: Session) -> None:
        return None


def test_register_plugin_overrides_the_entry_point(trace: ModuleType) -> None:
    _Override.built = []
    registry = Registry()
    registry.register_plugin("firstfit", _Override)
    registry.register_plugin("broken", type("NotBroken", (trace.TraceB,), {"name": "broken"}))
    assert registry.plugin_builder("firstfit") is _Override
    conf = _conf([["firstfit", "broken"]], actions="counting", arguments={"firstfit": {"k": 1}})
    scheduler = Scheduler(conf, _cluster(), registry=registry)
    decisions = scheduler.run_once(now=0.0)
    assert _Override.built == [{"k": 1}, {"k": 1}]  # at load, then at the session open
    assert ("build", "broken", {}) in trace.EVENTS
    assert decisions.binds == []


def test_register_action_overrides_the_entry_point(trace: ModuleType) -> None:
    class Quiet:
        name = "bindfirst"

        def execute(self, ssn: Session) -> None:
            trace.EVENTS.append(("quiet", ssn.cycle))

    registry = Registry()
    registry.register_action("bindfirst", Quiet)
    scheduler = Scheduler(_conf([["firstfit"]], actions="bindfirst"), _cluster(), registry=registry)
    decisions = scheduler.run_once(now=0.0)
    assert trace.EVENTS == [("quiet", 1)]
    assert decisions.binds == []


# ------------------------------------------------------------------------------- the test plugin at work
def test_firstfit_binds_each_task_to_the_first_node_it_fits(trace: ModuleType) -> None:
    harness = Harness(
        _objects(),
        'actions: "bindfirst"\ntiers:\n- plugins:\n  - name: firstfit\n',
    )
    first, second = harness.run(cycles=2)
    assert [(b.pod, b.node, b.action) for b in first.binds] == [
        ("ns/p-a", "n2", "bindfirst"),
        ("ns/p-b", "n2", "bindfirst"),
        ("ns/p-c", "n3", "bindfirst"),
    ]
    assert [p.to_json() for p in first.pending] == [
        {
            "pod": "ns/p-d",
            "podgroup": "ns/pg",
            "reason": "0/3 nodes are unavailable: 3 not enough idle resources.",
        }
    ]
    assert [p.to_json() for p in first.podgroups] == [
        {"podgroup": "ns/pg", "phase": "Inqueue", "conditions": []}
    ]
    assert second.binds == []
    assert [p.to_json() for p in second.podgroups] == [
        {"podgroup": "ns/pg", "phase": "Running", "conditions": []}
    ]
    statuses = {p.key: p.status.phase for p in harness.cache.pods.values()}
    assert statuses == {"ns/p-a": "Running", "ns/p-b": "Running", "ns/p-c": "Running", "ns/p-d": "Pending"}
    assert [p.pod for p in second.pending] == ["ns/p-d"]
    ssn = harness.open_session()
    running = ssn.jobs["ns/pg"].tasks_with(TaskStatus.RUNNING)
    assert sorted((t.name, t.node_name) for t in running.values()) == [
        ("p-a", "n2"),
        ("p-b", "n2"),
        ("p-c", "n3"),
    ]
    assert harness.registry.plugin_builder("firstfit").__module__ == "fumarole_testplugins.firstfit"


# ------------------------------------------------------------------------------- observers
@pytest.mark.parametrize(
    ("observers", "expected"),
    [
        pytest.param(True, {"bindfirst": 3}, id="installed-observer-loaded"),
        pytest.param(False, {}, id="FUMAROLE_OBSERVERS-false-loads-none"),
    ],
)
def test_installed_observers_load_from_their_entry_point_group(
    trace: ModuleType, observers: bool, expected: dict[str, int]
) -> None:
    trace.BIND_COUNTER.binds.clear()
    harness = Harness(
        _objects(),
        'actions: "bindfirst"\ntiers:\n- plugins:\n  - name: firstfit\n',
        settings=Settings(observers=observers),
    )
    decisions = harness.scheduler.run_once(now=0.0)
    assert len(decisions.binds) == 3
    assert trace.BIND_COUNTER.binds == expected
    assert harness.scheduler.hooks.has_plugin("bind-counter") is observers
