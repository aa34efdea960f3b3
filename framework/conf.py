"""The scheduler conf: Volcano's ``volcano-scheduler.conf`` YAML, read as users write it.

Mirrors ``pkg/scheduler/conf/scheduler_conf.go`` and the defaulting of ``pkg/scheduler/util.go``::

    actions: "enqueue, allocate, backfill"      # comma-separated, run in this order each cycle
    tiers:
    - plugins:
      - name: gang
        enablePreemptable: false                # the 25 enable flags, Volcano's spelling
        arguments: {key: value}                 # handed to the plugin builder
    configurations:                             # per-action (or per-name) arguments
    - name: preempt
      arguments: {enableTopologyAwarePreemption: true}

``load_conf`` applies Volcano's defaulting (every unset flag becomes true, except
``enableHierarchy`` and ``enabledClusterOrder``); confs built in code (``SchedulerConf(...)``)
keep unset flags unset, i.e. disabled, as Volcano's unit tests do. Unknown keys, unknown actions
or plugins, duplicate plugins, wrongly typed flags or arguments, and ``drf`` with
``enableHierarchy`` in a tier with ``proportion`` are errors that name the file and the key.
A ConfigMap holding the conf under ``data.<name>.conf`` is accepted too.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, StrictBool, ValidationError

SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""libyaml's safe loader when PyYAML was built with it (much faster), else the pure-Python one."""

if TYPE_CHECKING:
    from .registry import Registry

FLAG_KEYS: dict[str, str] = {
    "enabled_job_order": "enableJobOrder",
    "enabled_hierarchy": "enableHierarchy",
    "enabled_job_ready": "enableJobReady",
    "enabled_job_pipelined": "enableJobPipelined",
    "enabled_task_order": "enableTaskOrder",
    "enabled_preemptable": "enablePreemptable",
    "enabled_reclaimable": "enableReclaimable",
    "enable_preemptive": "enablePreemptive",
    "enabled_queue_order": "enableQueueOrder",
    "enabled_cluster_order": "enabledClusterOrder",
    "enabled_predicate": "enablePredicate",
    "enabled_best_node": "enableBestNode",
    "enabled_node_order": "enableNodeOrder",
    "enabled_target_job": "enableTargetJob",
    "enabled_reserved_nodes": "enableReservedNodes",
    "enabled_job_enqueued": "enableJobEnqueued",
    "enabled_victim": "enabledVictim",
    "enabled_job_starving": "enableJobStarving",
    "enabled_overused": "enabledOverused",
    "enabled_allocatable": "enabledAllocatable",
    "enabled_hyper_node_order": "enabledHyperNodeOrder",
    "enabled_sub_job_ready": "enabledSubJobReady",
    "enabled_sub_job_pipelined": "enabledSubJobPipelined",
    "enabled_sub_job_order": "enabledSubJobOrder",
    "enabled_hyper_node_gradient": "enabledHyperNodeGradient",
}
"""Python field -> YAML key for the 25 enable flags (``PluginOption``)."""

NOT_DEFAULTED = frozenset({"enabled_hierarchy", "enabled_cluster_order"})
"""Flags Volcano leaves unset (disabled) when the conf omits them."""

DEFAULT_CONF_TEXT = """\
actions: "enqueue, allocate, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
  - name: conformance
- plugins:
  - name: overcommit
  - name: drf
  - name: predicates
  - name: proportion
  - name: nodeorder
"""
"""Volcano's built-in default conf (``DefaultSchedulerConf`` in pkg/scheduler/util.go)."""


class ConfError(ValueError):
    """A conf that cannot be used; the message names the file and the key."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class PluginOption(_Strict):
    """One plugin of a tier with its enable flags (``conf.PluginOption``)."""

    name: str
    enabled_job_order: StrictBool | None = Field(None, alias="enableJobOrder")
    enabled_hierarchy: StrictBool | None = Field(None, alias="enableHierarchy")
    enabled_job_ready: StrictBool | None = Field(None, alias="enableJobReady")
    enabled_job_pipelined: StrictBool | None = Field(None, alias="enableJobPipelined")
    enabled_task_order: StrictBool | None = Field(None, alias="enableTaskOrder")
    enabled_preemptable: StrictBool | None = Field(None, alias="enablePreemptable")
    enabled_reclaimable: StrictBool | None = Field(None, alias="enableReclaimable")
    enable_preemptive: StrictBool | None = Field(None, alias="enablePreemptive")
    enabled_queue_order: StrictBool | None = Field(None, alias="enableQueueOrder")
    enabled_cluster_order: StrictBool | None = Field(None, alias="enabledClusterOrder")
    enabled_predicate: StrictBool | None = Field(None, alias="enablePredicate")
    enabled_best_node: StrictBool | None = Field(None, alias="enableBestNode")
    enabled_node_order: StrictBool | None = Field(None, alias="enableNodeOrder")
    enabled_target_job: StrictBool | None = Field(None, alias="enableTargetJob")
    enabled_reserved_nodes: StrictBool | None = Field(None, alias="enableReservedNodes")
    enabled_job_enqueued: StrictBool | None = Field(None, alias="enableJobEnqueued")
    enabled_victim: StrictBool | None = Field(None, alias="enabledVictim")
    enabled_job_starving: StrictBool | None = Field(None, alias="enableJobStarving")
    enabled_overused: StrictBool | None = Field(None, alias="enabledOverused")
    enabled_allocatable: StrictBool | None = Field(None, alias="enabledAllocatable")
    enabled_hyper_node_order: StrictBool | None = Field(None, alias="enabledHyperNodeOrder")
    enabled_sub_job_ready: StrictBool | None = Field(None, alias="enabledSubJobReady")
    enabled_sub_job_pipelined: StrictBool | None = Field(None, alias="enabledSubJobPipelined")
    enabled_sub_job_order: StrictBool | None = Field(None, alias="enabledSubJobOrder")
    enabled_hyper_node_gradient: StrictBool | None = Field(None, alias="enabledHyperNodeGradient")
    arguments: dict[str, Any] = Field(default_factory=dict)

    def is_enabled(self, flag: str) -> bool:
        """``isEnabled``: the flag is set and true."""
        return getattr(self, flag) is True

    def with_defaults(self) -> PluginOption:
        """Volcano's ``ApplyPluginConfDefaults``: unset flags become true, except the two not defaulted."""
        updates = {
            flag: True for flag in FLAG_KEYS if flag not in NOT_DEFAULTED and getattr(self, flag) is None
        }
        return self.model_copy(update=updates)

    @classmethod
    def all_enabled(cls, name: str, **overrides: Any) -> PluginOption:
        """A plugin option with every flag on (convenient in tests)."""
        values: dict[str, Any] = dict.fromkeys(FLAG_KEYS, True)
        values.update(overrides)
        return cls(name=name, **values)


class Tier(_Strict):
    plugins: list[PluginOption] = Field(default_factory=list)


class Configuration(_Strict):
    """Arguments for an action (or any named consumer) (``conf.Configuration``)."""

    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)


class SchedulerConf(_Strict):
    actions: str = ""
    tiers: list[Tier] = Field(default_factory=list)
    configurations: list[Configuration] = Field(default_factory=list)
    metrics: dict[str, str] = Field(default_factory=dict)
    _source: str = PrivateAttr("<conf>")

    @property
    def source(self) -> str:
        """The file the conf was read from (for error messages)."""
        return self._source

    def with_source(self, source: str) -> SchedulerConf:
        twin = self.model_copy()
        twin._source = source
        return twin

    @property
    def action_names(self) -> list[str]:
        return [name.strip() for name in self.actions.split(",") if name.strip()]

    def plugin_names(self) -> list[str]:
        return [plugin.name for tier in self.tiers for plugin in tier.plugins]

    def configuration(self, name: str) -> dict[str, Any]:
        """Arguments of the first configuration with this name (``GetArgOfActionFromConf``)."""
        for configuration in self.configurations:
            if configuration.name == name:
                return configuration.arguments
        return {}

    def with_defaults(self) -> SchedulerConf:
        tiers = [Tier(plugins=[plugin.with_defaults() for plugin in tier.plugins]) for tier in self.tiers]
        twin = self.model_copy(update={"tiers": tiers})
        twin._source = self._source
        return twin


# ---------------------------------------------------------------------------------------- loading
def _format_loc(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out or "<root>"


def format_validation_error(source: str, error: ValidationError, prefix: str = "") -> str:
    lines = []
    for item in error.errors():
        loc = _format_loc(tuple(item["loc"]))
        if prefix:
            loc = f"{prefix}.{loc}" if loc != "<root>" else prefix
        if item["type"] == "extra_forbidden":
            message = "unknown key"
        elif item["type"] == "missing":
            message = "required key is missing"
        elif item["type"] == "value_error":
            message = str(item["msg"]).removeprefix("Value error, ")
        else:
            message = item["msg"]
            if "input" in item and item["type"] not in ("model_type", "dict_type"):
                message += f" (got {item['input']!r})"
        lines.append(f"{source}: {loc}: {message}")
    return "\n".join(lines)


def _unwrap_configmap(document: Mapping[str, Any], source: str) -> Mapping[str, Any]:
    if document.get("kind") != "ConfigMap":
        return document
    data = document.get("data") or {}
    for key, text in data.items():
        if str(key).endswith(".conf"):
            inner = yaml.safe_load(text)
            if not isinstance(inner, Mapping):
                raise ConfError(f"{source}: data.{key}: the embedded conf is not a mapping")
            return inner
    raise ConfError(f"{source}: ConfigMap has no data key ending in .conf")


def parse_conf(
    text: str,
    source: str = "<conf>",
    registry: Registry | None = None,
    *,
    apply_defaults: bool = True,
) -> SchedulerConf:
    """Parse and validate conf text; see the module docstring for what is rejected."""
    try:
        document = yaml.load(text, Loader=SAFE_LOADER)
    except yaml.YAMLError as exc:
        raise ConfError(f"{source}: not valid YAML: {exc}") from exc
    if document is None:
        raise ConfError(f"{source}: the conf is empty")
    if not isinstance(document, Mapping):
        raise ConfError(f"{source}: the conf must be a mapping with actions and tiers")
    document = _unwrap_configmap(document, source)
    try:
        conf = SchedulerConf.model_validate(dict(document))
    except ValidationError as exc:
        raise ConfError(format_validation_error(source, exc)) from None
    conf = conf.with_source(source)
    validate_conf(conf, registry)
    if apply_defaults:
        conf = conf.with_defaults()
    return conf


def load_conf(
    path: str | Path, registry: Registry | None = None, *, apply_defaults: bool = True
) -> SchedulerConf:
    """Read a conf file (Volcano defaulting applied unless ``apply_defaults`` is false)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfError(f"{path}: cannot read the conf: {exc.strerror or exc}") from exc
    return parse_conf(text, str(path), registry, apply_defaults=apply_defaults)


def validate_conf(conf: SchedulerConf, registry: Registry | None) -> None:
    """Names, duplicates, the hdrf/proportion conflict and plugin/action arguments."""
    source = conf.source
    if not conf.action_names:
        raise ConfError(f"{source}: actions: no action is configured")
    seen: dict[str, str] = {}
    for t, tier in enumerate(conf.tiers):
        hdrf = False
        proportion = False
        for p, plugin in enumerate(tier.plugins):
            where = f"tiers[{t}].plugins[{p}]"
            if plugin.name in seen:
                raise ConfError(
                    f"{source}: {where}.name: plugin {plugin.name!r} is listed twice "
                    f"(first at {seen[plugin.name]})"
                )
            seen[plugin.name] = where
            if plugin.name == "drf" and plugin.enabled_hierarchy:
                hdrf = True
            if plugin.name == "proportion":
                proportion = True
        if hdrf and proportion:
            raise ConfError(
                f"{source}: tiers[{t}]: proportion and drf with enableHierarchy: true conflict in one tier"
            )
    if registry is None:
        return
    for name in conf.action_names:
        if not registry.has_action(name):
            known = ", ".join(sorted(registry.action_names()))
            raise ConfError(f"{source}: actions: unknown action {name!r} (known: {known})")
    for t, tier in enumerate(conf.tiers):
        for p, plugin in enumerate(tier.plugins):
            where = f"tiers[{t}].plugins[{p}]"
            if not registry.has_plugin(plugin.name):
                known = ", ".join(sorted(registry.plugin_names()))
                raise ConfError(f"{source}: {where}.name: unknown plugin {plugin.name!r} (known: {known})")
            error = registry.check_plugin_arguments(plugin.name, plugin.arguments)
            if error is not None:
                raise ConfError(format_validation_error(source, error, f"{where}.arguments"))
    for c, configuration in enumerate(conf.configurations):
        if registry.has_action(configuration.name):
            error = registry.check_action_arguments(configuration.name, configuration.arguments)
            if error is not None:
                raise ConfError(format_validation_error(source, error, f"configurations[{c}].arguments"))
