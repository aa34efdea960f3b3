"""fumarole: batch scheduling with Volcano's semantics, Ascend NPU policies and a cluster simulator.

The library logs through loguru under the name ``fumarole`` and keeps that logger disabled; the
command line enables it (``logger.enable("fumarole")``).
"""

from importlib.metadata import PackageNotFoundError, version

from loguru import logger

from fumarole.framework import (
    ConfError,
    PluginArguments,
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

try:
    __version__ = version("fumarole")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0+unknown"

__all__ = [
    "ClusterCache",
    "ConfError",
    "PluginArguments",
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
