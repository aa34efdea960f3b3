"""Statement: Volcano's node accounting, event handlers, commit and discard.

Property tests (hypothesis): any sequence of operations followed by discard leaves every node,
job and task exactly as before (and the handlers' bookkeeping too); no sequence of committed
allocations over-commits a node.
"""

from __future__ import annotations

from typing import Any, ClassVar

import pytest
from fumarole.framework.api import ZERO, Resource, TaskStatus
from fumarole.framework.decisions import Bind, Eviction
from fumarole.framework.interface import Event, EventHandler
from fumarole.framework.session import Session
from fumarole.framework.statement import StatementError
from fumarole.testing import Harness, build_node, build_pod, build_pod_group, build_queue
from hypothesis import given, settings
from hypothesis import strategies as st


class Ledger:
    """A plugin that keeps per-job allocated totals through the event handlers, as drf does."""

    name = "ledger"
    events: ClassVar[list[tuple[str, str]]] = []

    def __init__(self, arguments: Any) -> None:
        self.totals: dict[str, Resource] = {}

    def on_session_open(self, ssn: Session) -> None:
        ssn.persistent("ledger", lambda: self)
        for job in ssn.jobs.values():
            self.totals[job.uid] = job.allocated.clone()

        def allocated(event: Event) -> None:
            Ledger.events.append(("allocate", event.task.key))
            self.totals[event.task.job].add(event.task.resreq)

        def deallocated(event: Event) -> None:
            Ledger.events.append(("deallocate", event.task.key))
            self.totals[event.task.job].sub_without_assert(event.task.resreq)

        ssn.add_event_handler(EventHandler(allocate_func=allocated, deallocate_func=deallocated))

    def on_session_close(self, ssn: Session) -> None:
        """Nothing to close: the handlers registered at open are what the tests watch."""


def cluster() -> list[Any]:
    objects: list[Any] = [
        build_node("n1", {"cpu": "4", "memory": "8Gi", "pods": "110"}),
        build_node("n2", {"cpu": "2", "memory": "4Gi", "nvidia.com/gpu": "2", "pods": "3"}),
        build_node("n3", {"cpu": "8", "memory": "16Gi", "pods": "110"}),
        build_queue("default"),
    ]
    for j in range(3):
        objects.append(build_pod_group("ns", f"job{j}", min_member=2))
        for t in range(3):
            kwargs: dict[str, Any] = {
                "group": f"job{j}",
                "requests": {"cpu": f"{500 * (t + 1)}m", "memory": "1Gi"},
            }
            if j == 1 and t == 0:
                kwargs["requests"]["nvidia.com/gpu"] = "1"
            if t == 0:
                kwargs.update(node="n1" if j != 1 else "n2", phase="Running")
            if j == 2 and t == 1:
                kwargs.update(node="n3", phase="Pending")  # Bound
            objects.append(build_pod("ns", f"job{j}-{t}", **kwargs))
    return objects


def open_session() -> Session:
    return Harness(cluster(), [["ledger"]], plugins={"ledger": Ledger}).open_session()


def amounts(resource: Resource) -> tuple[Any, ...]:
    """A resource's amounts; a scalar at zero counts as absent (as Resource equality does)."""
    scalars = sorted((name, value) for name, value in (resource.scalars or {}).items() if value != 0)
    return (resource.milli_cpu, resource.memory, tuple(scalars))


def state(ssn: Session) -> dict[str, Any]:
    """Everything a discard must restore."""
    ledger: Ledger = ssn.persistent("ledger", lambda: None)  # type: ignore[arg-type, return-value]
    nodes = {
        name: (
            amounts(node.idle),
            amounts(node.used),
            amounts(node.releasing),
            amounts(node.pipelined),
            sorted((key, str(task.status)) for key, task in node.tasks.items()),
        )
        for name, node in ssn.nodes.items()
    }
    jobs = {
        uid: (
            amounts(job.allocated),
            amounts(job.total_request),
            sorted((t.key, str(t.status), t.node_name, t.eviction_occurred) for t in job.tasks.values()),
            sorted((str(status), sorted(tasks)) for status, tasks in job.task_status_index.items()),
            {sub: sorted(s.tasks) for sub, s in job.sub_jobs.items()},
        )
        for uid, job in ssn.jobs.items()
    }
    table = {
        which: ssn.node_table.matrix(which).tolist() for which in ("idle", "used", "releasing", "pipelined")
    }
    return {
        "nodes": nodes,
        "jobs": jobs,
        "table": table,
        "ledger": {uid: amounts(total) for uid, total in ledger.totals.items()},
    }


def tasks_of(ssn: Session) -> list[Any]:
    return sorted((t for job in ssn.jobs.values() for t in job.tasks.values()), key=lambda t: t.key)


# ------------------------------------------------------------------------------ accounting, op by op
def test_evict_only_grows_releasing() -> None:
    ssn = open_session()
    node = ssn.nodes["n1"]
    before_idle, before_used = repr(node.idle), repr(node.used)
    task = ssn.jobs["ns/job0"].tasks["ns-job0-0"]
    stmt = ssn.statement()
    stmt.evict(task, "preempt")
    assert task.status == TaskStatus.RELEASING
    assert (repr(node.idle), repr(node.used)) == (before_idle, before_used)
    assert node.releasing == Resource.from_list({"cpu": "500m", "memory": "1Gi", "pods": "1"})
    expected_future = node.idle.clone().add(node.releasing)
    assert node.future_idle() == expected_future
    assert ssn.node_table.matrix("releasing")[0, 0] == 500.0


@pytest.mark.parametrize(
    ("operation", "status", "idle_cpu", "pipelined_cpu", "events"),
    [
        pytest.param(
            "allocate", TaskStatus.ALLOCATED, 3000.0 - 1000.0, 0.0, [("allocate", "ns/job0-1")], id="allocate"
        ),
        pytest.param(
            "pipeline", TaskStatus.PIPELINED, 3000.0, 1000.0, [("allocate", "ns/job0-1")], id="pipeline"
        ),
    ],
)
def test_allocate_and_pipeline_accounting(
    operation: str, status: TaskStatus, idle_cpu: float, pipelined_cpu: float, events: list[tuple[str, str]]
) -> None:
    ssn = open_session()
    Ledger.events.clear()
    task = ssn.jobs["ns/job0"].tasks["ns-job0-1"]
    node = ssn.nodes["n1"]
    stmt = ssn.statement()
    if operation == "allocate":
        stmt.allocate(task, node)
    else:
        stmt.pipeline(task, "n1")
    assert task.status == status and task.node_name == "n1"
    assert node.idle.milli_cpu == idle_cpu
    assert node.pipelined.milli_cpu == pipelined_cpu
    assert Ledger.events == events
    stmt.discard()
    assert task.status == TaskStatus.PENDING and task.node_name == ""
    assert node.idle.milli_cpu == 3000.0 and node.pipelined.milli_cpu == 0.0
    assert Ledger.events == [*events, ("deallocate", "ns/job0-1")]


def test_discard_undoes_in_reverse_order_and_fires_handlers() -> None:
    ssn = open_session()
    Ledger.events.clear()
    running = ssn.jobs["ns/job0"].tasks["ns-job0-0"]
    pending = ssn.jobs["ns/job0"].tasks["ns-job0-1"]
    stmt = ssn.statement()
    stmt.evict(running, "preempt")
    stmt.pipeline(pending, "n1", True)
    stmt.discard()
    assert Ledger.events == [
        ("deallocate", "ns/job0-0"),
        ("allocate", "ns/job0-1"),
        ("deallocate", "ns/job0-1"),
        ("allocate", "ns/job0-0"),
    ]
    assert running.status == TaskStatus.RUNNING
    assert pending.status == TaskStatus.PENDING and not pending.eviction_occurred
    assert pending.last_transaction is not None and pending.last_transaction.status == TaskStatus.PIPELINED


def test_discarded_eviction_of_a_bound_task_restores_bound() -> None:
    """Deliberate difference: Volcano writes Running here; fumarole restores the previous status."""
    ssn = open_session()
    bound = ssn.jobs["ns/job2"].tasks["ns-job2-1"]
    assert bound.status == TaskStatus.BOUND
    stmt = ssn.statement()
    stmt.evict(bound, "reclaim")
    stmt.discard()
    assert bound.status == TaskStatus.BOUND


def test_commit_records_evictions_and_binds_in_the_decision_log() -> None:
    ssn = open_session()
    ssn.current_action = "preempt"
    running = ssn.jobs["ns/job0"].tasks["ns-job0-0"]
    pending = ssn.jobs["ns/job0"].tasks["ns-job0-1"]
    other = ssn.jobs["ns/job0"].tasks["ns-job0-2"]
    stmt = ssn.statement()
    stmt.evict(running, "preempted by ns/x")
    stmt.allocate(pending, ssn.nodes["n3"])
    stmt.pipeline(other, "n1")
    assert ssn.decisions.binds == [] and ssn.decisions.evictions == []  # nothing before the commit
    stmt.commit()
    assert ssn.decisions.evictions == [Eviction("ns/job0-0", "n1", "preempt", "preempted by ns/x")]
    assert ssn.decisions.binds == [Bind("ns/job0-1", "n3", "preempt")]
    assert pending.status == TaskStatus.BINDING
    assert other.status == TaskStatus.PIPELINED
    assert running.status == TaskStatus.RELEASING
    assert stmt.operations == []


def test_a_discarded_statement_leaves_the_decision_log_empty() -> None:
    ssn = open_session()
    stmt = ssn.statement()
    stmt.evict(ssn.jobs["ns/job0"].tasks["ns-job0-0"], "preempted")
    stmt.allocate(ssn.jobs["ns/job0"].tasks["ns-job0-1"], ssn.nodes["n3"])
    stmt.discard()
    assert (ssn.decisions.binds, ssn.decisions.evictions) == ([], [])


@pytest.mark.parametrize(
    ("operation", "node", "message"),
    [
        pytest.param(
            "allocate",
            "n2",
            "task ns/job0-2 allocate to node n2 failed (request "
            "<cpu 1500.00, memory 1073741824.00, pods 1.00> exceeds the idle "
            "<cpu 0.00, memory 2147483648.00, nvidia.com/gpu 1000.00, pods 1.00> of node n2); rolled back",
            id="allocate-beyond-idle",
        ),
        pytest.param(
            "pipeline",
            "n2",
            "task ns/job0-2 pipeline to node n2 failed (request "
            "<cpu 1500.00, memory 1073741824.00, pods 1.00> exceeds the future idle "
            "<cpu 0.00, memory 2147483648.00, nvidia.com/gpu 1000.00, pods 1.00> of node n2); rolled back",
            id="pipeline-beyond-future-idle",
        ),
        pytest.param(
            "pipeline",
            "nX",
            "task ns/job0-2 pipeline to node nX failed (failed to find node nX); rolled back",
            id="pipeline-unknown-node",
        ),
    ],
)
def test_refused_operations_roll_back(operation: str, node: str, message: str) -> None:
    ssn = open_session()
    stmt = ssn.statement()
    stmt.allocate(ssn.jobs["ns/job2"].tasks["ns-job2-2"], ssn.nodes["n2"])
    before = state(ssn)
    task = ssn.jobs["ns/job0"].tasks["ns-job0-2"]
    with pytest.raises(StatementError) as raised:
        if operation == "allocate":
            stmt.allocate(task, ssn.nodes[node])
        else:
            stmt.pipeline(task, node)
    assert str(raised.value) == message
    assert state(ssn) == before
    assert len(stmt.operations) == 1


def test_handler_error_rolls_back_the_pipeline() -> None:
    ssn = open_session()

    def refuse(event: Event) -> None:
        event.err = RuntimeError("no")

    ssn.add_event_handler(EventHandler(allocate_func=refuse), plugin="ledger")
    before = state(ssn)
    task = ssn.jobs["ns/job0"].tasks["ns-job0-1"]
    with pytest.raises(StatementError, match="pipeline to node n1 failed \\(no\\)"):
        ssn.statement().pipeline(task, "n1")
    assert state(ssn) == before


def test_save_and_recover_operations_replays_on_live_tasks() -> None:
    ssn = open_session()
    task = ssn.jobs["ns/job0"].tasks["ns-job0-1"]
    stmt = ssn.statement()
    stmt.allocate(task, ssn.nodes["n3"])
    saved = stmt.save_operations(stmt)
    stmt.discard()
    final = ssn.statement()
    final.recover_operations(saved)
    assert ssn.jobs["ns/job0"].tasks["ns-job0-1"] is task
    assert task.status == TaskStatus.ALLOCATED and task.node_name == "n3"


# ------------------------------------------------------------------------------ properties
OPERATIONS = st.lists(
    st.tuples(
        st.sampled_from(["allocate", "pipeline", "evict", "unpipeline"]), st.integers(0, 8), st.integers(0, 2)
    ),
    max_size=25,
)


def apply_operations(ssn: Session, stmt: Any, operations: list[tuple[str, int, int]]) -> None:
    tasks = tasks_of(ssn)
    names = sorted(ssn.nodes)
    for kind, index, node_index in operations:
        task = tasks[index % len(tasks)]
        node = ssn.nodes[names[node_index]]
        try:
            if kind == "allocate" and task.status == TaskStatus.PENDING:
                stmt.allocate(task, node)
            elif kind == "pipeline" and task.status == TaskStatus.PENDING:
                stmt.pipeline(task, node.name, True)
            elif kind == "evict" and task.status in (TaskStatus.RUNNING, TaskStatus.BOUND):
                stmt.evict(task, "test")
        except StatementError:
            pass  # a drawn operation the statement refuses; the test asserts the state after discard


@settings(max_examples=150, deadline=None)
@given(OPERATIONS)
def test_any_operations_then_discard_restore_everything(operations: list[tuple[str, int, int]]) -> None:
    ssn = open_session()
    before = state(ssn)
    stmt = ssn.statement()
    apply_operations(ssn, stmt, operations)
    stmt.discard()
    assert state(ssn) == before


@settings(max_examples=150, deadline=None)
@given(OPERATIONS, OPERATIONS)
def test_committed_allocations_never_over_commit(
    first: list[tuple[str, int, int]], second: list[tuple[str, int, int]]
) -> None:
    ssn = open_session()
    for operations in (first, second):
        stmt = ssn.statement()
        apply_operations(ssn, stmt, operations)
        stmt.commit()
    for node in ssn.nodes.values():
        assert node.used.less_equal(node.allocatable, ZERO), node
