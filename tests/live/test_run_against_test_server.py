"""``fumarole run`` against the test server (``kube_test_server``; no Kubernetes API server can be
installed here): the same decisions as ``fumarole schedule`` on a 20-node dump, and each fault of
issue 17 — a dropped watch, a 410 Gone, a 409 on bind, a 500 on eviction, SIGTERM within one period —
without losing or duplicating a decision; ``--dry-run``; ``/metrics`` and ``/healthz``."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from fumarole.framework.conf import load_conf, parse_conf
from fumarole.framework.registry import Registry
from kube_test_server import KubeTestServer
from live_helpers import FIXTURES, PREEMPT_CONF, ROOT, pod, preempt_cluster, timeless

from fumarole.live.loop import SessionReport
from fumarole.live.runner import LiveRunner

WAIT = 20.0
SCHEDULE = [sys.executable, "-P", "-m", "fumarole", "schedule"]


def wait_for(condition: Callable[[], Any], timeout: float = WAIT) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.02)
    raise AssertionError(f"timed out after {timeout} s waiting for {condition}")


@pytest.fixture
def server() -> Iterator[KubeTestServer]:
    test_server = KubeTestServer().start()
    yield test_server
    test_server.stop()


class Running:
    """A ``LiveRunner`` on a thread, with its session reports."""

    def __init__(self, runner: LiveRunner) -> None:
        self.runner = runner
        self.reports: list[SessionReport] = []
        runner.loop.on_session.append(self.reports.append)
        self.thread = threading.Thread(target=runner.run, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.runner.stop()
        self.thread.join(10)
        assert not self.thread.is_alive()


@pytest.fixture
def run_live(server: KubeTestServer, tmp_path: Path) -> Iterator[Callable[..., Running]]:
    started: list[Running] = []

    def start(conf: dict[str, Any] | Path | str | None = None, **options: Any) -> Running:
        registry = Registry()
        loaded: Any
        if conf == "configmap":
            loaded = None
        elif isinstance(conf, Path):
            loaded = load_conf(conf, registry)
        else:
            loaded = parse_conf(yaml.safe_dump(conf or PREEMPT_CONF), "conf", registry)
        options = {"period": 0.2, "watch_timeout": 5, "backoff": 0.05, **options}
        runner = LiveRunner(str(server.kubeconfig(tmp_path)), conf=loaded, registry=registry, **options)
        running = Running(runner)
        started.append(running)
        return running

    yield start
    for running in started:
        if running.thread.is_alive():
            running.stop()


def writes_to(server: KubeTestServer, suffix: str) -> list[dict[str, Any]]:
    return [body for _, path, body in list(server.writes) if path.endswith(suffix)]


def one_free_node() -> list[dict[str, Any]]:
    """n1 with 4 cpu, and the queue, PriorityClasses and PodGroups of ``preempt_cluster``; no pod."""
    objects = [raw for raw in preempt_cluster() if raw["kind"] != "Pod"]
    objects[0]["status"]["allocatable"]["cpu"] = "4"
    return objects


# ---------------------------------------------------------------------------------------------- parity
def _schedule_cycles(conf: Path, snapshot: Path) -> dict[int, list[tuple[str, dict[str, Any]]]]:
    done = subprocess.run(
        [*SCHEDULE, "--conf", str(conf), "--snapshot", str(snapshot), "--format", "k8s", "--cycles", "2"],
        capture_output=True,
        text=True,
        check=True,
    )
    cycles: dict[int, list[tuple[str, dict[str, Any]]]] = {}
    for chunk in done.stdout.split("---\n")[1:]:
        header, _, body = chunk.partition("\n")
        cycle, _, request = header[2:].partition(": ")
        cycles.setdefault(int(cycle.split()[1]), []).append((request, yaml.safe_load(body)))
    return cycles


def _comparable(request: str, body: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    return request, timeless(body)


def test_same_decisions_as_schedule_on_a_20_node_dump(server: KubeTestServer, run_live: Any) -> None:
    dump = FIXTURES / "live" / "cluster-20.yaml"
    conf = ROOT / "conf" / "npu-inference-training.yaml"
    expected = _schedule_cycles(conf, dump)
    server.load_file(dump)
    assert len(server.objects["Node"]) == 20
    running = run_live(conf, period=30.0)
    first = wait_for(lambda: running.reports[:1])[0]
    sent = [_comparable(r.write.describe(), r.write.body) for r in first.results]
    assert sent == [_comparable(request, body) for request, body in expected[1]]
    assert [r.status for r in first.results] == [0] * len(sent)
    assert any(request.endswith("/eviction") for request, _ in sent)
    # the world's part, as schedule's in-memory cluster does at once: the victim goes, the bound pods run
    for _, path, _ in list(server.writes):
        if path.endswith("/eviction"):
            namespace, name = path.split("/")[4], path.split("/")[6]
            server.delete("Pod", f"{namespace}/{name}")
    for raw in list(server.objects["Pod"].values()):
        if raw.get("spec", {}).get("nodeName") and raw.get("status", {}).get("phase") != "Running":
            server.put({**raw, "status": {**raw.get("status", {}), "phase": "Running"}})
    expected_binds = [_comparable(r, b) for r, b in expected[2] if r.endswith("/binding")]
    assert len(expected_binds) == 1

    def second_binds() -> list[tuple[str, dict[str, Any]]]:
        return [
            _comparable(r.write.describe(), r.write.body)
            for report in running.reports[1:]
            for r in report.results
            if r.write.verb == "bind"
        ]

    got = wait_for(second_binds)
    for (request, body), (expected_request, expected_body) in zip(got, expected_binds, strict=True):
        assert request == expected_request
        assert body["metadata"].get("annotations") == expected_body["metadata"].get("annotations")
    assert got == expected_binds
    running.stop()


# ---------------------------------------------------------------------------------------------- faults
def test_binds_evicts_and_nominates_as_decided(server: KubeTestServer, run_live: Any) -> None:
    server.load(preempt_cluster())
    run_live()
    wait_for(lambda: writes_to(server, "/low-1/eviction"))
    wait_for(lambda: writes_to(server, "/high-0/status"))
    assert server.get("Pod", "ns/low-1")["metadata"]["deletionTimestamp"]  # type: ignore[index]
    assert server.get("Pod", "ns/high-0")["status"]["nominatedNodeName"] == "n1"  # type: ignore[index]
    server.delete("Pod", "ns/low-1")  # the kubelet ends the victim
    wait_for(lambda: writes_to(server, "/high-0/binding"))
    time.sleep(0.6)  # a few more sessions: nothing is sent twice
    assert len(writes_to(server, "/low-1/eviction")) == 1
    assert writes_to(server, "/high-0/binding") == [
        {
            "apiVersion": "v1",
            "kind": "Binding",
            "metadata": {"name": "high-0", "namespace": "ns", "uid": "uid-high-0"},
            "target": {"apiVersion": "v1", "kind": "Node", "name": "n1"},
        }
    ]
    assert server.get("Pod", "ns/high-0")["spec"]["nodeName"] == "n1"  # type: ignore[index]


@pytest.mark.parametrize(
    "fault",
    [
        pytest.param("drop", id="dropped-watch"),
        pytest.param("gone", id="410-gone"),
    ],
)
def test_watch_fault_resyncs_without_duplicating(server: KubeTestServer, run_live: Any, fault: str) -> None:
    server.load([*one_free_node(), pod("a-0", "pg-low", 10)])
    running = run_live()
    wait_for(lambda: writes_to(server, "/a-0/binding"))
    lists_before = server.lists.count("Pod")
    getattr(server, fault)("Pod")
    server.put(pod("b-0", "pg-high", 1000))
    server.put(pod("b-1", "pg-high", 1000))  # the dropped stream carries b-0, then breaks
    wait_for(lambda: writes_to(server, "/b-1/binding"))
    wait_for(lambda: server.lists.count("Pod") > lists_before)
    time.sleep(0.6)
    for name in ("a-0", "b-0", "b-1"):
        assert len(writes_to(server, f"/{name}/binding")) == 1, name
    assert sorted(running.runner.state.cache.pods) == ["ns/a-0", "ns/b-0", "ns/b-1"]


def test_409_on_bind_rolls_back_and_retries(server: KubeTestServer, run_live: Any) -> None:
    server.load([*one_free_node(), pod("a-0", "pg-low", 10)])
    server.fail("POST", "/pods/a-0/binding", 409)
    running = run_live()
    wait_for(lambda: len(writes_to(server, "/a-0/binding")) == 2)
    time.sleep(0.6)
    assert len(writes_to(server, "/a-0/binding")) == 2
    assert server.get("Pod", "ns/a-0")["spec"]["nodeName"] == "n1"  # type: ignore[index]
    statuses = [r.status for report in running.reports for r in report.results if r.write.verb == "bind"]
    assert statuses == [409, 0]


def test_500_on_eviction_is_decided_again_and_sent_once_accepted(
    server: KubeTestServer, run_live: Any
) -> None:
    server.load(preempt_cluster())
    server.fail("POST", "/pods/low-1/eviction", 500)
    running = run_live()
    wait_for(lambda: len(writes_to(server, "/low-1/eviction")) == 2)
    wait_for(lambda: writes_to(server, "/high-0/status"))
    time.sleep(0.6)
    assert len(writes_to(server, "/low-1/eviction")) == 2
    assert len(writes_to(server, "/high-0/status")) == 1  # held back while its eviction failed
    evictions = [r.status for report in running.reports for r in report.results if r.write.verb == "evict"]
    assert evictions == [500, 0]
    assert running.runner.metrics.write_errors == {"evict": 1}


def _config_map(conf: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "volcano-scheduler-configmap", "namespace": "volcano-system"},
        "data": {"volcano-scheduler.conf": yaml.safe_dump(conf)},
    }


def test_conf_from_the_scheduler_configmap_reloaded(server: KubeTestServer, run_live: Any) -> None:
    server.load([*preempt_cluster(), _config_map({**PREEMPT_CONF, "actions": "enqueue, allocate"})])
    running = run_live("configmap")
    wait_for(lambda: len(running.reports) >= 3)
    assert writes_to(server, "/eviction") == []
    server.put(_config_map(PREEMPT_CONF))
    wait_for(lambda: writes_to(server, "/low-1/eviction"))
    assert running.runner.loop.scheduler is not None
    assert running.runner.loop.scheduler.conf.action_names == ["enqueue", "allocate", "preempt"]


def test_dry_run_writes_nothing(server: KubeTestServer, run_live: Any) -> None:
    server.load(preempt_cluster())
    running = run_live(dry_run=True)
    wait_for(lambda: len(running.reports) >= 3)
    assert server.writes == []
    logged = [(w.verb, w.key) for w in running.runner.writer.logged]  # type: ignore[attr-defined]
    assert logged[:2] == [("evict", "ns/low-1"), ("nominate", "ns/high-0")]


def test_metrics_and_healthz(server: KubeTestServer, run_live: Any) -> None:
    server.load([*one_free_node(), pod("a-0", "pg-low", 10)])
    running = run_live(metrics_port=0)
    wait_for(lambda: running.runner.metrics.attempts["scheduled"] == 1)
    wait_for(lambda: running.runner.server is not None)
    port = running.runner.server.server_address[1]
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz") as response:
        assert (response.status, response.read()) == (200, b"ok\n")
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics") as response:
        text = response.read().decode()
        assert response.headers["Content-Type"].startswith("text/plain; version=0.0.4")
    assert 'volcano_schedule_attempts_total{result="scheduled"} 1' in text
    assert "volcano_e2e_scheduling_latency_milliseconds_count" in text


# ---------------------------------------------------------------------------------------------- SIGTERM
def test_sigterm_exits_cleanly_within_one_period(server: KubeTestServer, tmp_path: Path) -> None:
    server.load([*one_free_node(), pod("a-0", "pg-low", 10)])
    conf = tmp_path / "conf.yaml"
    conf.write_text(yaml.safe_dump(PREEMPT_CONF))
    period = 1.0  # the default, as Volcano's
    run = [sys.executable, "-P", "-m", "fumarole", "run", "--metrics-port", "-1", "--kubeconfig"]
    environment = {key: value for key, value in os.environ.items() if not key.startswith("FUMAROLE_")}
    log = (tmp_path / "stderr").open("w")  # a file, not a pipe nobody reads while the loop runs
    process = subprocess.Popen(
        [
            *run,
            str(server.kubeconfig(tmp_path)),
            "--conf",
            str(conf),
            "--period",
            str(period),
            "--watch-timeout",
            "5",
        ],
        env={**environment, "FUMAROLE_LOG_LEVEL": "INFO"},
        stdout=subprocess.DEVNULL,
        stderr=log,
        text=True,
    )
    try:
        wait_for(lambda: writes_to(server, "/a-0/binding"), timeout=60)
        signalled = time.monotonic()
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)
        elapsed = time.monotonic() - signalled
    finally:
        if process.poll() is None:
            process.kill()
        log.close()
    stderr = (tmp_path / "stderr").read_text()
    assert process.returncode == 0, stderr
    assert elapsed < period, f"exited {elapsed:.2f} s after SIGTERM (period {period} s)"
    assert "stopped after" in stderr
    print(f"exit {elapsed:.3f} s after SIGTERM")
    assert len(writes_to(server, "/a-0/binding")) == 1
