"""Label selector parsing with Kubernetes' validation, and vectorised evaluation over label columns.

Two parsers, as in apimachinery:

* node selector requirements (``nodeSelectorRequirementsAsSelector``): In, NotIn, Exists,
  DoesNotExist, Gt, Lt; In/NotIn need values, Exists/DoesNotExist take none, Gt/Lt take exactly
  one base-10 int64;
* pod label selectors (``metav1.LabelSelectorAsSelector``): matchLabels plus In, NotIn, Exists,
  DoesNotExist; ``None`` selects nothing, an empty selector selects everything.

Label key and value syntax (qualified names, 63 characters) is not checked: the API server
validates it before a pod exists.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
from fumarole.framework.api.labels import LabelSelector, Requirement
from fumarole.framework.cache.objects import LabelSelectorModel, SelectorRequirementModel

from .node_columns import LabelColumn

_GO_INT = re.compile(r"[+-]?[0-9]+")
_INT64_MIN = -(2**63)
_INT64_MAX = 2**63 - 1


class SelectorError(ValueError):
    """A selector Kubernetes refuses to parse."""


def parse_go_int64(text: str) -> int | None:
    """``strconv.ParseInt(text, 10, 64)``: None when Go would return an error."""
    if not _GO_INT.fullmatch(text):
        return None
    value = int(text)
    if value < _INT64_MIN or value > _INT64_MAX:
        return None
    return value


def _go_strings(values: Sequence[str]) -> str:
    if not values:
        return "[]string(nil)"
    return "[]string{" + ", ".join(f'"{v}"' for v in values) + "}"


def _check_values(operator: str, values: Sequence[str]) -> None:
    """``labels.NewRequirement``'s checks of the values for the operator."""
    if operator in ("In", "NotIn"):
        if not values:
            raise SelectorError(
                f"values: Invalid value: {_go_strings(values)}: "
                "for 'in', 'notin' operators, values set can't be empty"
            )
    elif operator in ("Exists", "DoesNotExist"):
        if values:
            raise SelectorError(
                f"values: Invalid value: {_go_strings(values)}: "
                "values set must be empty for exists and does not exist"
            )
    elif operator in ("Gt", "Lt"):
        if len(values) != 1:
            raise SelectorError(
                f"values: Invalid value: {_go_strings(values)}: "
                "for 'Gt', 'Lt' operators, exactly one value is required"
            )
        for position, value in enumerate(values):
            if parse_go_int64(value) is None:
                raise SelectorError(
                    f'values[{position}]: Invalid value: "{value}": '
                    "for 'Gt', 'Lt' operators, the value must be an integer"
                )


# ---------------------------------------------------------------------------------------------- node side
def node_requirement(expr: SelectorRequirementModel) -> Requirement:
    """A validated node selector requirement (matchExpressions); raises ``SelectorError``."""
    _check_values(expr.operator, expr.values)
    return Requirement(expr.key, expr.operator, tuple(expr.values))


def field_requirement(expr: SelectorRequirementModel) -> tuple[str, bool, str]:
    """A validated matchFields requirement as (key, equal, value); raises ``SelectorError``."""
    if expr.operator not in ("In", "NotIn"):
        raise SelectorError(
            f'operator: Unsupported value: "{expr.operator}": supported values: "In", "NotIn"'
        )
    if len(expr.values) != 1:
        raise SelectorError(f"values: Invalid value: {_go_strings(expr.values)}: must have one element")
    return expr.key, expr.operator == "In", expr.values[0]


def requirement_table(requirement: Requirement, column: LabelColumn) -> np.ndarray:
    """Truth table of ``requirement`` over a column: entry 0 for "label absent", entry 1+i for value i."""
    op = requirement.operator
    size = len(column.values) + 1
    if op == "In" or op == "NotIn":
        table = np.zeros(size, dtype=bool)
        for value in requirement.values:
            code = column.index.get(value)
            if code is not None:
                table[code + 1] = True
        if op == "NotIn":
            table = ~table
        return table
    if op == "Exists":
        table = np.ones(size, dtype=bool)
        table[0] = False
        return table
    if op == "DoesNotExist":
        table = np.zeros(size, dtype=bool)
        table[0] = True
        return table
    if op == "Gt" or op == "Lt":
        bound = parse_go_int64(requirement.values[0])
        table = np.zeros(size, dtype=bool)
        if bound is None:
            return table
        for code, value in enumerate(column.values):
            actual = parse_go_int64(value)
            if actual is not None:
                table[code + 1] = actual > bound if op == "Gt" else actual < bound
        return table
    raise SelectorError(f"unknown operator {op!r}")


def requirement_mask(requirement: Requirement, column: LabelColumn) -> np.ndarray:
    """The requirement evaluated on every row of the column."""
    mask: np.ndarray = requirement_table(requirement, column)[column.codes + 1]
    return mask


def label_matches(requirement: Requirement, labels: dict[str, str]) -> bool:
    """The requirement on one label set, with Go's integer parsing for Gt / Lt."""
    if requirement.operator in ("Gt", "Lt"):
        if requirement.key not in labels:
            return False
        actual = parse_go_int64(labels[requirement.key])
        bound = parse_go_int64(requirement.values[0])
        if actual is None or bound is None:
            return False
        return actual > bound if requirement.operator == "Gt" else actual < bound
    return requirement.matches(labels)


# ---------------------------------------------------------------------------------------------- pod side
def pod_label_selector(model: LabelSelectorModel | None) -> LabelSelector | None:
    """``LabelSelectorAsSelector``: None selects nothing; raises ``SelectorError``."""
    if model is None:
        return None
    requirements = []
    for expr in model.match_expressions:
        if expr.operator not in ("In", "NotIn", "Exists", "DoesNotExist"):
            raise SelectorError(f'"{expr.operator}" is not a valid label selector operator')
        _check_values(expr.operator, expr.values)
        requirements.append(expr.to_requirement())
    return LabelSelector(dict(model.match_labels), tuple(requirements))


def selector_key(model: LabelSelectorModel | None) -> tuple[object, ...] | None:
    """A hashable identity of a selector model (None stays None)."""
    if model is None:
        return None
    return (
        tuple(sorted(model.match_labels.items())),
        tuple((e.key, e.operator, tuple(e.values)) for e in model.match_expressions),
    )
