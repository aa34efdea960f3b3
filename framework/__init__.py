"""The engine: sessions, extension points and their voting rules, statements, conf, loading, cache.

It imports nothing from ``actions``, ``plugins`` or ``policies``: those are found by entry points.
"""

from .conf import ConfError, PluginOption, SchedulerConf, Tier, load_conf, parse_conf
from .interface import Action, Arguments, Event, EventHandler, Plugin
from .registry import Registry, RegistryError
from .scheduler import Scheduler
from .session import Session
from .session_plugins import BatchFit
from .settings import Settings
from .statement import Statement

__all__ = [
    "Action",
    "Arguments",
    "BatchFit",
    "ConfError",
    "Event",
    "EventHandler",
    "Plugin",
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
