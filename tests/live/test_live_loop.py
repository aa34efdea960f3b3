"""The live loop's core without a client (``live.state``, ``live.loop``): events into the cache, the
scheduler's own writes kept as assumptions, failed writes rolled back, evictions never sent twice,
the conf from the scheduler ConfigMap, the scheduler name, the metrics."""

from __future__ import annotations

import copy
from collections import defaultdict
from typing import Any

import pytest
import yaml
from fumarole.framework.conf import parse_conf
from fumarole.framework.hookspecs import hookimpl
from fumarole.framework.registry import Registry
from live_helpers import PREEMPT_CONF, pod, preempt_cluster

from fumarole.live.loop import DryRunWriter, LiveLoop
from fumarole.live.metrics import Metrics
from fumarole.live.runner import LiveSettings
from fumarole.live.state import CONFIG_MAP, NOT_SENT, LiveState, WriteResult
from fumarole.live.writes import Write

KINDS = ("Node", "Pod", "PodGroup", "Queue", "PriorityClass", "HyperNode")


class ScriptedWriter:
    """Answers each write with the next status scripted for its (verb, key), else success."""

    def __init__(self, script: dict[tuple[str, str], list[int]] | None = None) -> None:
        self.script = defaultdict(list, script or {})
        self.sent: list[tuple[str, str]] = []

    def send(self, write: Write) -> WriteResult:
        self.sent.append((write.verb, write.key))
        statuses = self.script[(write.verb, write.key)]
        status = statuses.pop(0) if statuses else 0
        return WriteResult(write, status, f"scripted {status}" if status else "")


def listed(objects: list[dict[str, Any]], settings: LiveSettings | None = None) -> LiveState:
    state = LiveState(settings or LiveSettings(scheduler_names=["volcano"]))
    by_kind: dict[str, list[dict[str, Any]]] = {kind: [] for kind in KINDS}
    for raw in objects:
        by_kind[raw["kind"]].append(raw)
    for kind, items in by_kind.items():
        state.relist(kind, items, "10")
    return state


def preempt_loop(writer: Any, objects: list[dict[str, Any]] | None = None) -> LiveLoop:
    registry = Registry()
    conf = parse_conf(yaml.safe_dump(PREEMPT_CONF), "conf", registry)
    state = listed(objects if objects is not None else preempt_cluster())
    return LiveLoop(state, writer, conf=conf, registry=registry, clock=lambda: 1000.0)


def test_relist_replaces_without_duplicates() -> None:
    state = listed(preempt_cluster())
    state.flush()
    assert sorted(state.cache.pods) == ["ns/high-0", "ns/low-0", "ns/low-1"]
    pods = [raw for raw in preempt_cluster() if raw["kind"] == "Pod" and raw["metadata"]["name"] != "low-1"]
    state.relist("Pod", pods, "20")
    state.relist("Pod", pods, "21")  # twice: a resync is idempotent
    state.flush()
    assert sorted(state.cache.pods) == ["ns/high-0", "ns/low-0"]
    assert state.versions["Pod"] == "21"
    assert list(state.cache.diagnostics) == []


def test_watch_events_add_modify_delete_and_move_the_version() -> None:
    state = listed(preempt_cluster())
    new = pod("new-0", "pg-high", 1000)
    new["metadata"]["resourceVersion"] = "11"
    state.event("Pod", "ADDED", new)
    state.event("Node", "BOOKMARK", {"metadata": {"resourceVersion": "15"}})
    gone = pod("low-0", "pg-low", 10, "n1")
    gone["metadata"]["resourceVersion"] = "12"
    state.event("Pod", "DELETED", gone)
    state.flush()
    assert sorted(state.cache.pods) == ["ns/high-0", "ns/low-1", "ns/new-0"]
    assert state.versions == {**state.versions, "Pod": "12", "Node": "15"}


def test_only_pods_with_the_scheduler_name_are_scheduled() -> None:
    objects = [raw for raw in preempt_cluster() if raw["metadata"]["name"] not in ("low-0", "low-1")]
    objects.append(pod("other-0", "pg-low", 10, scheduler="default-scheduler"))
    loop = preempt_loop(ScriptedWriter(), objects)
    report = loop.step()
    assert report is not None
    assert [(b.pod, b.node) for b in report.decisions.binds] == [("ns/high-0", "n1")]


def test_bind_kept_as_assumption_until_confirmed() -> None:
    objects = [raw for raw in preempt_cluster() if raw["metadata"]["name"] != "low-1"]
    writer = ScriptedWriter()
    loop = preempt_loop(writer, objects)
    loop.step()
    assert ("bind", "ns/high-0") in writer.sent
    stale = pod("high-0", "pg-high", 1000)  # an event older than the bind: still no node
    loop.state.event("Pod", "MODIFIED", stale)
    loop.step()
    assert loop.state.cache.pods["ns/high-0"].spec.node_name == "n1"
    assert writer.sent.count(("bind", "ns/high-0")) == 1
    confirmed = pod("high-0", "pg-high", 1000, "n1")
    loop.state.event("Pod", "MODIFIED", confirmed)
    loop.step()
    assert loop.state.assumed_binds == {}
    assert writer.sent.count(("bind", "ns/high-0")) == 1
    assert len(loop.state.cache.pods) == 2  # replaced, not counted twice


@pytest.mark.parametrize(
    ("status", "pods_after", "binds"),
    [
        pytest.param(409, ["ns/high-0", "ns/low-0"], 2, id="409-conflict-rolled-back-and-retried"),
        pytest.param(500, ["ns/high-0", "ns/low-0"], 2, id="500-rolled-back-and-retried"),
        pytest.param(404, ["ns/low-0"], 1, id="404-pod-gone-removed"),
    ],
)
def test_failed_bind(status: int, pods_after: list[str], binds: int) -> None:
    objects = [raw for raw in preempt_cluster() if raw["metadata"]["name"] != "low-1"]
    writer = ScriptedWriter({("bind", "ns/high-0"): [status]})
    loop = preempt_loop(writer, objects)
    first = loop.step()
    assert first is not None and [r.status for r in first.results if r.write.verb == "bind"] == [status]
    assert (
        loop.state.cache.pods.get("ns/high-0") is None
        or not loop.state.cache.pods["ns/high-0"].spec.node_name
    )
    loop.step()
    loop.step()
    assert sorted(loop.state.cache.pods) == pods_after
    assert writer.sent.count(("bind", "ns/high-0")) == binds
    assert loop.metrics.attempts["error"] == 1
    assert loop.metrics.attempts["scheduled"] == binds - 1


def test_eviction_never_sent_twice() -> None:
    writer = ScriptedWriter()
    loop = preempt_loop(writer)
    loop.step()
    assert writer.sent[:2] == [("evict", "ns/low-1"), ("nominate", "ns/high-0")]
    victim = pod("low-1", "pg-low", 10, "n1")  # a resync still shows the victim running
    loop.state.relist("Pod", [victim, pod("low-0", "pg-low", 10, "n1"), pod("high-0", "pg-high", 1000)], "30")
    for _ in range(3):
        loop.step()
    assert writer.sent.count(("evict", "ns/low-1")) == 1
    assert loop.state.cache.pods["ns/low-1"].metadata.deletion_timestamp is not None
    assert loop.metrics.evictions == {"preempt": 1}


def test_eviction_refused_is_decided_again_then_sent_once() -> None:
    writer = ScriptedWriter({("evict", "ns/low-1"): [500]})
    loop = preempt_loop(writer)
    loop.step()
    assert loop.state.cache.pods["ns/low-1"].metadata.deletion_timestamp is None  # rolled back
    for _ in range(3):
        loop.step()
    assert [sent for sent in writer.sent if sent[0] == "evict"] == [("evict", "ns/low-1")] * 2
    assert loop.metrics.write_errors == {"evict": 1}


def test_dry_run_logs_and_keeps_its_decisions() -> None:
    writer = DryRunWriter()
    loop = preempt_loop(writer)
    loop.step()
    loop.step()
    assert [(w.verb, w.key) for w in writer.logged][:2] == [("evict", "ns/low-1"), ("nominate", "ns/high-0")]
    assert [w.key for w in writer.logged if w.verb == "evict"] == ["ns/low-1"]


def _config_map(conf: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "volcano-scheduler-configmap", "namespace": "volcano-system"},
        "data": {"volcano-scheduler.conf": yaml.safe_dump(conf)},
    }


def test_conf_from_the_configmap_reloaded_between_sessions() -> None:
    state = listed(preempt_cluster())
    allocate_only = copy.deepcopy(PREEMPT_CONF)
    allocate_only["actions"] = "enqueue, allocate"
    state.relist(CONFIG_MAP, [_config_map(allocate_only)], "10")
    writer = ScriptedWriter()
    loop = LiveLoop(state, writer, clock=lambda: 1000.0, required=[*KINDS, CONFIG_MAP])
    first = loop.step()
    assert first is not None and first.decisions.evictions == []
    assert loop.scheduler is not None
    loop.scheduler.persistent["kept"] = True
    broken = _config_map(PREEMPT_CONF)
    broken["data"]["volcano-scheduler.conf"] = "actions: nosuchaction\n"
    state.event(CONFIG_MAP, "MODIFIED", broken)
    second = loop.step()
    assert second is not None and second.decisions.evictions == []  # the previous conf is kept
    state.event(CONFIG_MAP, "MODIFIED", _config_map(PREEMPT_CONF))
    third = loop.step()
    assert third is not None and [e.pod for e in third.decisions.evictions] == ["ns/low-1"]
    assert loop.scheduler.persistent["kept"] is True  # survives the reload


def test_no_session_before_every_kind_is_listed() -> None:
    state = LiveState(LiveSettings(scheduler_names=["volcano"]))
    registry = Registry()
    conf = parse_conf(yaml.safe_dump(PREEMPT_CONF), "conf", registry)
    loop = LiveLoop(state, ScriptedWriter(), conf=conf, registry=registry, required=KINDS)
    loop.events.put(("relist", "Node", [], "1"))
    assert loop.step() is None
    for kind in KINDS:
        loop.events.put(("relist", kind, [], "1"))
    assert loop.step() is not None


def test_metrics_text() -> None:
    loop = preempt_loop(ScriptedWriter())
    loop.step()
    text = loop.metrics.render()
    assert 'volcano_schedule_attempts_total{result="unschedulable"} 0' in text
    assert 'fumarole_evictions_total{action="preempt"} 1' in text
    assert "volcano_e2e_scheduling_latency_milliseconds_count 1" in text
    assert 'volcano_action_scheduling_latency_milliseconds_count{action="preempt"} 1' in text
    assert "# TYPE volcano_e2e_scheduling_latency_milliseconds histogram" in text
    buckets = [
        line
        for line in text.splitlines()
        if line.startswith("volcano_e2e_scheduling_latency_milliseconds_bucket")
    ]
    assert len(buckets) == 21 and buckets[0].startswith(
        'volcano_e2e_scheduling_latency_milliseconds_bucket{le="1"}'
    )
    # every plugin's on_session_open and on_session_close, timed as Volcano's UpdatePluginDuration
    plugins = [name for tier in PREEMPT_CONF["tiers"] for name in (p["name"] for p in tier["plugins"])]
    for name in plugins:
        for phase in ("OnSessionOpen", "OnSessionClose"):
            labels = f'{{plugin="{name}",OnSession="{phase}"}}'
            assert f"volcano_plugin_scheduling_latency_milliseconds_count{labels} 1" in text
    assert (
        'volcano_plugin_scheduling_latency_milliseconds_bucket{plugin="gang",OnSession="OnSessionOpen",le="0.1"}'
        in text
    )
    assert Metrics().render().count("# TYPE") == 8


class _NodeDeletedDuringSession:
    """At session close, the watch delivers the deletion of the node the session bound to (as if it went
    while the session ran)."""

    def __init__(self, loop: LiveLoop, nodes: list[dict[str, Any]]) -> None:
        self.loop = loop
        self.nodes = {raw["metadata"]["name"]: raw for raw in nodes}
        self.deleted = ""

    @hookimpl
    def fumarole_session_closed(self, session: Any) -> None:
        if not self.deleted:
            self.deleted = session.decisions.binds[0].node
            self.loop.events.put(("event", "Node", "DELETED", self.nodes[self.deleted]))


def test_bind_to_a_node_gone_during_the_session_is_held_back_and_decided_again() -> None:
    objects = [raw for raw in preempt_cluster() if raw["metadata"]["name"] not in ("low-0", "low-1")]
    second = copy.deepcopy(objects[0])
    second["metadata"]["name"] = "n2"
    objects.append(second)
    writer = ScriptedWriter()
    loop = preempt_loop(writer, objects)
    assert loop.scheduler is not None
    deleter = _NodeDeletedDuringSession(loop, [objects[0], second])
    loop.scheduler.add_observer(deleter)
    first = loop.step()
    assert first is not None
    gone = deleter.deleted
    assert [(r.write.verb, r.status, r.message) for r in first.results if r.write.verb == "bind"] == [
        ("bind", NOT_SENT, f"not sent: node {gone} is gone")
    ]
    assert writer.sent.count(("bind", "ns/high-0")) == 0
    assert not loop.state.cache.pods["ns/high-0"].spec.node_name
    again = loop.step()
    other = "n2" if gone == "n1" else "n1"
    assert again is not None and [(b.pod, b.node) for b in again.decisions.binds] == [("ns/high-0", other)]
    assert writer.sent.count(("bind", "ns/high-0")) == 1
