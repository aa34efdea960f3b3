"""fumarole: batch scheduling with Volcano's semantics, Ascend NPU policies and a cluster simulator.

The library logs through loguru under the name ``fumarole`` and keeps that logger disabled; the
command line enables it (``logger.enable("fumarole")``).

The names below are imported on first use (PEP 562), so that importing a light sub-package (the
pytest plugin ``fumarole.testing.plugin``, loaded by pytest at start-up before coverage starts)
does not import the framework.
"""

from __future__ import annotations

import importlib
from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING, Any

from loguru import logger

if TYPE_CHECKING:
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

_FRAMEWORK = (
    "ConfError",
    "PluginArguments",
    "PluginOption",
    "Registry",
    "Scheduler",
    "SchedulerConf",
    "Session",
    "Settings",
    "Tier",
    "load_conf",
    "parse_conf",
)
_EXPORTS = {
    **dict.fromkeys(_FRAMEWORK, "fumarole.framework"),
    "ClusterCache": "fumarole.framework.cache",
    "SnapshotError": "fumarole.framework.cache",
}


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'fumarole' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


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
