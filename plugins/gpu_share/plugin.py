"""gpu-share: per-device GPU sharing as a scheduler plugin (the artefact's ``Open-Gpu-Share``).

Weng et al., "Beware of Fragmentation: Scheduling GPU-Sharing Workloads with Fragmentation Gradient
Descent", USENIX ATC '23; spec: the artefact's ``pkg/simulator/plugin/open_gpu_share.go`` (Filter,
Reserve, Unreserve). The device model is ``devices.py``.

Registers:

* ``batch_predicate`` (gated by ``enablePredicate``): a task asking GPUs fits only the nodes whose
  model it accepts and that have ``count`` devices with ``milli`` free each; a task whose GPU
  annotations cannot be read fits no node (the reason names the annotation);
* an allocate / deallocate event handler: allocating (or pipelining) a task asking GPUs chooses its
  devices by ``gpu-share.gpuSelMethod`` (``best`` by default; ``worst``, ``random``, or a policy
  plugin's own choice named after it: ``fgd-score``, ``dot-product-score``), takes them, and writes
  the pod annotation ``alibabacloud.com/gpu-index`` (the bind carries it); a task that already has a usable
  ``gpu-index`` keeps those devices (as ``Reserve`` does). Undoing the allocation (a discarded
  statement) gives the devices back and restores the annotation as it was. An evicted (Releasing)
  task keeps its devices until its pod is gone.

The devices of the session's nodes are shared with the GPU policies through ``session_devices(ssn)``;
each node's row is rebuilt from its tasks only when the cluster cache's node changed since the last
session (``NodeInfo.origin``), so opening a session costs what changed.

``random`` draws from a generator seeded by ``FUMAROLE_SEED`` and the cycle number: the same seed gives
the same devices.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Literal

import numpy as np
from fumarole.framework.api import BatchFit, Code
from fumarole.framework.interface import Event, EventHandler, PluginArguments
from pydantic import Field

from .devices import (
    GPU_INDEX,
    GpuAnnotationError,
    GpuDevices,
    GpuRequest,
    RowState,
    choose,
    format_index,
    gpu_request,
    held_devices,
    row_state,
)

if TYPE_CHECKING:
    from fumarole.framework.api.node_info import NodeInfo
    from fumarole.framework.api.task_info import TaskInfo
    from fumarole.framework.session import Session

PLUGIN_NAME = "gpu-share"
ROWS_KEY = "gpu-share.rows"
RANDOM_STREAM = 0x6770


class GpuShareArguments(PluginArguments):
    selection: Literal["best", "worst", "random", "fgd-score", "dot-product-score"] = Field(
        "best", alias="gpu-share.gpuSelMethod"
    )
    """How a task's devices are chosen on the node the scheduler picked."""


class GpuShareError(RuntimeError):
    """A task's devices cannot be chosen on the node it was allocated to."""


_SESSIONS: weakref.WeakKeyDictionary[Session, SessionGpus] = weakref.WeakKeyDictionary()


class SessionGpus:
    """The session's ``GpuDevices`` plus what the plugin needs to keep them current."""

    def __init__(self, ssn: Session) -> None:
        self.ssn = ssn
        table = ssn.node_table
        self.devices = GpuDevices.build(table.nodes, self._row_states(ssn, table.nodes))
        self.requests: dict[str, GpuRequest | None] = {}
        self.written: dict[str, str | None] = {}
        self.selection = "best"
        self.rng = np.random.default_rng([ssn.settings.seed, ssn.cycle, RANDOM_STREAM])

    @staticmethod
    def _row_states(ssn: Session, nodes: list[NodeInfo]) -> list[RowState]:
        known: dict[str, tuple[NodeInfo, RowState]] = ssn.persistent(ROWS_KEY, dict)
        states = []
        for node in nodes:
            origin = node.origin
            found = known.get(node.name)
            if origin is not None and found is not None and found[0] is origin:
                states.append(found[1])
                continue
            state = row_state(node)
            if origin is not None:
                known[node.name] = (origin, state)
            states.append(state)
        return states

    def request(self, task: TaskInfo) -> GpuRequest | None:
        """The task's GPU request (read once per session); raises ``GpuAnnotationError``."""
        uid = task.uid
        if uid in self.requests:
            return self.requests[uid]
        request = gpu_request(task.pod_annotations)
        self.requests[uid] = request
        return request

    def choose(self, row: int, request: GpuRequest, task: TaskInfo) -> tuple[int, ...] | None:
        devices = self.devices
        if self.selection in ("best", "worst", "random"):
            return choose(devices.free[row], request, self.selection, self.rng)
        selector = devices.selectors.get(self.selection)
        if selector is None:
            raise GpuShareError(
                f"gpu-share.gpuSelMethod is {self.selection!r} but no plugin of the conf provides it "
                f"(add the {self.selection} plugin's tier entry)"
            )
        return selector(row, request, task)


def session_devices(ssn: Session) -> GpuDevices:
    """The GPUs of the session's nodes (built on first use, one per session)."""
    return session_gpus(ssn).devices


def session_gpus(ssn: Session) -> SessionGpus:
    found = _SESSIONS.get(ssn)
    if found is None:
        found = _SESSIONS[ssn] = SessionGpus(ssn)
    return found


class GpuSharePlugin:
    """Per-device GPU sharing (the FGD paper's ``Open-Gpu-Share``)."""

    name = PLUGIN_NAME
    idle_noop = True
    arguments_model = GpuShareArguments

    def __init__(self, arguments: GpuShareArguments) -> None:
        self.arguments = arguments

    def on_session_open(self, ssn: Session) -> None:
        state = session_gpus(ssn)
        state.selection = self.arguments.selection

        def predicate(task: TaskInfo, rows: np.ndarray) -> BatchFit:
            rows = np.asarray(rows, dtype=np.int64)
            try:
                request = state.request(task)
            except GpuAnnotationError as exc:
                failed = np.zeros(len(rows), dtype=bool)
                return BatchFit(failed, [(~failed, Code.UNSCHEDULABLE_AND_UNRESOLVABLE, f"pod {exc}")])
            if request is None:
                return BatchFit(np.ones(len(rows), dtype=bool))
            devices = state.devices
            model_ok = devices.model_ok(request, rows)
            passed = model_ok & devices.fits(request, rows)
            return BatchFit(
                passed,
                [
                    (~model_ok, Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "node(s) GPU model not accepted"),
                    (~passed, Code.UNSCHEDULABLE, "node(s) without enough free GPU devices"),
                ],
            )

        def allocated(event: Event) -> None:
            task = event.task
            try:
                request = state.request(task)
            except GpuAnnotationError as exc:
                event.err = GpuShareError(f"pod {task.namespace}/{task.name}: {exc}")
                return
            if request is None or task.uid in state.devices.holdings:
                return
            row = ssn.node_table.index.get(task.node_name)
            if row is None:
                event.err = GpuShareError(f"node {task.node_name} is not in the session")
                return
            free = state.devices.free[row]
            devices = held_devices(task.pod_annotations, free, request)
            if devices is None:
                try:
                    devices = state.choose(row, request, task)
                except GpuShareError as exc:
                    event.err = exc
                    return
            if devices is None:
                event.err = GpuShareError(
                    f"node {task.node_name} has no {request.count} GPU device(s) with {request.milli} "
                    f"milli-GPU free for pod {task.namespace}/{task.name}"
                )
                return
            state.devices.take(task.uid, row, devices, request)
            if task.uid not in state.written:
                state.written[task.uid] = task.pod_annotations.get(GPU_INDEX)
            task.pod_annotations[GPU_INDEX] = format_index(devices)

        def deallocated(event: Event) -> None:
            from fumarole.framework.api.task_status import TaskStatus

            task = event.task
            if task.status == TaskStatus.RELEASING:
                return
            if state.devices.release(task.uid) is None:
                return
            before = state.written.pop(task.uid, None)
            if before is None:
                task.pod_annotations.pop(GPU_INDEX, None)
            else:
                task.pod_annotations[GPU_INDEX] = before

        ssn.batch_predicate.register(predicate)
        ssn.add_event_handler(EventHandler(allocate_func=allocated, deallocate_func=deallocated))

    def on_session_close(self, ssn: Session) -> None:
        _SESSIONS.pop(ssn, None)
