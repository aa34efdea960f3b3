"""``fumarole.testing``: test a plugin, an action or a whole conf without a cluster.

Quick guide for plugin authors
==============================

**Objects.** ``build_node``, ``build_pod``, ``build_pod_group``, ``build_queue``,
``build_priority_class`` and ``build_hyper_node`` build Kubernetes objects in one line with
Volcano's defaults (a PodGroup is Inqueue in queue ``default``; ``build_pod(..., group="pg")`` sets
the ``scheduling.k8s.io/group-name`` annotation)::

    objects = [
        build_node("n1", {"cpu": "4", "memory": "8Gi", "pods": "110"}, labels={"disk": "ssd"}),
        build_queue("default"),
        build_pod_group("ns", "pg", min_member=2),
        build_pod("ns", "p0", group="pg", requests={"cpu": "1"}),
        build_pod("ns", "p1", group="pg", requests={"cpu": "1"}),
    ]

**A session with your plugin.** ``Harness(objects, conf)`` puts the objects in a cache and builds a
scheduler. The conf is YAML text, a ``Path`` to a conf file, a ``SchedulerConf`` or just tiers;
``plugins=`` / ``actions=`` register builders that are not installed (yet)::

    harness = Harness(objects, [[PluginOption(name="my-plugin", enabled_node_order=True)]],
                      plugins={"my-plugin": MyPlugin})
    ssn = harness.open_session()                 # the "noop" action: nothing runs
    assert ssn.job_ready(ssn.jobs["ns/pg"])      # ask any extension point
    p0 = task(ssn, "p0")                         # a TaskInfo by pod name (or "ns/p0")

Tiers built in code keep unset enable flags off, as Volcano's unit tests do; YAML text and conf
files get Volcano's defaulting (every unset flag on). ``defaulting=`` overrides either.

**Whole cycles.** ``harness.run(cycles, changes=[...])`` runs cycles as ``fumarole schedule`` does,
applying each cycle's decisions (and the next change set) before the next one, and returns each
cycle's ``CycleDecisions``; ``binds``, ``evictions``, ``pipelined`` and ``nominations`` read them::

    harness = Harness(objects, build_conf([["gang", "predicates"], ["my-plugin"]], actions="allocate",
                                          defaulting=True), plugins={"my-plugin": MyPlugin})
    [decisions] = harness.run()
    assert binds(decisions) == {"ns/p0": "n1", "ns/p1": "n1"}

**pytest fixtures** (this package is a pytest plugin, loaded wherever fumarole is installed):
``fumarole_harness(objects, conf, **kwargs)`` builds a ``Harness``; ``fumarole_logs`` is the list of
messages fumarole logged during the test.

**Golden scenarios.** YAML files holding a conf (inline or ``conf_file:``), objects, changes between
cycles and the exact expected binds / evictions / pipelined / nominations (``fumarole.testing.
scenarios`` documents the format). Point the runner at your own folder::

    @pytest.mark.parametrize(("document", "path"), load_scenarios(Path(__file__).parent / "scenarios"))
    def test_scenario(document, path):
        run_and_check(document, path)

**Stand-ins.** ``NoopAction`` (an action that does nothing) and ``fake_plugin(name, on_open)`` (a
plugin made of one function) for tests of the framework's rules.

Importing ``fumarole.testing`` does not import pytest; only the fixtures (``fumarole.testing.plugin``)
and ``load_scenarios`` need it. The names are imported on first use (PEP 562): pytest loads the
plugin at start-up, before pytest-cov starts measuring, and the plugin imports nothing of fumarole
until a fixture is used.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fumarole.framework.cache.builders import (
        GROUP_NAME,
        build_hyper_node,
        build_node,
        build_pod,
        build_pod_group,
        build_priority_class,
        build_queue,
    )

    from .fakes import NoopAction, fake_plugin
    from .harness import ConfLike, Harness, Tiers, build_conf
    from .readers import binds, evictions, names, nominations, pipelined, task
    from .scenarios import (
        Scenario,
        ScenarioError,
        check,
        iter_scenarios,
        load_scenarios,
        run_and_check,
        run_scenario,
    )

_EXPORTS = {
    **dict.fromkeys(
        (
            "GROUP_NAME",
            "build_hyper_node",
            "build_node",
            "build_pod",
            "build_pod_group",
            "build_priority_class",
            "build_queue",
        ),
        "fumarole.framework.cache.builders",
    ),
    **dict.fromkeys(("NoopAction", "fake_plugin"), "fumarole.testing.fakes"),
    **dict.fromkeys(("ConfLike", "Harness", "Tiers", "build_conf"), "fumarole.testing.harness"),
    **dict.fromkeys(
        ("binds", "evictions", "names", "nominations", "pipelined", "task"), "fumarole.testing.readers"
    ),
    **dict.fromkeys(
        (
            "Scenario",
            "ScenarioError",
            "check",
            "iter_scenarios",
            "load_scenarios",
            "run_and_check",
            "run_scenario",
        ),
        "fumarole.testing.scenarios",
    ),
}


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'fumarole.testing' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS})


__all__ = [
    "GROUP_NAME",
    "ConfLike",
    "Harness",
    "NoopAction",
    "Scenario",
    "ScenarioError",
    "Tiers",
    "binds",
    "build_conf",
    "build_hyper_node",
    "build_node",
    "build_pod",
    "build_pod_group",
    "build_priority_class",
    "build_queue",
    "check",
    "evictions",
    "fake_plugin",
    "iter_scenarios",
    "load_scenarios",
    "names",
    "nominations",
    "pipelined",
    "run_and_check",
    "run_scenario",
    "task",
]
