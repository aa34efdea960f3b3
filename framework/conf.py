"""The scheduler conf: Volcano's ``volcano-scheduler.conf`` YAML, read as users write it.

Mirrors ``pkg/scheduler/conf/scheduler_conf.go`` and the defaulting of ``pkg/scheduler/util.go``::

    actions: "enqueue, allocate, backfill"      # comma-separated, run in this order each cycle
    tiers:
    - plugins:
      - name: gang
        enablePreemptable: false                # the enable flags, Volcano's spelling
        arguments: {key: value}                 # validated by the plugin's arguments model
    configurations:                             # per-action (or per-name) arguments
    - name: preempt
      arguments: {enableTopologyAwarePreemption: true}

The enable flags are those of ``extension_points.flags`` (a Python spelling such as
``enabled_job_order`` is accepted too). ``load_conf`` applies Volcano's defaulting (every unset flag
becomes true, except ``enableHierarchy`` and ``enabledClusterOrder``); confs built in code
(``SchedulerConf(...)``) keep unset flags unset, i.e. disabled, as Volcano's unit tests do.

Every problem is reported, not only the first, each with the file, the line and the key: unknown
keys, wrongly typed flags or arguments, unknown or empty action names (Volcano fails on
``"enqueue, allocate,"`` too), unknown or duplicate plugins, a plugin whose builder reports another
name, and ``drf`` with ``enableHierarchy`` in a tier with ``proportion``. An invalid entry does not
hide the rest of it: its name, well-typed flags and arguments are still checked. A YAML syntax error is
one line too (``conf.yaml:5: not valid YAML: <problem>``, Volcano's ``yaml: line 5: <problem>``). A
ConfigMap holding the conf, or a whole installer holding that ConfigMap, is accepted too
(``conf_source``); lines are those of the outer file. (Volcano stops at the first error, and ignores
unknown keys: docs/differences.md.)

Real confs load. A key some Volcano release since v1.5 read and the current one does not is dropped
(``EnabledClusterOrder`` is read as ``enabledClusterOrder``) and reported as an ``obsolete-key``
warning: the flags' history is ``flags.OBSOLETE``, each arguments model declares its own
(``framework.obsolete``). A Volcano plugin or action fumarole does not implement
(``volcano_names``) is a problem that says so; with ``skip_unsupported`` it is left out instead, an
``unsupported-skipped`` warning (a conf left with no action is still a problem). YAML nulls
(``tiers:``, ``plugins:``, ``arguments:`` with nothing after them, a null flag) are empty or unset, as
yaml.v2 leaves them. A loaded conf's warnings, in line order with ``<file>:<line>`` subjects, are its
``diagnostics`` (logged once when the conf is loaded).

fumarole reads one configuration of its own, ignored by Volcano: ``- name: voting`` with
``arguments: {emptyIntersection: undecided | noVictims}`` chooses how an empty intersection of victims
is counted (docs/differences.md).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, StrictBool, ValidationError, model_validator

from . import volcano_names
from .conf_source import ConfSourceError, read_conf_document
from .diagnostics import Code, Diagnostic, Diagnostics
from .extension_points import flags as flag_specs
from .extension_points.flags import FLAGS, Flag
from .obsolete import ObsoleteKey
from .util.input_text import RESOURCE_ERROR, InputTextError, decode, one_line, short_repr
from .util.yaml_lines import YamlLines

if TYPE_CHECKING:
    from .registry import Registry

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

DEFAULT_CONF_SOURCE = "<default conf>"
"""How messages name the default conf."""

VOTING = "voting"
"""The name of fumarole's own configuration entry."""


class ConfError(ValueError):
    """A conf that cannot be used; the message names the file, the line and the key of every problem."""

    def __init__(self, message: str, problems: list[str] | None = None) -> None:
        self.problems = [one_line(problem) for problem in problems] if problems else [one_line(message)]
        """One line per problem (line breaks that came from the input are escaped)."""
        super().__init__("\n".join(self.problems))


class ConfUnreadable(ConfError):
    """A conf file that cannot be read at all (missing, a directory, no permission)."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


def _without_nulls(data: Any, keys: tuple[str, ...]) -> Any:
    """``data`` without the ``keys`` given as YAML null (``tiers:`` with nothing after it): yaml.v2
    leaves such a field at its zero value, an empty list or map (or "" for ``actions``)."""
    if not isinstance(data, Mapping) or not any(key in data and data[key] is None for key in keys):
        return data
    return {key: value for key, value in data.items() if not (key in keys and value is None)}


class PluginOption(_Strict):
    """One plugin of a tier with its enable flags (``conf.PluginOption``).

    ``flags`` maps a flag's YAML key to its value; an absent key is unset. The flags may be given as
    keyword arguments too, in either spelling (``PluginOption(name="gang", enableJobReady=True)``).
    """

    name: str
    flags: dict[str, StrictBool] = Field(default_factory=dict)
    arguments: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="before")
    @classmethod
    def _gather_flags(cls, data: Any) -> Any:
        """The flags in ``flags``, in either spelling; a null flag is unset (yaml.v2: a nil
        pointer); an obsolete flag is dropped or read under its new name (``flags.OBSOLETE``;
        the conf loader reports it)."""
        if not isinstance(data, Mapping):
            return data
        written = data.get("flags")
        gathered = dict(written) if isinstance(written, Mapping) else {}
        rest: dict[str, Any] = {} if written is None or isinstance(written, Mapping) else {"flags": written}
        obsolete: dict[str, Any] = {}
        for key, value in data.items():
            flag = flag_specs.BY_NAME.get(key) if isinstance(key, str) else None
            if flag is not None:
                gathered[flag.key] = value
            elif isinstance(key, str) and key in flag_specs.OBSOLETE:
                obsolete[key] = value
            elif key != "flags" and not (key == "arguments" and value is None):
                rest[key] = value
        for key in list(gathered):
            if isinstance(key, str) and key in flag_specs.OBSOLETE:
                obsolete[key] = gathered.pop(key)
        for key, value in obsolete.items():
            renamed = flag_specs.OBSOLETE[key].renamed_to
            if renamed is not None and renamed not in gathered:
                gathered[renamed] = value
        gathered = {key: value for key, value in gathered.items() if value is not None}
        if gathered:
            rest["flags"] = gathered
        return rest

    def value(self, flag: Flag | str) -> bool | None:
        """The flag as written (None when unset); ``flag`` in either spelling."""
        key = flag.key if isinstance(flag, Flag) else flag_specs.BY_NAME[flag].key
        return self.flags.get(key)

    def is_enabled(self, flag: Flag | str) -> bool:
        """``isEnabled``: the flag is set and true."""
        return self.value(flag) is True

    def with_defaults(self) -> PluginOption:
        """``ApplyPluginConfDefaults``: unset flags become true, except the ones Volcano leaves unset."""
        defaulted = {flag.key: True for flag in FLAGS if flag.defaulted and flag.key not in self.flags}
        return self.model_copy(update={"flags": {**self.flags, **defaulted}})

    def resolved(self) -> PluginOption:
        """Every flag written out as the session reads it (``isEnabled``: unset is false)."""
        return self.model_copy(update={"flags": {flag.key: self.is_enabled(flag) for flag in FLAGS}})

    @classmethod
    def all_enabled(cls, name: str, **overrides: Any) -> PluginOption:
        """A plugin option with every flag on (convenient in tests)."""
        values: dict[str, Any] = {flag.key: True for flag in FLAGS}
        values.update(overrides)
        return cls(name=name, **values)

    def to_yaml(self) -> dict[str, Any]:
        """The entry as Volcano's YAML spells it (flags in ``PluginOption`` order)."""
        out: dict[str, Any] = {"name": self.name}
        out.update({flag.key: self.flags[flag.key] for flag in FLAGS if flag.key in self.flags})
        if self.arguments:
            out["arguments"] = dict(self.arguments)
        return out


class Tier(_Strict):
    plugins: list[PluginOption] = Field(default_factory=list)

    @model_validator(mode="before")
    @classmethod
    def _nulls(cls, data: Any) -> Any:
        return _without_nulls(data, ("plugins",))


class Configuration(_Strict):
    """Arguments for an action (or any named consumer) (``conf.Configuration``)."""

    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="before")
    @classmethod
    def _nulls(cls, data: Any) -> Any:
        return _without_nulls(data, ("arguments",))


class VotingArguments(_Strict):
    """fumarole's ``voting`` configuration."""

    empty_intersection: Literal["undecided", "noVictims"] = Field("undecided", alias="emptyIntersection")
    """``undecided`` (Volcano): an empty intersection of victims lets the next voter or tier decide;
    ``noVictims``: it decides that nothing may be evicted."""


class SchedulerConf(_Strict):
    actions: str = ""
    tiers: list[Tier] = Field(default_factory=list)
    configurations: list[Configuration] = Field(default_factory=list)
    metrics: dict[str, str] = Field(default_factory=dict)
    _source: str = PrivateAttr("<conf>")
    _diagnostics: tuple[Diagnostic, ...] = PrivateAttr(())

    @model_validator(mode="before")
    @classmethod
    def _nulls(cls, data: Any) -> Any:
        return _without_nulls(data, ("actions", "tiers", "configurations", "metrics"))

    @property
    def source(self) -> str:
        """The file the conf was read from (for error messages)."""
        return self._source

    @property
    def diagnostics(self) -> Diagnostics:
        """The warnings of loading the conf (obsolete keys, skipped entries), in line order; every
        copy (``with_source``, ``with_defaults``, ``resolved``, ``model_copy``) carries them."""
        return Diagnostics(self._diagnostics)

    def with_source(self, source: str) -> SchedulerConf:
        twin = self.model_copy()
        twin._source = source
        return twin

    def with_diagnostics(self, diagnostics: Iterable[Diagnostic]) -> SchedulerConf:
        """A copy whose warnings are ``diagnostics``."""
        twin = self.model_copy()
        twin._diagnostics = tuple(diagnostics)
        return twin

    @property
    def action_names(self) -> list[str]:
        """The actions in order, as written (trimmed); an empty name is a conf error."""
        return [name.strip() for name in self.actions.split(",")]

    def plugin_names(self) -> list[str]:
        return [plugin.name for tier in self.tiers for plugin in tier.plugins]

    def configuration(self, name: str) -> dict[str, Any]:
        """Arguments of the first configuration with this name (``GetArgOfActionFromConf``); an action's
        name matches in any case, as in ``actions`` (``gangPreempt`` configures gangpreempt)."""
        for configuration in self.configurations:
            if configuration.name == name:
                return configuration.arguments
        folded = name.casefold()
        for configuration in self.configurations:
            if configuration.name.casefold() == folded:
                return configuration.arguments
        return {}

    def with_registered_actions(self, registry: Registry) -> SchedulerConf:
        """A copy whose ``actions`` name each action as registered (``gangPreempt`` -> ``gangpreempt``)."""
        names = self.action_names
        resolved = [registry.action_name(name) or name for name in names]
        if resolved == names:
            return self
        twin = self.model_copy(update={"actions": ", ".join(resolved)})
        twin._diagnostics = self._diagnostics
        return twin

    @property
    def voting(self) -> VotingArguments:
        return VotingArguments.model_validate(self.configuration(VOTING), by_alias=True, by_name=False)

    def with_defaults(self) -> SchedulerConf:
        tiers = [Tier(plugins=[plugin.with_defaults() for plugin in tier.plugins]) for tier in self.tiers]
        return self.model_copy(update={"tiers": tiers})

    def resolved(self) -> SchedulerConf:
        """Every plugin's flags written out as true or false (see ``PluginOption.resolved``)."""
        tiers = [Tier(plugins=[plugin.resolved() for plugin in tier.plugins]) for tier in self.tiers]
        return self.model_copy(update={"tiers": tiers})

    def to_text(self) -> str:
        """The conf as a Volcano conf file: ``to_yaml`` dumped, the actions quoted as Volcano writes them."""
        document = self.to_yaml()
        document["actions"] = _Quoted(document["actions"])
        text: str = yaml.dump(
            document, Dumper=_ConfDumper, sort_keys=False, allow_unicode=True, width=1 << 16
        )
        return text

    def to_yaml(self) -> dict[str, Any]:
        """The conf as Volcano's YAML spells it."""
        out: dict[str, Any] = {
            "actions": ", ".join(self.action_names),
            "tiers": [{"plugins": [plugin.to_yaml() for plugin in tier.plugins]} for tier in self.tiers],
        }
        if self.configurations:
            out["configurations"] = [c.model_dump() for c in self.configurations]
        if self.metrics:
            out["metrics"] = dict(self.metrics)
        return out


class _Quoted(str):
    """A string dumped in double quotes."""


class _ConfDumper(yaml.SafeDumper):
    """PyYAML's safe dumper, quoting ``_Quoted`` strings."""


_ConfDumper.add_representer(
    _Quoted, lambda dumper, data: dumper.represent_scalar("tag:yaml.org,2002:str", str(data), style='"')
)


# ---------------------------------------------------------------------------------------- problems
Loc = tuple[Any, ...]


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a conf: where (a location in the document) and what."""

    loc: Loc
    message: str
    unsupported: volcano_names.VolcanoName | None = None
    """The Volcano plugin or action fumarole does not implement that this entry names (the problems
    ``--skip-unsupported`` turns into warnings)."""


def as_written(loc: Loc) -> Loc:
    """A location as the YAML spells it: a plugin's flags sit directly in its entry."""
    if len(loc) >= 5 and loc[0] == "tiers" and loc[2] == "plugins" and loc[4] == "flags":
        return loc[:4] + loc[5:]
    return loc


def format_loc(loc: Loc) -> str:
    out = ""
    for part in as_written(loc):
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out or "<root>"


def _describe(item: Any) -> str:
    kind = item["type"]
    if kind == "extra_forbidden":
        key = item["loc"][-1] if item["loc"] else ""
        return "unknown key" + (flag_specs.did_you_mean(key) if isinstance(key, str) else "")
    if kind == "missing":
        return "required key is missing"
    if kind == "value_error":
        return str(item["msg"]).removeprefix("Value error, ")
    message = str(item["msg"])
    if "input" in item and kind not in ("model_type", "dict_type", RESOURCE_ERROR):
        message += f" (got {short_repr(item['input'])})"
    return message


def problems_of(error: ValidationError, prefix: Loc = ()) -> list[Problem]:
    problems = []
    for item in error.errors():
        loc = prefix + tuple(item["loc"])
        resource = (item.get("ctx") or {}).get("resource")
        if item["type"] == RESOURCE_ERROR and isinstance(resource, str):
            loc += (resource,)  # the bad entry of a resource list (checked as a whole, see objects.py)
        problems.append(Problem(loc, _describe(item)))
    return problems


MAX_PROBLEMS_ON_ONE_LINE = 3


def format_validation_error(
    source: str, error: ValidationError, prefix: str = "", *, single_line: bool = False
) -> str:
    """One line per error: ``<source>: <key>: <what>``; with ``single_line`` (snapshots, workloads), one
    line for all: ``<source>: <key>: <what>; <key>: <what>`` (at most three, then how many more)."""
    parts = []
    for problem in problems_of(error):
        loc = format_loc(problem.loc)
        if prefix:
            loc = f"{prefix}.{loc}" if loc != "<root>" else prefix
        parts.append(f"{loc}: {problem.message}")
    if single_line:
        shown = parts[:MAX_PROBLEMS_ON_ONE_LINE]
        more = len(parts) - len(shown)
        tail = f" (and {more} more problem{'s' if more > 1 else ''})" if more else ""
        return one_line(f"{source}: {'; '.join(shown)}{tail}")
    return "\n".join(one_line(f"{source}: {part}") for part in parts)


def conf_error(source: str, problems: list[Problem], lines: YamlLines | None) -> ConfError:
    """One error for every problem, one line each (``<source>:<line>: <key>: <what>``), in line order."""
    rendered: list[tuple[int, int, str]] = []
    for index, problem in enumerate(problems):
        line = lines.line(as_written(problem.loc)) if lines is not None and problem.loc else None
        where = f"{source}:{line}" if line is not None else source
        text = (
            f"{where}: {format_loc(problem.loc)}: {problem.message}"
            if problem.loc
            else f"{where}: {problem.message}"
        )
        rendered.append((line if line is not None else 1 << 30, index, text))
    texts = [text for _, _, text in sorted(rendered)]
    return ConfError("\n".join(texts), texts)


# ---------------------------------------------------------------------------------------- loading
def _string_keys(value: Any) -> dict[str, Any]:
    return {k: v for k, v in value.items() if isinstance(k, str)} if isinstance(value, Mapping) else {}


def _partial_plugin(item: Any) -> PluginOption:
    """What an invalid plugin entry says that is valid: its name, its well-typed flags (either
    spelling, or under ``flags``) and its arguments, so that their checks still run."""
    if not isinstance(item, Mapping):
        return PluginOption(name="")
    written = {**_string_keys(item.get("flags")), **_string_keys(item)}
    flags = {
        flag.key: value
        for key, value in written.items()
        if (flag := flag_specs.BY_NAME.get(key)) is not None and isinstance(value, bool)
    }
    name = item.get("name")
    return PluginOption(
        name=name if isinstance(name, str) else "",
        flags=flags,
        arguments=_string_keys(item.get("arguments")),
    )


def _partial_configuration(item: Any) -> Configuration:
    """An invalid configuration entry's name and arguments, so that its arguments are still checked."""
    name = item.get("name") if isinstance(item, Mapping) else None
    arguments = _string_keys(item.get("arguments")) if isinstance(item, Mapping) else {}
    return Configuration(name=name if isinstance(name, str) else "", arguments=arguments)


def _partial(document: Mapping[str, Any]) -> SchedulerConf:
    """The parts of an invalid document that do validate, so later checks still run on them: every
    problem is reported, not only those of the first invalid entry."""
    actions = document.get("actions")
    tiers: list[Tier] = []
    for tier in document.get("tiers") or [] if isinstance(document.get("tiers"), list) else []:
        plugins: list[PluginOption] = []
        raw = tier.get("plugins") if isinstance(tier, Mapping) else None
        for item in raw if isinstance(raw, list) else []:
            try:
                plugins.append(PluginOption.model_validate(item))
            except ValidationError:
                plugins.append(_partial_plugin(item))
        tiers.append(Tier(plugins=plugins))
    configurations: list[Configuration] = []
    raw_configurations = document.get("configurations")
    for item in raw_configurations if isinstance(raw_configurations, list) else []:
        try:
            configurations.append(Configuration.model_validate(item))
        except ValidationError:
            configurations.append(_partial_configuration(item))
    return SchedulerConf(
        actions=actions if isinstance(actions, str) else "", tiers=tiers, configurations=configurations
    )


def parse_conf(
    text: str,
    source: str = "<conf>",
    registry: Registry | None = None,
    *,
    apply_defaults: bool = True,
    line_numbers: bool = True,
    skip_unsupported: bool = False,
) -> SchedulerConf:
    """Parse and validate conf text; every problem is reported in one ``ConfError``, with the line
    of each (unless ``line_numbers`` is false: text that is not what the user wrote).

    ``text`` is a conf, a ConfigMap holding one, or an installer holding that ConfigMap
    (``conf_source``). Obsolete keys are accepted with a warning; the plugins and actions Volcano has
    and fumarole does not are errors, or with ``skip_unsupported`` left out with a warning (a conf
    left with no action is still an error). The warnings are the conf's ``diagnostics``."""
    try:
        found = read_conf_document(text, source, line_numbers=line_numbers)
    except ConfSourceError as exc:
        raise ConfError(str(exc)) from exc
    document, lines = found.document, found.lines
    problems: list[Problem] = []
    try:
        conf = SchedulerConf.model_validate(dict(document))
    except ValidationError as exc:
        problems.extend(problems_of(exc))
        conf = _partial(document)
        if not isinstance(document.get("actions", ""), str):
            conf = conf.model_copy(update={"actions": "<invalid>"})
    conf = conf.with_source(source)
    problems.extend(conf_problems(conf, registry))
    conf, obsolete_arguments = without_obsolete_arguments(conf, registry)
    warnings = _obsolete_flags(document) + obsolete_arguments
    if skip_unsupported:
        skipped = [problem for problem in problems if problem.unsupported is not None]
        problems = [problem for problem in problems if problem.unsupported is None]
        if skipped:
            conf = _without(conf, skipped)
            warnings.extend(_skipped_warning(problem) for problem in skipped)
            actions = [name for name, kind in _names(skipped) if kind == "action"]
            if actions and not any(conf.action_names):
                names = ", ".join(dict.fromkeys(actions))
                message = f"no action left to run: --skip-unsupported skipped every one ({names})"
                problems.append(Problem(("actions",), message))
    if problems:
        raise conf_error(source, problems, lines)
    warnings.extend(_capacity_outside_the_first_tier(conf))
    warnings.extend(_max_domains_not_positive(conf))
    if registry is not None:
        conf = conf.with_registered_actions(registry)
    conf = conf.with_diagnostics(_diagnostics(source, warnings, lines))
    if apply_defaults:
        conf = conf.with_defaults()
    return conf


def load_conf(
    path: str | Path,
    registry: Registry | None = None,
    *,
    apply_defaults: bool = True,
    skip_unsupported: bool = False,
) -> SchedulerConf:
    """Read a conf file (Volcano defaulting applied unless ``apply_defaults`` is false; see
    ``parse_conf`` for ``skip_unsupported``).

    ``ConfUnreadable`` when the file cannot be read; ``ConfError`` listing every problem otherwise
    (text that is not UTF-8 is one, with its line)."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ConfUnreadable(f"{path}: cannot read the conf: {exc.strerror or exc}") from exc
    try:
        text = decode(data, str(path))
    except InputTextError as exc:
        raise ConfError(str(exc)) from None
    return parse_conf(
        text, str(path), registry, apply_defaults=apply_defaults, skip_unsupported=skip_unsupported
    )


def default_conf(registry: Registry | None = None, *, apply_defaults: bool = True) -> SchedulerConf:
    """Volcano's default conf, what Volcano's scheduler uses when it is given no conf file."""
    return parse_conf(DEFAULT_CONF_TEXT, DEFAULT_CONF_SOURCE, registry, apply_defaults=apply_defaults)


def validate_conf(conf: SchedulerConf, registry: Registry | None) -> None:
    """Raise a ``ConfError`` listing every problem of a conf built in code."""
    problems = conf_problems(conf, registry)
    if problems:
        raise conf_error(conf.source, problems, None)


def conf_problems(conf: SchedulerConf, registry: Registry | None) -> list[Problem]:
    """Names, duplicates, the hdrf/proportion conflict, plugin and action arguments."""
    problems: list[Problem] = []
    names = conf.action_names
    if conf.actions == "<invalid>":
        names = []
    elif not any(names):
        problems.append(Problem(("actions",), "no action is configured"))
        names = []
    for position, name in enumerate(names, start=1):
        if not name:
            problems.append(Problem(("actions",), f"empty action name (item {position} of {conf.actions!r})"))
        elif registry is not None and not registry.has_action(name):
            problems.append(_unknown("action", name, ("actions",), registry.action_names()))
    problems.extend(_eviction_actions_combined(names))
    seen: dict[str, str] = {}
    for t, tier in enumerate(conf.tiers):
        hdrf = proportion = False
        for p, plugin in enumerate(tier.plugins):
            where = ("tiers", t, "plugins", p)
            if not plugin.name:
                continue
            if plugin.name in seen:
                problems.append(
                    Problem(
                        (*where, "name"),
                        f"plugin {plugin.name!r} is listed twice (first at {seen[plugin.name]})",
                    )
                )
                continue
            seen[plugin.name] = format_loc(where)
            hdrf = hdrf or (plugin.name == "drf" and plugin.is_enabled(flag_specs.HIERARCHY))
            proportion = proportion or plugin.name == "proportion"
            if registry is not None and not registry.has_plugin(plugin.name):
                problems.append(_unknown("plugin", plugin.name, (*where, "name"), registry.plugin_names()))
            elif registry is not None:
                problems.extend(registry.plugin_problems(plugin.name, plugin.arguments, where))
        if hdrf and proportion:
            problems.append(
                Problem(("tiers", t), "proportion and drf with enableHierarchy: true conflict in one tier")
            )
    for c, configuration in enumerate(conf.configurations):
        arguments_at: Loc = ("configurations", c, "arguments")
        if configuration.name == VOTING:
            try:
                VotingArguments.model_validate(configuration.arguments, by_alias=True, by_name=False)
            except ValidationError as exc:
                problems.extend(problems_of(exc, arguments_at))
        elif registry is not None and configuration.name and registry.has_action(configuration.name):
            action_arguments = configuration.arguments
            problems.extend(registry.action_problems(configuration.name, action_arguments, arguments_at))
    return problems


GANG_EVICTION_REPLACES = {"gangpreempt": "preempt", "gangreclaim": "reclaim"}
"""The gang-aware eviction actions and the pod-by-pod actions they replace (seed 002)."""


def _eviction_actions_combined(names: list[str]) -> list[Problem]:
    """gangpreempt / gangreclaim listed together with preempt / reclaim: one problem naming them.

    Seed 002 (and upstream's design, which does not enforce it): the gang actions replace the legacy
    ones. Both evict for the same starving jobs; the legacy ones, running in the same cycle, would
    take pods one by one from the gangs the gang actions keep whole, and undo their minimal choice.
    """
    folded = {name.casefold(): name for name in names if name}
    gang = [folded[name] for name in GANG_EVICTION_REPLACES if name in folded]
    legacy = [folded[name] for name in GANG_EVICTION_REPLACES.values() if name in folded]
    if not gang or not legacy:
        return []
    message = (
        f"{' and '.join(gang)} cannot be combined with {' and '.join(legacy)}: the gang-aware actions "
        "replace the pod-by-pod ones (seed 002); listed together, preempt and reclaim would evict pods "
        "one by one from the gangs gangpreempt and gangreclaim keep whole. List one kind."
    )
    return [Problem(("actions",), message)]


def _capacity_outside_the_first_tier(conf: SchedulerConf) -> list[_Warning]:
    """With a gang eviction action, ``capacity`` below the first tier never filters victims.

    ``unified_evictable`` is decided by the first tier where a plugin answers, and the first tier's
    usual plugins (priority, gang, conformance) always answer: capacity's queue-share check below it
    is never asked (Volcano #5929), so gangreclaim may evict from a queue far under its share.
    """
    gang = [name for name in conf.action_names if name.casefold() in GANG_EVICTION_REPLACES]
    if not gang:
        return []
    for t, tier in enumerate(conf.tiers):
        for p, plugin in enumerate(tier.plugins):
            if plugin.name == "capacity" and t > 0:
                text = (
                    f"capacity is in tier {t + 1}: with {' and '.join(gang)} its victim filter "
                    "(unified_evictable: only pods of queues above their deserved share) is never asked, "
                    "because the first tier decides (Volcano #5929); move capacity into the first tier"
                )
                return [_Warning(Code.INEFFECTIVE_PLUGIN, ("tiers", t, "plugins", p, "name"), text)]
    return []


def _max_domains_not_positive(conf: SchedulerConf) -> list[_Warning]:
    """A gang eviction action's ``maxDomains`` of 0 or less means the default, 8 (as Volcano, which
    logs it): said when the conf loads rather than at every session."""
    found: list[_Warning] = []
    for c, configuration in enumerate(conf.configurations):
        value = configuration.arguments.get("maxDomains")
        if configuration.name.casefold() not in GANG_EVICTION_REPLACES or type(value) is not int:
            continue
        if value <= 0:
            text = f"{configuration.name} maxDomains {value}: 0 or less means the default, 8 (as Volcano)"
            found.append(_Warning(Code.DEFAULTED, ("configurations", c, "arguments", "maxDomains"), text))
    return found


SKIP_HINT = "--skip-unsupported (FUMAROLE_SKIP_UNSUPPORTED=true) skips it"
"""How an unsupported entry's error says it can be skipped."""


def _unknown(kind: volcano_names.Kind, name: str, loc: Loc, known: set[str]) -> Problem:
    """A name the registry lacks: a Volcano plugin or action fumarole does not implement (skippable),
    or an unknown name, with a hint when it differs from a known one only in case."""
    volcano = volcano_names.volcano_name(kind, name)
    if volcano is not None:
        return Problem(loc, f"{volcano.unsupported()}; {SKIP_HINT}", unsupported=volcano)
    message = f"unknown {kind} {name!r} (known: {', '.join(sorted(known))})"
    other = volcano_names.other_case(kind, name, known)
    if other is not None:
        does = "rejects it too" if kind == "action" else "skips it too, with an error log"
        message += f"; did you mean {other!r}? Names are case-sensitive: Volcano {does}"
    return Problem(loc, message)


@dataclass(frozen=True)
class _Warning:
    """A warning about a conf, before its line is known."""

    code: Code
    loc: Loc
    text: str


def _obsolete_flags(document: Mapping[str, Any]) -> list[_Warning]:
    """The obsolete flags the document's plugin entries give (``flags.OBSOLETE``)."""
    warnings: list[_Warning] = []
    tiers = document.get("tiers")
    for t, tier in enumerate(tiers if isinstance(tiers, list) else []):
        plugins = tier.get("plugins") if isinstance(tier, Mapping) else None
        for p, plugin in enumerate(plugins if isinstance(plugins, list) else []):
            if not isinstance(plugin, Mapping):
                continue
            written = plugin.get("flags")
            nested: Mapping[Any, Any] = written if isinstance(written, Mapping) else {}
            given = {
                flag.key if (flag := flag_specs.BY_NAME.get(key)) else key
                for key in (*_string_keys(plugin), *_string_keys(nested))
            }
            name = plugin.get("name")
            owner = f"{name} flag" if isinstance(name, str) and name else "flag"
            for at, keys in (((), plugin), (("flags",), nested)):
                for key in keys:
                    obsolete = flag_specs.OBSOLETE.get(key) if isinstance(key, str) else None
                    if obsolete is None:
                        continue
                    shadowed = obsolete.renamed_to is not None and obsolete.renamed_to in given
                    text = obsolete.describe(owner, key, shadowed=shadowed)
                    warnings.append(_Warning(Code.OBSOLETE_KEY, ("tiers", t, "plugins", p, *at, key), text))
    return warnings


def without_obsolete_arguments(
    conf: SchedulerConf, registry: Registry | None
) -> tuple[SchedulerConf, list[_Warning]]:
    """The conf with its plugins' and actions' arguments as they read them (the keys their arguments
    models declare obsolete left out, a renamed key under its new name, ``framework.obsolete``), and a
    warning for each such key."""
    if registry is None:
        return conf, []
    warnings: list[_Warning] = []

    def warn(owner: str, at: Loc, arguments: dict[str, Any], found: dict[str, ObsoleteKey]) -> None:
        for key, declaration in found.items():
            shadowed = declaration.renamed_to in arguments
            text = declaration.describe(f"{owner} argument", key, shadowed=shadowed)
            warnings.append(_Warning(Code.OBSOLETE_KEY, (*at, key), text))

    tiers = []
    for t, tier in enumerate(conf.tiers):
        plugins = []
        for p, plugin in enumerate(tier.plugins):
            if plugin.name and registry.has_plugin(plugin.name):
                kept, found = registry.split_plugin_arguments(plugin.name, plugin.arguments)
                warn(plugin.name, ("tiers", t, "plugins", p, "arguments"), plugin.arguments, found)
                plugin = plugin.model_copy(update={"arguments": kept}) if found else plugin
            plugins.append(plugin)
        tiers.append(Tier(plugins=plugins))
    configurations = []
    for c, configuration in enumerate(conf.configurations):
        name = configuration.name
        if name and name != VOTING and registry.has_action(name):
            kept, found = registry.split_action_arguments(name, configuration.arguments)
            warn(name, ("configurations", c, "arguments"), configuration.arguments, found)
            configuration = configuration.model_copy(update={"arguments": kept}) if found else configuration
        configurations.append(configuration)
    if not warnings:
        return conf, []
    return conf.model_copy(update={"tiers": tiers, "configurations": configurations}), warnings


def _without(conf: SchedulerConf, skipped: list[Problem]) -> SchedulerConf:
    """The conf without the actions and plugin entries of the ``skipped`` problems."""
    actions = {name for name, kind in _names(skipped) if kind == "action"}
    plugins = {(p.loc[1], p.loc[3]) for p in skipped if p.unsupported and p.unsupported.kind == "plugin"}
    update: dict[str, Any] = {}
    if actions:
        update["actions"] = ", ".join(name for name in conf.action_names if name not in actions)
    if plugins:
        update["tiers"] = [
            Tier(plugins=[plugin for p, plugin in enumerate(tier.plugins) if (t, p) not in plugins])
            for t, tier in enumerate(conf.tiers)
        ]
    return conf.model_copy(update=update)


def _names(skipped: list[Problem]) -> list[tuple[str, str]]:
    """The skipped entries' names and kinds, in order."""
    return [(p.unsupported.name, p.unsupported.kind) for p in skipped if p.unsupported is not None]


def _skipped_warning(problem: Problem) -> _Warning:
    volcano = problem.unsupported
    assert volcano is not None
    text = f"{volcano.kind} {volcano.name!r} skipped (--skip-unsupported): {volcano.what()}"
    return _Warning(Code.UNSUPPORTED_SKIPPED, problem.loc, text)


def _diagnostics(source: str, warnings: list[_Warning], lines: YamlLines) -> list[Diagnostic]:
    """The warnings as diagnostics (each logged once), subject ``<source>:<line>``, in line order."""
    placed = []
    for index, warning in enumerate(warnings):
        line = lines.line(warning.loc)
        placed.append((line if line is not None else 1 << 30, index, line, warning))
    diagnostics = Diagnostics()
    for _, _, line, warning in sorted(placed, key=lambda item: item[:2]):
        diagnostics.add(warning.code, f"{source}:{line}" if line is not None else source, warning.text)
    return list(diagnostics)
