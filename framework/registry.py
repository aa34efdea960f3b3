"""Finding actions, plugins and policies by name: Python entry points, loaded with stevedore.

Entry-point groups: ``fumarole.actions``, ``fumarole.plugins``, ``fumarole.policies`` and
``fumarole.observers`` (pluggy hook implementations, see ``hookspecs``). The entry-point name is the
name users write in the conf (Volcano's names: ``gang``, ``network-topology-aware``). A plugin entry
point is a builder ``builder(arguments) -> Plugin`` (a plugin class is one) that declares its
``arguments_model`` (and may define ``on_load(registry)``, called once at load, to check what it
needs of other entry points, e.g. the Ascend plugin its card policies); an action entry point is a
class or factory called once per scheduler. Built-in and third-party extensions are found the same
way. ``register_plugin`` / ``register_action`` add
in-process extensions (tests, notebooks) that take precedence.

``load`` imports exactly the names a conf uses, in conf order; an entry point that fails to import
is an error naming the entry point and the cause, never a log line. ``load_plugin`` validates a
plugin's arguments with its model (``validate_arguments``: the keys the model declares obsolete in
its ``obsolete_keys`` are left out, and reported by the conf loader) and builds it once: a builder
whose plugin reports a ``name`` other than its entry-point name is an error naming both (its
functions are registered under the conf name); so is a builder that raises.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from importlib import metadata
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ValidationError
from stevedore import NamedExtensionManager

from . import obsolete
from .interface import Action, NoArguments, Plugin, PluginBuilder
from .obsolete import ObsoleteKey

if TYPE_CHECKING:
    from .conf import Loc, Problem

ACTIONS_GROUP = "fumarole.actions"
PLUGINS_GROUP = "fumarole.plugins"
POLICIES_GROUP = "fumarole.policies"
OBSERVERS_GROUP = "fumarole.observers"


class RegistryError(LookupError):
    """A name that cannot be resolved or an extension that cannot be loaded."""


def _scan_entry_point_names(group: str) -> frozenset[str]:
    return frozenset(ep.name for ep in metadata.entry_points(group=group))


_NAMES: dict[str, frozenset[str]] = {}


def _entry_point_names(group: str, *, refresh: bool = False) -> frozenset[str]:
    """Names of a group's entry points; scanned once per process and again when a name is missed."""
    if refresh or group not in _NAMES:
        _NAMES[group] = _scan_entry_point_names(group)
    return _NAMES[group]


def _has_entry_point(group: str, name: str) -> bool:
    return name in _entry_point_names(group) or name in _entry_point_names(group, refresh=True)


if TYPE_CHECKING:
    # stevedore is generic (over the loaded object's type) from 5.6 on; the declared floor is 5.2,
    # whose class cannot be subscripted at run time.
    _NamedExtensionManager = NamedExtensionManager[Any]
else:
    _NamedExtensionManager = NamedExtensionManager


class _FreshNamedExtensionManager(_NamedExtensionManager):
    """stevedore's loader, reading the entry points afresh instead of from its process and disk caches,
    so entry points installed (or put on ``sys.path``) after a first load are found."""

    def list_entry_points(self) -> list[metadata.EntryPoint]:
        return list(metadata.entry_points(group=self.namespace))


def _load_named(group: str, names: list[str]) -> dict[str, Any]:
    """Import the named entry points of a group, in order; any failure raises RegistryError."""
    if not names:
        return {}

    def failed(_manager: Any, entry_point: Any, exc: BaseException) -> None:
        raise RegistryError(
            f"{group}: entry point {entry_point.name!r} ({entry_point.value}) failed to load: "
            f"{type(exc).__name__}: {exc}"
        ) from exc

    def missing(absent: Any) -> None:
        raise RegistryError(f"{group}: no entry point named {', '.join(sorted(absent))}")

    manager = _FreshNamedExtensionManager(
        namespace=group,
        names=names,
        name_order=True,
        invoke_on_load=False,
        on_load_failure_callback=failed,
        on_missing_entrypoints_callback=missing,
        propagate_map_exceptions=True,
    )
    return {extension.name: extension.plugin for extension in manager.extensions}


@dataclass(frozen=True)
class LoadedPlugin:
    """A conf entry resolved: its conf name, its builder and its validated arguments."""

    conf_name: str
    builder: PluginBuilder
    arguments: BaseModel

    def build(self) -> Plugin:
        """A fresh plugin for one session."""
        return self.builder(self.arguments)


def arguments_model(target: Any) -> type[BaseModel]:
    """The arguments model a builder or action declares (no arguments at all when it declares none)."""
    model: type[BaseModel] = getattr(target, "arguments_model", None) or NoArguments
    return model


def validate_arguments(model: type[BaseModel], arguments: dict[str, Any]) -> BaseModel:
    """The arguments as a conf gives them: keys in Volcano's spelling only (the aliases), never the
    Python field names a model may also accept in code. The keys the model declares obsolete (its
    ``obsolete_keys``, ``framework.obsolete``) are left out, or read under their new name; the conf
    loader reports them (``split_plugin_arguments``)."""
    kept, _ = obsolete.split(model, arguments)
    return model.model_validate(kept, by_alias=True, by_name=False)


class Registry:
    """Resolves conf names to plugin builders, action factories and NPU policies."""

    def __init__(self, *, entry_points: bool = True) -> None:
        self._use_entry_points = entry_points
        self._plugins: dict[str, PluginBuilder] = {}
        self._actions: dict[str, Callable[[], Action]] = {}
        self._policies: dict[str, Any] = {}
        self._aliases: list[tuple[re.Pattern[str], str]] = []
        self._loaded: dict[tuple[str, str], Any] = {}
        self._plugins_loaded: dict[tuple[str, str], LoadedPlugin] = {}
        self.register_alias(r"volcano-npu_.*", "huawei-npu")

    # ------------------------------------------------------------------ in-process registration
    def register_plugin(self, name: str, builder: PluginBuilder) -> None:
        self._plugins[name] = builder
        self._plugins_loaded = {key: loaded for key, loaded in self._plugins_loaded.items() if key[0] != name}

    def register_action(self, name: str, factory: Callable[[], Action]) -> None:
        self._actions[name] = factory

    def register_policy(self, name: str, policy: Any) -> None:
        self._policies[name] = policy

    def register_alias(self, pattern: str, target: str) -> None:
        """Let plugin names matching ``pattern`` (a full-match regex) resolve to ``target``."""
        self._aliases.append((re.compile(pattern), target))

    # ------------------------------------------------------------------ names
    def _canonical(self, name: str) -> str:
        if name in self._plugins or (self._use_entry_points and _has_entry_point(PLUGINS_GROUP, name)):
            return name
        for pattern, target in self._aliases:
            if pattern.fullmatch(name):
                return target
        return name

    def plugin_names(self) -> set[str]:
        names = set(self._plugins)
        if self._use_entry_points:
            names |= _entry_point_names(PLUGINS_GROUP, refresh=True)
        return names

    def action_names(self) -> set[str]:
        names = set(self._actions)
        if self._use_entry_points:
            names |= _entry_point_names(ACTIONS_GROUP, refresh=True)
        return names

    def policy_names(self) -> set[str]:
        names = set(self._policies)
        if self._use_entry_points:
            names |= _entry_point_names(POLICIES_GROUP, refresh=True)
        return names

    def has_plugin(self, name: str) -> bool:
        canonical = self._canonical(name)
        return canonical in self._plugins or (
            self._use_entry_points and _has_entry_point(PLUGINS_GROUP, canonical)
        )

    def _has_action_named(self, name: str) -> bool:
        return name in self._actions or (self._use_entry_points and _has_entry_point(ACTIONS_GROUP, name))

    def action_name(self, name: str) -> str | None:
        """The registered action a conf's name means: itself, else the one name equal to it but for
        case (``gangPreempt`` -> ``gangpreempt``, as seed 002 writes it); None when there is none."""
        if self._has_action_named(name):
            return name
        folded = name.casefold()
        matches = sorted(known for known in self.action_names() if known.casefold() == folded)
        return matches[0] if len(matches) == 1 else None

    def has_action(self, name: str) -> bool:
        """Whether a conf may name this action (case-insensitively, see ``action_name``)."""
        return self.action_name(name) is not None

    # ------------------------------------------------------------------ loading
    def _get(self, group: str, name: str, explicit: dict[str, Any]) -> Any:
        if name in explicit:
            return explicit[name]
        key = (group, name)
        if key not in self._loaded:
            if not self._use_entry_points:
                raise RegistryError(f"{group}: no extension named {name!r}")
            self._loaded[key] = _load_named(group, [name])[name]
        return self._loaded[key]

    def plugin_builder(self, name: str) -> PluginBuilder:
        """The builder of a plugin (aliases resolved); RegistryError when unknown or broken."""
        canonical = self._canonical(name)
        if not self.has_plugin(canonical):
            raise RegistryError(f"unknown plugin {name!r} (known: {', '.join(sorted(self.plugin_names()))})")
        builder: PluginBuilder = self._get(PLUGINS_GROUP, canonical, self._plugins)
        return builder

    def action_factory(self, name: str) -> Callable[[], Action]:
        registered = self.action_name(name)
        if registered is None:
            raise RegistryError(f"unknown action {name!r} (known: {', '.join(sorted(self.action_names()))})")
        factory: Callable[[], Action] = self._get(ACTIONS_GROUP, registered, self._actions)
        return factory

    def policies(self) -> dict[str, Any]:
        """Every policy: the installed ``fumarole.policies`` entry points and those registered in process."""
        names = sorted(self.policy_names())
        return {name: self.policy(name) for name in names}

    def policy(self, name: str) -> Any:
        if name not in self._policies and not (
            self._use_entry_points and _has_entry_point(POLICIES_GROUP, name)
        ):
            raise RegistryError(f"unknown policy {name!r}")
        return self._get(POLICIES_GROUP, name, self._policies)

    def load(self, plugin_names: list[str], action_names: list[str]) -> None:
        """Import the given entry points in conf order, so that a broken one fails before any cycle."""
        if self._use_entry_points:
            wanted = [self._canonical(n) for n in plugin_names if self._canonical(n) not in self._plugins]
            wanted = [n for n in dict.fromkeys(wanted) if (PLUGINS_GROUP, n) not in self._loaded]
            for name, builder in _load_named(PLUGINS_GROUP, wanted).items():
                self._loaded[(PLUGINS_GROUP, name)] = builder
            resolved = [self.action_name(n) or n for n in action_names]
            actions = [n for n in dict.fromkeys(resolved) if n not in self._actions]
            actions = [n for n in actions if (ACTIONS_GROUP, n) not in self._loaded]
            for name, factory in _load_named(ACTIONS_GROUP, actions).items():
                self._loaded[(ACTIONS_GROUP, name)] = factory
        for name in plugin_names:
            self.plugin_builder(name)
        for name in action_names:
            self.action_factory(name)

    # ------------------------------------------------------------------ plugins of a conf
    def load_plugin(self, conf_name: str, arguments: dict[str, Any]) -> LoadedPlugin:
        """Resolve, validate the arguments of and build once the plugin a conf names (see the module
        docstring); ``RegistryError`` or ``ValidationError`` when it cannot be used."""
        key = (conf_name, json.dumps(arguments, sort_keys=True, default=repr))
        if key in self._plugins_loaded:
            return self._plugins_loaded[key]
        builder = self.plugin_builder(conf_name)
        loaded = LoadedPlugin(conf_name, builder, validate_arguments(arguments_model(builder), arguments))
        try:
            plugin = loaded.build()
        except ValidationError:
            raise
        except Exception as exc:  # a third-party builder's bug is a conf error, not a crash
            raise RegistryError(f"plugin {conf_name!r} failed to build: {type(exc).__name__}: {exc}") from exc
        reported = getattr(plugin, "name", None)
        expected = self._canonical(conf_name)
        if reported != expected:
            raise RegistryError(
                f"plugin {expected!r} builds a plugin named {reported!r}: a plugin's name must be its "
                f"entry-point name {expected!r} (its functions are registered under its conf name)"
            )
        on_load = getattr(plugin, "on_load", None)
        if on_load is not None:
            on_load(self)
        self._plugins_loaded[key] = loaded
        return loaded

    def plugin_problems(self, conf_name: str, arguments: dict[str, Any], where: Loc) -> list[Problem]:
        """Why a conf entry cannot be loaded (empty when it can)."""
        from .conf import Problem, problems_of

        if not self.has_plugin(conf_name):
            known = ", ".join(sorted(self.plugin_names()))
            return [Problem((*where, "name"), f"unknown plugin {conf_name!r} (known: {known})")]
        try:
            self.load_plugin(conf_name, arguments)
        except ValidationError as exc:
            return problems_of(exc, (*where, "arguments"))
        except RegistryError as exc:
            return [Problem((*where, "name"), str(exc))]
        return []

    def split_plugin_arguments(
        self, conf_name: str, arguments: dict[str, Any]
    ) -> tuple[dict[str, Any], dict[str, ObsoleteKey]]:
        """A conf entry's arguments as the plugin reads them, and the obsolete keys left out (with
        what became of them); unchanged when the plugin cannot be loaded (``plugin_problems`` says
        why)."""
        try:
            return obsolete.split(arguments_model(self.plugin_builder(conf_name)), arguments)
        except RegistryError:
            return dict(arguments), {}

    def split_action_arguments(
        self, name: str, arguments: dict[str, Any]
    ) -> tuple[dict[str, Any], dict[str, ObsoleteKey]]:
        """An action's configuration arguments as it reads them, and the obsolete keys left out."""
        try:
            return obsolete.split(arguments_model(self.action_factory(name)), arguments)
        except RegistryError:
            return dict(arguments), {}

    def action_problems(self, name: str, arguments: dict[str, Any], where: Loc) -> list[Problem]:
        """Why an action's configuration is wrong (empty when it is fine)."""
        from .conf import problems_of

        try:
            validate_arguments(arguments_model(self.action_factory(name)), arguments)
        except ValidationError as exc:
            return problems_of(exc, where)
        return []
