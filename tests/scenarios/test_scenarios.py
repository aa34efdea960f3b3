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
from fumarole.testing.scenarios import iter_scenarios, load_scenarios, run_and_check

HERE = Path(__file__).parent


@pytest.mark.parametrize(("document", "path"), load_scenarios(HERE, exclude=["confs"]))
def test_scenario(document: dict[str, Any], path: Path) -> None:
    run_and_check(document, path)


ROOT = HERE.parents[1]
SHIPPED = sorted(path.stem for path in (ROOT / "conf").glob("*.yaml"))


@pytest.mark.parametrize("stem", SHIPPED)
def test_every_shipped_conf_has_its_scenarios(stem: str) -> None:
    folder = HERE / "confs" / stem
    assert list(folder.glob("test_*.py")), f"{folder}: no test module runs its scenarios"
    scenarios = list(iter_scenarios(folder))
    assert scenarios, f"{folder}: no scenario"
    for scenario in scenarios:
        conf_file = (scenario.path.parent / scenario.document.get("conf_file", "")).resolve()
        assert conf_file == ROOT / "conf" / f"{stem}.yaml", scenario.id
