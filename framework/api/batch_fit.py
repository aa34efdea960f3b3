"""The answer of a batch predicate over candidate rows of the session's node table.

``passed`` is a boolean mask aligned with the rows asked about. ``failures`` explains the failed
rows: each entry is ``(mask, code, reason)``; the first entry whose mask covers a failed row gives
that row's status, and rows failed by no entry get ``default_code`` / ``default_reason``. A subclass
may report several statuses per row (``statuses_for``) or a ready-made error (``error_for``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from .fit_errors import Code, FitError, Status

if TYPE_CHECKING:
    from .task_info import TaskInfo


@dataclass
class BatchFit:
    passed: np.ndarray
    failures: list[tuple[np.ndarray, Code, str]] = field(default_factory=list)
    default_code: Code = Code.UNSCHEDULABLE
    default_reason: str = "node(s) didn't match the predicate"

    def reason_for(self, position: int) -> tuple[Code, str]:
        for mask, code, reason in self.failures:
            if mask[position]:
                return code, reason
        return self.default_code, self.default_reason

    def statuses_for(self, position: int) -> list[tuple[Code, str]]:
        """Every status of a failed row; one by default, several when a plugin reports more."""
        return [self.reason_for(position)]

    def error_for(self, position: int, task: TaskInfo, node_name: str) -> FitError:
        """The fit error of the failed row at ``position``."""
        statuses = self.statuses_for(position) or [(self.default_code, self.default_reason)]
        return FitError(task, node_name, [Status(code, reason) for code, reason in statuses])


@dataclass
class ErrorsFit(BatchFit):
    """A batch answer built from scalar answers: each failed row keeps the plugin's own error."""

    errors: dict[int, FitError] = field(default_factory=dict)

    def error_for(self, position: int, task: TaskInfo, node_name: str) -> FitError:
        return self.errors[position]
