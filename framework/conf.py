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
ConfigMap holding the conf under ``data.<name>.conf`` is accepted too; lines are those of the outer file.
(Volcano stops at the first error, and ignores unknown keys: docs/differences.md.)

fumarole reads one configuration of its own, ignored by Volcano: ``- name: voting`` with
``arguments: {emptyIntersection: undecided | noVictims}`` chooses how an empty intersection of victims
is counted (docs/differences.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, StrictBool, ValidationError, model_validator

from .extension_points import flags as flag_specs
from .extension_points.flags import FLAGS, Flag
from .util.input_text import RESOURCE_ERROR, InputTextError, decode, one_line, short_repr, yaml_problem
from .util.yaml_lines import YamlLines

SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""libyaml's safe loader when PyYAML was built with it (much faster), else the pure-Python one."""

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
        if not isinstance(data, Mapping):
            return data
        gathered = dict(data.get("flags") or {})
        rest: dict[str, Any] = {}
        for key, value in data.items():
            flag = flag_specs.BY_NAME.get(key) if isinstance(key, str) else None
            if flag is not None:
                gathered[flag.key] = value
            elif key != "flags":
                rest[key] = value
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


class Configuration(_Strict):
    """Arguments for an action (or any named consumer) (``conf.Configuration``)."""

    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)


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
        """The actions in order, as written (trimmed); an empty name is a conf error."""
        return [name.strip() for name in self.actions.split(",")]

    def plugin_names(self) -> list[str]:
        return [plugin.name for tier in self.tiers for plugin in tier.plugins]

    def configuration(self, name: str) -> dict[str, Any]:
        """Arguments of the first configuration with this name (``GetArgOfActionFromConf``)."""
        for configuration in self.configurations:
            if configuration.name == name:
                return configuration.arguments
        return {}

    @property
    def voting(self) -> VotingArguments:
        return VotingArguments.model_validate(self.configuration(VOTING), by_alias=True, by_name=False)

    def with_defaults(self) -> SchedulerConf:
        tiers = [Tier(plugins=[plugin.with_defaults() for plugin in tier.plugins]) for tier in self.tiers]
        twin = self.model_copy(update={"tiers": tiers})
        twin._source = self._source
        return twin

    def resolved(self) -> SchedulerConf:
        """Every plugin's flags written out as true or false (see ``PluginOption.resolved``)."""
        tiers = [Tier(plugins=[plugin.resolved() for plugin in tier.plugins]) for tier in self.tiers]
        twin = self.model_copy(update={"tiers": tiers})
        twin._source = self._source
        return twin

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
def _unwrap_configmap(
    document: Mapping[str, Any], source: str, lines: YamlLines
) -> tuple[Mapping[str, Any], YamlLines]:
    """The conf a ConfigMap holds under ``data.<name>.conf``; its lines are counted in the outer file."""
    if document.get("kind") != "ConfigMap":
        return document, lines
    data = document.get("data")
    if not isinstance(data, Mapping):
        raise conf_error(source, [Problem(("data",), "a ConfigMap's data must be a mapping")], lines)
    for key, text in data.items():
        if str(key).endswith(".conf"):
            start = lines.value_line(("data", key)) or 1
            try:
                inner = yaml.load(str(text), Loader=SAFE_LOADER)
            except yaml.YAMLError as exc:
                message = yaml_problem(source, exc, offset=start - 1, text=str(text))
                raise ConfError(message) from exc
            if not isinstance(inner, Mapping):
                problem = Problem(("data", key), "the embedded conf is not a mapping")
                raise conf_error(source, [problem], lines)
            return inner, YamlLines.of(str(text), offset=start - 1)
    raise conf_error(source, [Problem(("data",), "ConfigMap has no data key ending in .conf")], lines)


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
) -> SchedulerConf:
    """Parse and validate conf text; every problem is reported in one ``ConfError``, with the line
    of each (unless ``line_numbers`` is false: text that is not what the user wrote)."""
    try:
        document = yaml.load(text, Loader=SAFE_LOADER)
    except yaml.YAMLError as exc:
        if line_numbers:
            message = yaml_problem(source, exc, text=text)
        else:
            message = f"{source}: not valid YAML: {' '.join(str(exc).split())}"
        raise ConfError(message) from exc
    if document is None:
        raise ConfError(f"{source}: the conf is empty")
    if not isinstance(document, Mapping):
        raise ConfError(f"{source}: the conf must be a mapping with actions and tiers")
    lines = YamlLines.of(text if line_numbers else "")
    document, lines = _unwrap_configmap(document, source, lines)
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
    if problems:
        raise conf_error(source, problems, lines)
    if apply_defaults:
        conf = conf.with_defaults()
    return conf


def load_conf(
    path: str | Path, registry: Registry | None = None, *, apply_defaults: bool = True
) -> SchedulerConf:
    """Read a conf file (Volcano defaulting applied unless ``apply_defaults`` is false).

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
    return parse_conf(text, str(path), registry, apply_defaults=apply_defaults)


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
            known = ", ".join(sorted(registry.action_names()))
            problems.append(Problem(("actions",), f"unknown action {name!r} (known: {known})"))
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
            if registry is not None:
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
