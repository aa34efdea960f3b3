"""Label selectors (``metav1.LabelSelector``): matchLabels and matchExpressions.

Operators: In, NotIn, Exists, DoesNotExist (label selectors), plus Gt and Lt (node selector
requirements). Used by node affinity, inter-pod affinity, hypernode labelMatch members and
sub-group policies.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Requirement:
    key: str
    operator: str
    values: tuple[str, ...] = ()

    def matches(self, labels: Mapping[str, str]) -> bool:
        op = self.operator
        present = self.key in labels
        if op == "In":
            return present and labels[self.key] in self.values
        if op == "NotIn":
            return not present or labels[self.key] not in self.values
        if op == "Exists":
            return present
        if op == "DoesNotExist":
            return not present
        if op in ("Gt", "Lt"):
            if not present or len(self.values) != 1:
                return False
            try:
                actual = int(labels[self.key])
                bound = int(self.values[0])
            except ValueError:
                return False
            return actual > bound if op == "Gt" else actual < bound
        raise ValueError(f"unknown selector operator {op!r}")


@dataclass(frozen=True)
class LabelSelector:
    match_labels: Mapping[str, str] = field(default_factory=dict)
    match_expressions: Sequence[Requirement] = ()

    def matches(self, labels: Mapping[str, str]) -> bool:
        for key, value in self.match_labels.items():
            if labels.get(key) != value:
                return False
        return all(req.matches(labels) for req in self.match_expressions)

    def is_empty(self) -> bool:
        return not self.match_labels and not self.match_expressions
