"""fumarole.testing.Harness: every conf form, cycles with changes between them, and the readers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fumarole.framework.conf import ConfError, PluginOption, SchedulerConf, Tier
from fumarole.framework.session import Session
from fumarole.testing import (
    Harness,
    NoopAction,
    binds,
    build_conf,
    build_node,
    build_pod,
    build_pod_group,
    build_priority_class,
    build_queue,
    evictions,
    fake_plugin,
    names,
    nominations,
    pipelined,
    task,
)

ROOT = Path(__file__).resolve().parents[2]
GANG_YAML = "actions: allocate\ntiers:\n- plugins:\n  - name: gang\n  - name: predicates\n"


def cluster(*pods: Any, cpu: str = "4") -> list[Any]:
    return [
        build_node("n1", {"cpu": cpu, "memory": "8Gi", "pods": "110"}),
        build_queue("default"),
        build_pod_group("ns", "pg", min_member=2),
        *pods,
    ]


def pending(name: str, cpu: str = "1", namespace: str = "ns") -> Any:
    return build_pod(namespace, name, group="pg", requests={"cpu": cpu})


def job_ready_flag(harness: Harness) -> bool | None:
    return harness.conf.tiers[0].plugins[0].value("enableJobReady")


# ---------------------------------------------------------------------------------------- conf forms
@pytest.mark.parametrize(
    ("conf", "defaulting", "flag", "actions"),
    [
        pytest.param(GANG_YAML, None, True, ["allocate"], id="yaml-text-defaulted"),
        pytest.param(GANG_YAML, False, None, ["allocate"], id="yaml-text-not-defaulted"),
        pytest.param(
            ROOT / "conf" / "default.yaml", None, True, ["enqueue", "allocate", "backfill"], id="file"
        ),
        pytest.param(
            SchedulerConf(actions="allocate", tiers=[Tier(plugins=[PluginOption(name="gang")])]),
            None,
            None,
            ["allocate"],
            id="scheduler-conf-as-is",
        ),
        pytest.param(
            SchedulerConf(actions="allocate", tiers=[Tier(plugins=[PluginOption(name="gang")])]),
            True,
            True,
            ["allocate"],
            id="scheduler-conf-defaulted",
        ),
        pytest.param([["gang"], ["predicates"]], None, None, ["noop"], id="tiers-of-names"),
        pytest.param(
            [[PluginOption(name="gang", enabled_job_ready=False)]],
            True,
            False,
            ["noop"],
            id="tiers-defaulted",
        ),
    ],
)
def test_conf_forms(conf: Any, defaulting: bool | None, flag: bool | None, actions: list[str]) -> None:
    harness = Harness(cluster(), conf, defaulting=defaulting)
    assert job_ready_flag(harness) is flag
    assert harness.conf.action_names == actions


def test_tiers_keep_their_order_and_options() -> None:
    option = PluginOption(name="predicates", enabled_predicate=True)
    harness = Harness(cluster(), [["priority", "gang"], [option]])
    assert [[p.name for p in tier.plugins] for tier in harness.conf.tiers] == [
        ["priority", "gang"],
        ["predicates"],
    ]
    assert harness.conf.tiers[1].plugins[0] == option


def test_build_conf_with_actions_and_configurations() -> None:
    conf = build_conf([["gang"]], actions="allocate, backfill", configurations={"allocate": {"k": 1}})
    assert conf.action_names == ["allocate", "backfill"]
    assert conf.configuration("allocate") == {"k": 1}
    assert conf.tiers[0].plugins[0].value("enableJobReady") is None
    assert build_conf([["gang"]], defaulting=True).tiers[0].plugins[0].value("enableJobReady") is True


@pytest.mark.parametrize(
    "conf", [pytest.param({"actions": "allocate"}, id="mapping"), pytest.param(["gang"], id="flat-list")]
)
def test_other_conf_types_are_refused(conf: Any) -> None:
    with pytest.raises(TypeError, match="conf: YAML text, a path, a SchedulerConf or tiers"):
        Harness(cluster(), conf)


def test_yaml_conf_is_checked_like_a_file() -> None:
    with pytest.raises(ConfError, match="unknown plugin 'gnag'"):
        Harness(cluster(), "actions: allocate\ntiers:\n- plugins:\n  - name: gnag\n")


def test_noop_action_is_there_unless_given() -> None:
    assert Harness(cluster(), [["gang"]]).registry.action_factory("noop") is NoopAction

    class Mine(NoopAction):
        """A replacement for ``noop``: only its identity is checked."""

    assert Harness(cluster(), [["gang"]], actions={"noop": Mine}).registry.action_factory("noop") is Mine


def test_in_process_plugin_without_entry_points() -> None:
    seen: list[str] = []
    builder = fake_plugin("probe", lambda ssn: seen.append(ssn.uid), lambda ssn: seen.append("closed"))
    harness = Harness(cluster(), [["probe"]], plugins={"probe": builder}, entry_points=False)
    harness.run()
    assert len(seen) == 2
    assert seen[1] == "closed"
    assert harness.registry.plugin_names() == {"probe"}


# ---------------------------------------------------------------------------------------- cycles
def test_run_applies_decisions_then_changes() -> None:
    harness = Harness(cluster(pending("a"), pending("b")), GANG_YAML)
    first, second, third = harness.run(
        changes=[
            [pending("c", cpu="3"), build_node("n2", {"cpu": "4", "memory": "8Gi", "pods": "110"})],
            [build_pod("ns", "a", annotations={"fumarole.io/delete": "true"})],
        ]
    )
    assert binds(first) == {"ns/a": "n1", "ns/b": "n1"}
    assert binds(second) == {"ns/c": "n2"}
    assert binds(third) == {}
    assert "ns/a" not in harness.cache.pods
    assert harness.cache.pods["ns/b"].status.phase == "Running"


@pytest.mark.parametrize(
    ("now", "period", "expected"),
    [pytest.param(0.0, 0.0, [0.0, 0.0], id="same-clock"), pytest.param(10.0, 1.0, [10.0, 11.0], id="period")],
)
def test_run_clock(now: float, period: float, expected: list[float]) -> None:
    clocks: list[float] = []
    builder = fake_plugin("clock", lambda ssn: clocks.append(ssn.now))
    Harness(cluster(), [["clock"]], plugins={"clock": builder}).run(2, now, period=period)
    assert clocks == expected


def test_run_refuses_unused_changes() -> None:
    with pytest.raises(ValueError, match="leave 1 change set"):
        Harness(cluster(), GANG_YAML).run(1, changes=[[pending("a")]])


def test_initial_objects_cannot_delete() -> None:
    with pytest.raises(ValueError, match="cannot delete"):
        Harness(cluster(build_pod("ns", "x", annotations={"fumarole.io/delete": "true"})), GANG_YAML)


def test_apply_between_sessions() -> None:
    harness = Harness(cluster(pending("a")), [["gang"]])
    harness.apply([pending("b")])
    assert sorted(t.name for t in harness.open_session().jobs["ns/pg"].tasks.values()) == ["a", "b"]


# ---------------------------------------------------------------------------------------- readers
def test_readers_of_a_preempting_cycle() -> None:
    conf = (
        "actions: preempt\ntiers:\n- plugins:\n  - name: priority\n  - name: gang\n"
        "    enablePreemptable: false\n  - name: conformance\n- plugins:\n  - name: predicates\n"
        "  - name: proportion\n"
    )
    objects = [
        build_node("n1", {"cpu": "2", "memory": "4Gi", "pods": "110"}),
        build_queue("default"),
        build_priority_class("high", 1000),
        build_pod_group("ns", "low", min_member=1),
        build_pod_group("ns", "high", min_member=1, priority_class="high"),
        build_pod("ns", "victim", group="low", node="n1", phase="Running", requests={"cpu": "2"}),
        build_pod("ns", "preemptor", group="high", requests={"cpu": "2"}, priority=1000),
    ]
    [decisions] = Harness(objects, conf).run()
    assert evictions(decisions) == ["ns/victim"]
    assert pipelined(decisions) == {"ns/preemptor": "n1"}
    assert nominations(decisions) == {"ns/preemptor": "n1"}
    assert binds(decisions) == {}
    assert Harness.evictions(decisions) == ["ns/victim"]
    assert Harness.nominations(decisions) == Harness.pipelined(decisions) == {"ns/preemptor": "n1"}


def test_task_by_name_or_key() -> None:
    objects = [
        *cluster(pending("a"), pending("b")),
        build_pod_group("other", "pg"),
        pending("a", namespace="other"),
    ]
    ssn: Session = Harness(objects, [["gang"]]).open_session()
    assert task(ssn, "b").key == "ns/b"
    assert Harness.task(ssn, "other/a").key == "other/a"
    with pytest.raises(LookupError, match="several tasks"):
        task(ssn, "a")
    with pytest.raises(KeyError):
        task(ssn, "nope")


@pytest.mark.parametrize(
    ("tasks", "expected"), [pytest.param(None, None, id="none"), pytest.param([], [], id="empty")]
)
def test_names_keeps_none(tasks: Any, expected: Any) -> None:
    assert names(tasks) == expected
