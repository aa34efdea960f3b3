"""What is installed: every entry point of fumarole's groups, described for ``fumarole plugins list``.

For each entry point: its name, kind, the distribution (and version) that provides it and the
entry point itself; for plugins and actions the arguments their ``arguments_model`` accepts (key as
the conf spells it, type, default or required); for plugins the extension points they register,
measured rather than declared: the plugin is built with its default arguments and opened in a
session on an empty cluster, with a conf holding only that plugin and Volcano's flag defaulting
(every flag on except ``enableHierarchy`` and ``enabledClusterOrder``); the points (and batch
variants) whose ``plugins()`` then name it are listed, in declaration order. An entry point that
cannot be imported, built or opened is described with its error instead.
"""

from __future__ import annotations

import json
import types
from dataclasses import dataclass
from importlib import metadata
from typing import Annotated, Any, Literal, Union, get_args, get_origin, get_type_hints

from pydantic import BaseModel, ValidationError
from pydantic_core import to_jsonable_python

from fumarole.framework.cache import ClusterCache
from fumarole.framework.conf import PluginOption, SchedulerConf, Tier, format_loc, problems_of
from fumarole.framework.extension_points import POINTS
from fumarole.framework.registry import (
    ACTIONS_GROUP,
    OBSERVERS_GROUP,
    PLUGINS_GROUP,
    POLICIES_GROUP,
    Registry,
    RegistryError,
    arguments_model,
)
from fumarole.framework.session import Session
from fumarole.framework.settings import Settings

KINDS: dict[str, str] = {
    "action": ACTIONS_GROUP,
    "observer": OBSERVERS_GROUP,
    "plugin": PLUGINS_GROUP,
    "policy": POLICIES_GROUP,
}
"""Kind -> entry-point group, in the order of the listing."""

OTHER_KEYS = "<other keys>"
"""The key shown for the extra keys of a model that accepts them and does not name them."""


@dataclass(frozen=True)
class Argument:
    """One key a plugin's or action's arguments accept."""

    key: str
    type: str
    default: Any = None
    """The default as JSON (None: none, or unset)."""
    required: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key, "type": self.type, "default": self.default, "required": self.required}


@dataclass
class Extension:
    """One installed entry point."""

    kind: str
    name: str
    distribution: str | None
    version: str | None
    entry_point: str
    arguments: list[Argument] | None = None
    """Plugins and actions: the accepted arguments (None when they could not be read)."""
    extension_points: list[str] | None = None
    """Plugins: the points registered (None when the plugin could not be opened)."""
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "kind": self.kind,
            "name": self.name,
            "distribution": self.distribution,
            "version": self.version,
            "entry_point": self.entry_point,
        }
        if self.kind == "plugin":
            out["extension_points"] = self.extension_points
        if self.kind in ("plugin", "action"):
            out["arguments"] = (
                [argument.to_json() for argument in self.arguments] if self.arguments is not None else None
            )
        out["error"] = self.error
        return out


# ---------------------------------------------------------------------------------------- arguments
def type_name(annotation: Any) -> str:
    """A type as an operator reads it: ``int``, ``bool``, ``list[ShapePoint]``, ``"a" | "b"``, ``any``
    (validators dropped; ``None`` dropped from an optional type, whose default says it is unset)."""
    origin = get_origin(annotation)
    if annotation is Any:
        return "any"
    if origin is Annotated:
        return type_name(get_args(annotation)[0])
    if origin is Union or origin is types.UnionType:
        members = [type_name(member) for member in get_args(annotation) if member is not type(None)]
        return " | ".join(dict.fromkeys(members))
    if origin is Literal:
        return " | ".join(json.dumps(value) for value in get_args(annotation))
    if origin is not None:
        arguments = get_args(annotation)
        base = getattr(origin, "__name__", str(origin))
        return f"{base}[{', '.join(type_name(a) for a in arguments)}]" if arguments else base
    if isinstance(annotation, type):
        return annotation.__name__
    return str(annotation).replace("typing.", "")


def _extra_type(model: type[BaseModel]) -> str:
    try:
        hints = get_type_hints(model, include_extras=True)
    except Exception:  # an annotation that cannot be resolved: say nothing wrong
        return "any"
    extra = hints.get("__pydantic_extra__")
    arguments = get_args(extra) if extra is not None else ()
    return type_name(arguments[1]) if len(arguments) == 2 else "any"


def describe_arguments(model: type[BaseModel]) -> list[Argument]:
    """The keys a model accepts, in declaration order; a model that accepts more keys (``extra``
    allowed) ends with one row for them, named by its ``dynamic_keys`` class attribute if it has one."""
    described = []
    for name, info in model.model_fields.items():
        required = info.is_required()
        default = None if required else info.get_default(call_default_factory=True)
        described.append(
            Argument(
                key=info.alias or name,
                type=type_name(info.annotation),
                default=to_jsonable_python(default, fallback=repr),
                required=required,
            )
        )
    if model.model_config.get("extra") == "allow":
        described.append(Argument(key=getattr(model, "dynamic_keys", OTHER_KEYS), type=_extra_type(model)))
    return described


# ---------------------------------------------------------------------------------------- points
def registered_points(ssn: Session, plugin: str) -> list[str]:
    """The points whose ``plugins()`` name the plugin, by the form it registered: the point's name
    for the scalar form, its batch variant's name for the batch form (both when both)."""
    names = []
    for spec in POINTS:
        bound = ssn.point(spec.name)
        if not any(plugin in tier for tier in bound.plugins()):
            continue
        if plugin in bound.scalar:
            names.append(spec.name)
        if plugin in bound.batch and spec.batch_variant is not None:
            names.append(spec.batch_variant.name)
    return names


def _failure(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


def _measure_plugin(extension: Extension, builder: Any, settings: Settings) -> None:
    registry = Registry(entry_points=False)
    registry.register_plugin(extension.name, builder)
    try:
        loaded = registry.load_plugin(extension.name, {})
    except ValidationError as exc:
        problems = "; ".join(
            f"{format_loc(problem.loc)}: {problem.message}" for problem in problems_of(exc, ("arguments",))
        )
        extension.error = f"cannot be built with its default arguments: {problems}"
        return
    except RegistryError as exc:
        extension.error = str(exc)
        return
    conf = SchedulerConf(tiers=[Tier(plugins=[PluginOption(name=extension.name).with_defaults()])])
    try:
        ssn = Session.open(ClusterCache(settings), conf, [loaded], registry=registry, settings=settings)
    except Exception as exc:  # a third-party plugin's bug: listed, not a crash
        extension.error = f"on_session_open failed on an empty cluster: {_failure(exc)}"
        return
    extension.extension_points = registered_points(ssn, extension.name)


def describe(kind: str, entry_point: metadata.EntryPoint, settings: Settings) -> Extension:
    """One entry point, loaded (and for a plugin, opened) to describe it."""
    dist = entry_point.dist
    extension = Extension(
        kind=kind,
        name=entry_point.name,
        distribution=dist.name if dist is not None else None,
        version=dist.version if dist is not None else None,
        entry_point=entry_point.value,
    )
    try:
        loaded = entry_point.load()
    except Exception as exc:
        extension.error = f"failed to load: {_failure(exc)}"
        return extension
    if kind in ("plugin", "action"):
        extension.arguments = describe_arguments(arguments_model(loaded))
    if kind == "plugin":
        _measure_plugin(extension, loaded, settings)
    return extension


def inventory(settings: Settings | None = None) -> list[Extension]:
    """Every installed entry point of fumarole's groups, sorted by kind, then name, then distribution."""
    settings = settings or Settings()
    extensions = [
        describe(kind, entry_point, settings)
        for kind, group in KINDS.items()
        for entry_point in metadata.entry_points(group=group)
    ]
    return sorted(extensions, key=lambda e: (e.kind, e.name, e.distribution or "", e.entry_point))
