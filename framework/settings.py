"""Runtime settings, read from ``FUMAROLE_*`` environment variables (pydantic-settings).

==========================  =================================================  ===========
variable                    meaning                                            default
==========================  =================================================  ===========
FUMAROLE_SEED               seed of every random choice (ties between nodes)   0
FUMAROLE_LOG_LEVEL          loguru level for the CLI (TRACE … CRITICAL)         WARNING
FUMAROLE_CONF               scheduler conf used when ``--conf`` is not given   (none)
FUMAROLE_SCHEDULER_NAMES    comma-separated schedulerNames this scheduler owns  volcano
==========================  =================================================  ===========

Pods whose ``spec.schedulerName`` is empty or one of the names are scheduled; other pods only
occupy the resources of the node they run on.
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
        default_factory=lambda: ["volcano"]
    )

    def owns(self, scheduler_name: str) -> bool:
        """Whether a pod with this ``spec.schedulerName`` is ours to schedule."""
        return scheduler_name == "" or scheduler_name in self.scheduler_names
