"""Golden scenarios of the shipped conf/npu-inference-training-gang.yaml:
``pytest tests/scenarios/confs/npu-inference-training-gang``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fumarole.testing.scenarios import load_scenarios, run_and_check

HERE = Path(__file__).parent


@pytest.mark.parametrize(("document", "path"), load_scenarios(HERE))
def test_scenario(document: dict[str, Any], path: Path) -> None:
    run_and_check(document, path)
