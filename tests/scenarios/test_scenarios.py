"""Golden scenarios: every YAML scenario under tests/scenarios/, run by ``fumarole.testing.scenarios``
(the format is documented there).

``confs/<conf stem>/`` holds the scenarios of each shipped conf (conf/*.yaml); each such folder has
its own test module, so that ``pytest tests/scenarios/confs/<stem>`` checks one conf, and is left
out here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fumarole.testing.scenarios import load_scenarios, run_and_check

HERE = Path(__file__).parent


@pytest.mark.parametrize(("document", "path"), load_scenarios(HERE, exclude=["confs"]))
def test_scenario(document: dict[str, Any], path: Path) -> None:
    run_and_check(document, path)
