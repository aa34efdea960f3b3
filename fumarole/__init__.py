"""fumarole: batch scheduling with Volcano's semantics, Ascend NPU policies and a cluster simulator.

The library logs through loguru under the name ``fumarole`` and keeps that logger disabled; the
command line enables it (``logger.enable("fumarole")``).
"""

from loguru import logger

from fumarole.framework import (
    Arguments,
    ConfError,
    PluginOption,
    Registry,
    Scheduler,
    SchedulerConf,
    Session,
    Settings,
    Tier,
    load_conf,
    parse_conf,
)
from fumarole.framework.cache import ClusterCache, SnapshotError

logger.disable("fumarole")

__version__ = "0.1.0"

__all__ = [
    "Arguments",
    "ClusterCache",
    "ConfError",
    "PluginOption",
    "Registry",
    "Scheduler",
    "SchedulerConf",
    "Session",
    "Settings",
    "SnapshotError",
    "Tier",
    "__version__",
    "load_conf",
    "parse_conf",
]
