"""Why a task does not fit a node, and the per-task summary over nodes.

Mirrors ``pkg/scheduler/api/unschedule_info.go`` and the Status codes of ``types.go``. A plugin's
predicate raises (or returns) a ``FitError`` whose statuses say how bad the failure is:
``UNSCHEDULABLE`` may be resolved by evicting pods, ``UNSCHEDULABLE_AND_UNRESOLVABLE`` may not.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from enum import IntEnum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .node_info import NodeInfo
    from .task_info import TaskInfo

NODE_POD_NUMBER_EXCEEDED = "node(s) pod number exceeded"
NODE_RESOURCE_FIT_FAILED = "node(s) resource fit failed"
ALL_NODE_UNAVAILABLE_MSG = "all nodes are unavailable"


class Code(IntEnum):
    SUCCESS = 0
    ERROR = 1
    UNSCHEDULABLE = 2
    UNSCHEDULABLE_AND_UNRESOLVABLE = 3
    WAIT = 4
    SKIP = 5


@dataclass(frozen=True)
class Status:
    code: Code
    reason: str
    plugin: str = ""


class FitError(Exception):
    """A task does not fit one node (``api.FitError``)."""

    def __init__(self, task: TaskInfo | None, node_name: str, statuses: list[Status]) -> None:
        self.task_namespace = task.namespace if task is not None else ""
        self.task_name = task.name if task is not None else ""
        self.node_name = node_name
        self.statuses = statuses
        super().__init__(str(self))

    @classmethod
    def of(
        cls, task: TaskInfo | None, node: NodeInfo | str, code: Code, *reasons: str, plugin: str = ""
    ) -> FitError:
        name = node if isinstance(node, str) else node.name
        return cls(task, name, [Status(code, reason, plugin) for reason in reasons])

    def reasons(self) -> list[str]:
        return [status.reason for status in self.statuses if status.reason]

    def contains_unschedulable(self) -> bool:
        return any(status.code == Code.UNSCHEDULABLE for status in self.statuses)

    def contains_unresolvable(self) -> bool:
        return any(status.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE for status in self.statuses)

    def contains_error_skip_or_wait(self) -> bool:
        return any(status.code in (Code.ERROR, Code.SKIP, Code.WAIT) for status in self.statuses)

    def __str__(self) -> str:
        return (
            f"task {self.task_namespace}/{self.task_name} on node {self.node_name} fit failed: "
            f"{', '.join(self.reasons())}"
        )


def as_fit_error(task: TaskInfo | None, node_name: str, error: BaseException) -> FitError:
    """Wrap any exception as a FitError with code ERROR (``FitErrors.SetNodeError``)."""
    if isinstance(error, FitError):
        error.node_name = node_name
        return error
    return FitError(task, node_name, [Status(Code.ERROR, str(error))])


class FitErrors:
    """Per-node failures of one task, summarised as a histogram (``api.FitErrors``).

    ``nodes`` may be filled lazily: a producer can hand over a function that builds the per-node
    errors only when somebody reads them (most predicate passes find a node and never look), and
    with it a ``summary`` function giving what ``__str__`` and ``reason_histogram`` need — how many
    nodes failed and the reasons' histogram, exactly as the built errors would give them — so that
    the message of a task that fits nowhere does not build one error per node.
    """

    def __init__(
        self,
        nodes: dict[str, FitError] | None = None,
        hyper_node: str = "",
        error: str = "",
        *,
        lazy: Callable[[], dict[str, FitError]] | None = None,
        summary: Callable[[], tuple[int, Counter[str]]] | None = None,
    ) -> None:
        self._nodes = nodes if nodes is not None else {}
        self._lazy = lazy
        self._summary = summary
        self._summarised: tuple[int, Counter[str]] | None = None
        self.hyper_node = hyper_node
        self.error = error

    def _lazy_summary(self) -> tuple[int, Counter[str]] | None:
        """The producer's summary while the errors are not built and nothing was added to them."""
        if self._lazy is None or self._summary is None or self._nodes:
            return None
        if self._summarised is None:
            self._summarised = self._summary()
        return self._summarised

    @property
    def nodes(self) -> dict[str, FitError]:
        if self._lazy is not None:
            produced = self._lazy()
            self._lazy = None
            produced.update(self._nodes)
            self._nodes = produced
        return self._nodes

    def set_error(self, message: str) -> None:
        self.error = message

    def set_hyper_node(self, name: str) -> None:
        self.hyper_node = name

    def set_node_error(self, node_name: str, error: BaseException) -> None:
        self.nodes[node_name] = as_fit_error(None, node_name, error)

    def unresolvable_nodes(self) -> set[str]:
        """``GetUnschedulableAndUnresolvableNodes``."""
        return {name for name, fit in self.nodes.items() if fit.contains_unresolvable()}

    def reason_histogram(self) -> Counter[str]:
        summary = self._lazy_summary()
        if summary is not None:
            return Counter(summary[1])
        counts: Counter[str] = Counter()
        for fit in self.nodes.values():
            counts.update(fit.reasons())
        return counts

    def __str__(self) -> str:
        summary = self._lazy_summary()
        count = summary[0] if summary is not None else len(self.nodes)
        head = self.error or f"0/{count} nodes are unavailable"
        if not count:
            return head
        parts = sorted(f"{count} {reason}" for reason, count in self.reason_histogram().items())
        message = f"{head}: {', '.join(parts)}."
        if self.hyper_node:
            message = f"In hyperNode {self.hyper_node}: {message}"
        return message

    def __repr__(self) -> str:
        return f"FitErrors({self})"
