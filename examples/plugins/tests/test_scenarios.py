"""The package's golden scenarios (tests/scenarios/*.yaml), run by fumarole's scenario runner."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fumarole.testing.scenarios import load_scenarios, run_and_check

SCENARIOS = Path(__file__).parent / "scenarios"


@pytest.mark.parametrize(("document", "path"), load_scenarios(SCENARIOS))
def test_scenario(document: dict[str, Any], path: Path) -> None:
    run_and_check(document, path)
