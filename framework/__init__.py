"""The engine: sessions, extension points and their voting rules, statements, conf, loading, cache.

It imports nothing from ``actions``, ``plugins`` or ``policies``: those are found by entry points.
"""

from .api.batch_fit import BatchFit
from .conf import ConfError, PluginOption, SchedulerConf, Tier, load_conf, parse_conf
from .interface import Action, Event, EventHandler, NoArguments, Plugin, PluginArguments
from .registry import Registry, RegistryError
from .scheduler import Scheduler
from .session import Session
from .settings import Settings
from .statement import Statement

__all__ = [
    "Action",
    "BatchFit",
    "ConfError",
    "Event",
    "EventHandler",
    "NoArguments",
    "Plugin",
    "PluginArguments",
    "PluginOption",
    "Registry",
    "RegistryError",
    "Scheduler",
    "SchedulerConf",
    "Session",
    "Settings",
    "Statement",
    "Tier",
    "load_conf",
    "parse_conf",
]
