"""Runtime settings, read from ``FUMAROLE_*`` environment variables (pydantic-settings).

==========================  =================================================  ===========
variable                    meaning                                            default
==========================  =================================================  ===========
FUMAROLE_SEED               seed of every random choice (ties between nodes)   0
FUMAROLE_LOG_LEVEL          loguru level for the CLI (TRACE … CRITICAL)         WARNING
FUMAROLE_CONF               scheduler conf used when ``--conf`` is not given   (none)
FUMAROLE_SCHEDULER_NAMES    comma-separated schedulerNames owned besides ""     (none)
                            and "volcano"
FUMAROLE_MIN_NODES_TO_FIND  Volcano's --minimum-feasible-nodes                  100
FUMAROLE_MIN_PERCENTAGE_    Volcano's --minimum-percentage-nodes-to-find        5
OF_NODES_TO_FIND
FUMAROLE_PERCENTAGE_OF_     Volcano's --percentage-nodes-to-find (<= 0:         0
NODES_TO_FIND               adaptive, 50 - nodes/125)
FUMAROLE_OBSERVERS          load the observers installed in the                 true
                            ``fumarole.observers`` entry-point group
FUMAROLE_SKIP_UNSUPPORTED   leave out, with a warning, the conf's Volcano       false
                            plugins and actions fumarole does not implement
                            (``--skip-unsupported``)
FUMAROLE_STRICT             any warning about the input is an error (as         false
                            ``--strict`` of ``schedule`` and ``simulate``)
==========================  =================================================  ===========

Pods whose ``spec.schedulerName`` is empty, ``volcano`` or one of the names are scheduled; other
pods only occupy the resources of the node they run on.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

from pydantic import BeforeValidator, Field
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict


def _split_names(raw: object) -> object:
    if isinstance(raw, str):
        return [name.strip() for name in raw.split(",") if name.strip()]
    return raw


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="FUMAROLE_", extra="ignore")

    seed: int = 0
    log_level: Literal["TRACE", "DEBUG", "INFO", "SUCCESS", "WARNING", "ERROR", "CRITICAL"] = "WARNING"
    conf: Path | None = None
    scheduler_names: Annotated[list[str], NoDecode, BeforeValidator(_split_names)] = Field(
        default_factory=list
    )
    min_nodes_to_find: int = Field(100, ge=0)
    min_percentage_of_nodes_to_find: int = Field(5, ge=0, le=100)
    percentage_of_nodes_to_find: int = Field(0, le=100)
    observers: bool = True
    skip_unsupported: bool = False
    strict: bool = False

    def num_feasible_nodes_to_find(self, num_all_nodes: int) -> int:
        """How many feasible nodes a predicate pass looks for (``CalculateNumOfFeasibleNodesToFind``)."""
        if num_all_nodes <= self.min_nodes_to_find or self.percentage_of_nodes_to_find >= 100:
            return num_all_nodes
        percentage = self.percentage_of_nodes_to_find
        if percentage <= 0:
            percentage = max(50 - num_all_nodes // 125, self.min_percentage_of_nodes_to_find)
        return max(num_all_nodes * percentage // 100, self.min_nodes_to_find)

    def owns(self, scheduler_name: str) -> bool:
        """Whether a pod with this ``spec.schedulerName`` is ours to schedule."""
        return scheduler_name in ("", "volcano") or scheduler_name in self.scheduler_names
