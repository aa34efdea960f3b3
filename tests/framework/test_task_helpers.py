"""Pod helpers of ``framework/api``: the queue-allocation gate and Go booleans."""

from __future__ import annotations

import pytest
from fumarole.framework.api.go_bool import go_bool, parse_go_bool
from fumarole.framework.api.task_info import QUEUE_ALLOCATION_GATE, has_only_queue_allocation_gate
from fumarole.testing import build_pod


@pytest.mark.parametrize(
    ("gates", "expected"),
    [
        pytest.param([], False, id="no-gate"),
        pytest.param([QUEUE_ALLOCATION_GATE], True, id="only-the-volcano-gate"),
        pytest.param(["example.com/wait"], False, id="an-external-gate"),
        pytest.param([QUEUE_ALLOCATION_GATE, "example.com/wait"], False, id="volcano-and-external"),
        pytest.param(["volcano.sh/queue-allocation-gate"], False, id="not-volcanos-key"),
    ],
)
def test_has_only_queue_allocation_gate(gates: list[str], expected: bool) -> None:
    pod = build_pod("ns", "p", extra_spec={"schedulingGates": [{"name": name} for name in gates]})
    assert QUEUE_ALLOCATION_GATE == "scheduling.volcano.sh/queue-allocation-gate"
    assert has_only_queue_allocation_gate(pod) is expected


def test_no_pod_has_no_gate() -> None:
    assert has_only_queue_allocation_gate(None) is False


GO_TRUE = ("1", "t", "T", "TRUE", "true", "True")
GO_FALSE = ("0", "f", "F", "FALSE", "false", "False")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        *[pytest.param(text, True, id=f"true-{text}") for text in ("1", "t", "T", "TRUE", "true", "True")],
        *[
            pytest.param(text, False, id=f"false-{text}")
            for text in ("0", "f", "F", "FALSE", "false", "False")
        ],
        pytest.param("tRuE", None, id="mixed-case"),
        pytest.param("yes", None, id="yes"),
        pytest.param(" true", None, id="space"),
        pytest.param("", None, id="empty"),
    ],
)
def test_parse_go_bool(text: str, expected: bool | None) -> None:
    assert parse_go_bool(text) is expected


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        pytest.param(True, True, id="yaml-true"),
        pytest.param("F", False, id="go-false"),
        pytest.param("yes", "expected a boolean, got 'yes'", id="yes-rejected"),
        pytest.param(1, "expected a boolean, got 1", id="int-rejected"),
    ],
)
def test_go_bool(raw: object, expected: bool | str) -> None:
    if isinstance(expected, bool):
        assert go_bool(raw) is expected
    else:
        with pytest.raises(ValueError, match=f"^{expected}$"):
            go_bool(raw)
