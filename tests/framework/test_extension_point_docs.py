"""docs/extension-points.md is generated from the declarations and must not go stale; every
declaration is a complete contract (a docstring, Volcano's name, a rule, a fallback)."""

from __future__ import annotations

from pathlib import Path

import pytest
from fumarole.framework.extension_points import FLAGS, POINTS
from fumarole.framework.extension_points.docs import render
from fumarole.framework.voting import RULES

DOC = Path(__file__).resolve().parents[2] / "docs" / "extension-points.md"


def test_the_generated_document_is_up_to_date() -> None:
    if not DOC.exists():
        pytest.fail("run the tests from a checkout")
    assert DOC.read_text(encoding="utf-8") == render(), (
        "docs/extension-points.md is stale: run python -m fumarole.framework.extension_points.docs"
    )


@pytest.mark.parametrize("point", POINTS, ids=[point.name for point in POINTS])
def test_every_point_is_a_complete_contract(point: object) -> None:
    assert point.doc and point.go and point.signature.startswith("(")  # type: ignore[attr-defined]
    assert point.rule in RULES  # type: ignore[attr-defined]
    assert point.fallback.__doc__  # type: ignore[attr-defined]


def test_every_flag_but_hierarchy_gates_a_point() -> None:
    gating = {flag.key for point in POINTS for flag in point.flags}
    assert {flag.key for flag in FLAGS} - gating == {"enableHierarchy"}
