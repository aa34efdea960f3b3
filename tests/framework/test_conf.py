"""The scheduler conf (Volcano's YAML, its defaulting and its errors) and the FUMAROLE_* settings.

Names are resolved against a registry built in the test (no entry points), so "known: ..." lists in
the error messages are exact.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from fumarole.framework.conf import (
    DEFAULT_CONF_TEXT,
    ConfError,
    PluginOption,
    SchedulerConf,
    Tier,
    default_conf,
    load_conf,
    parse_conf,
)
from fumarole.framework.diagnostics import Code
from fumarole.framework.interface import PluginArguments
from fumarole.framework.registry import Registry
from fumarole.framework.session import Session
from fumarole.framework.settings import Settings
from pydantic import BaseModel, ConfigDict, Field, ValidationError

ROOT = Path(__file__).resolve().parents[2]
MANIFESTS = ROOT / "tests" / "fixtures" / "manifests"

# Volcano's YAML keys (pkg/scheduler/conf/scheduler_conf.go) -> fumarole's PluginOption fields.
VOLCANO_FLAGS = {
    "enableJobOrder": "enabled_job_order",
    "enableHierarchy": "enabled_hierarchy",
    "enableJobReady": "enabled_job_ready",
    "enableJobPipelined": "enabled_job_pipelined",
    "enableTaskOrder": "enabled_task_order",
    "enablePreemptable": "enabled_preemptable",
    "enableReclaimable": "enabled_reclaimable",
    "enablePreemptive": "enable_preemptive",
    "enableQueueOrder": "enabled_queue_order",
    "enabledClusterOrder": "enabled_cluster_order",
    "enablePredicate": "enabled_predicate",
    "enableBestNode": "enabled_best_node",
    "enableNodeOrder": "enabled_node_order",
    "enableTargetJob": "enabled_target_job",
    "enableReservedNodes": "enabled_reserved_nodes",
    "enableJobEnqueued": "enabled_job_enqueued",
    "enabledVictim": "enabled_victim",
    "enableJobStarving": "enabled_job_starving",
    "enabledOverused": "enabled_overused",
    "enabledAllocatable": "enabled_allocatable",
    "enabledHyperNodeOrder": "enabled_hyper_node_order",
    "enabledSubJobReady": "enabled_sub_job_ready",
    "enabledSubJobPipelined": "enabled_sub_job_pipelined",
    "enabledSubJobOrder": "enabled_sub_job_order",
    "enabledHyperNodeGradient": "enabled_hyper_node_gradient",
}
NOT_DEFAULTED = {"enabled_hierarchy", "enabled_cluster_order"}


class _AnyArguments(PluginArguments):
    model_config = ConfigDict(extra="allow")


class _Plugin:
    name = "fake"
    arguments_model: type[BaseModel] = _AnyArguments

    def __init__(self, arguments: BaseModel) -> None:
        self.arguments = arguments

    def on_session_open(self, ssn: Session) -> None:
        return None

    def on_session_close(self, ssn: Session) -> None:
        return None


class _BinpackArguments(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)
    weight: int = Field(1, alias="binpack.weight")
    cpu: int = Field(1, alias="binpack.cpu")


class _Binpack(_Plugin):
    name = "binpack"
    arguments_model = _BinpackArguments


class _AllocateArguments(BaseModel):
    model_config = ConfigDict(extra="forbid")
    predicateErrorCacheEnable: bool = True


class _Action:
    name = "fake"

    def execute(self, ssn: Session) -> None:
        return None


class _Allocate(_Action):
    name = "allocate"
    arguments_model = _AllocateArguments


PLUGINS = ["priority", "gang", "conformance", "overcommit", "drf", "predicates", "proportion", "nodeorder"]
# the "known: ..." lists of the error messages, for the registry below
ACTIONS = "allocate, backfill, enqueue, preempt, reclaim"
KNOWN = "binpack, conformance, drf, gang, nodeorder, overcommit, predicates, priority, proportion"


@pytest.fixture
def registry() -> Registry:
    registry = Registry(entry_points=False)
    for name in PLUGINS:
        registry.register_plugin(name, type(f"_{name}", (_Plugin,), {"name": name}))
    registry.register_plugin("binpack", _Binpack)
    for name in ("enqueue", "backfill", "preempt", "reclaim"):
        registry.register_action(name, _Action)
    registry.register_action("allocate", _Allocate)
    return registry


def _flags(option: PluginOption) -> dict[str, bool | None]:
    return {field: option.value(field) for field in VOLCANO_FLAGS.values()}


# ---------------------------------------------------------------------------------------- reading
def test_all_25_flags_with_volcano_spelling(registry: Registry) -> None:
    assert len(VOLCANO_FLAGS) == 25
    listed_false = "\n".join(f"    {key}: false" for key in VOLCANO_FLAGS)
    listed_true = "\n".join(f"    {key}: true" for key in VOLCANO_FLAGS)
    text = (
        f'actions: "allocate"\ntiers:\n- plugins:\n  - name: gang\n{listed_false}\n'
        f"  - name: drf\n{listed_true}\n"
    )
    conf = parse_conf(text, "conf.yaml", registry)
    gang, drf = conf.tiers[0].plugins
    assert _flags(gang) == dict.fromkeys(VOLCANO_FLAGS.values(), False)
    assert _flags(drf) == dict.fromkeys(VOLCANO_FLAGS.values(), True)
    assert all(drf.is_enabled(flag) for flag in VOLCANO_FLAGS.values())
    assert not any(gang.is_enabled(flag) for flag in VOLCANO_FLAGS.values())


def test_unset_flags_default_to_true_except_hierarchy_and_cluster_order(registry: Registry) -> None:
    conf = parse_conf('actions: "allocate"\ntiers:\n- plugins:\n  - name: gang\n', "conf.yaml", registry)
    (gang,) = conf.tiers[0].plugins
    expected = {field: (None if field in NOT_DEFAULTED else True) for field in VOLCANO_FLAGS.values()}
    assert _flags(gang) == expected
    assert not gang.is_enabled("enabled_hierarchy")
    assert not gang.is_enabled("enabled_cluster_order")


def test_explicit_false_is_honoured_and_the_rest_defaulted(registry: Registry) -> None:
    text = """\
actions: "allocate"
tiers:
- plugins:
  - name: gang
    enablePreemptable: false
    enableJobOrder: false
  - name: drf
    enableHierarchy: true
    enabledClusterOrder: false
"""
    gang, drf = parse_conf(text, "conf.yaml", registry).tiers[0].plugins
    assert (
        gang.value("enabled_preemptable"),
        gang.value("enabled_job_order"),
        gang.value("enabled_job_ready"),
    ) == (False, False, True)
    assert (
        drf.value("enabled_hierarchy"),
        drf.value("enabled_cluster_order"),
        drf.value("enabled_victim"),
    ) == (True, False, True)


def test_without_defaulting_unset_flags_stay_unset(registry: Registry) -> None:
    conf = parse_conf(
        'actions: "allocate"\ntiers:\n- plugins:\n  - name: gang\n', "c.yaml", registry, apply_defaults=False
    )
    assert _flags(conf.tiers[0].plugins[0]) == dict.fromkeys(VOLCANO_FLAGS.values(), None)


def test_a_conf_built_in_code_keeps_unset_flags_disabled() -> None:
    conf = SchedulerConf(
        actions="allocate", tiers=[Tier(plugins=[PluginOption(name="gang", enabled_job_ready=True)])]
    )
    (gang,) = conf.tiers[0].plugins
    assert gang.is_enabled("enabled_job_ready")
    assert not gang.is_enabled("enabled_job_order")
    assert gang.value("enabled_job_order") is None
    every = PluginOption.all_enabled("drf", enabled_hierarchy=False)
    assert [flag for flag, value in _flags(every).items() if value is not True] == ["enabled_hierarchy"]


def test_resolved_writes_every_flag_as_the_session_reads_it(registry: Registry) -> None:
    loaded = parse_conf('actions: "allocate"\ntiers:\n- plugins:\n  - name: gang\n', "c.yaml", registry)
    built = SchedulerConf(actions="allocate", tiers=[Tier(plugins=[PluginOption(name="gang")])])
    expected_loaded = {key: key not in ("enableHierarchy", "enabledClusterOrder") for key in VOLCANO_FLAGS}
    assert loaded.resolved().tiers[0].plugins[0].flags == expected_loaded
    assert built.resolved().tiers[0].plugins[0].flags == dict.fromkeys(VOLCANO_FLAGS, False)
    assert loaded.resolved().source == "c.yaml"


def test_to_text_is_a_volcano_conf_that_parses_back(registry: Registry) -> None:
    conf = parse_conf(
        "actions: enqueue,allocate\ntiers:\n- plugins:\n  - name: gang\n    enableJobOrder: false\n"
        "configurations:\n- name: allocate\n  arguments: {predicateErrorCacheEnable: false}\n",
        "c.yaml",
        registry,
        apply_defaults=False,
    )
    assert conf.to_text() == (
        'actions: "enqueue, allocate"\ntiers:\n- plugins:\n  - name: gang\n    enableJobOrder: false\n'
        "configurations:\n- name: allocate\n  arguments:\n    predicateErrorCacheEnable: false\n"
    )
    assert (
        parse_conf(conf.to_text(), "again.yaml", registry, apply_defaults=False).to_yaml() == conf.to_yaml()
    )


def test_actions_arguments_and_configurations(registry: Registry) -> None:
    text = """\
actions: " enqueue,allocate , backfill "
tiers:
- plugins:
  - name: priority
  - name: gang
    arguments: {gang.mode: strict, threshold: 0.5}
- plugins:
  - name: binpack
    arguments:
      binpack.weight: 10
      binpack.cpu: 2
configurations:
- name: allocate
  arguments: {predicateErrorCacheEnable: false}
- name: network-topology
  arguments: {anything: [1, 2]}
- name: allocate
  arguments: {predicateErrorCacheEnable: true}
metrics:
  type: prometheus
"""
    conf = parse_conf(text, "conf.yaml", registry)
    assert conf.action_names == ["enqueue", "allocate", "backfill"]
    assert conf.plugin_names() == ["priority", "gang", "binpack"]
    assert conf.tiers[0].plugins[1].arguments == {"gang.mode": "strict", "threshold": 0.5}
    assert conf.tiers[1].plugins[0].arguments == {"binpack.weight": 10, "binpack.cpu": 2}
    assert conf.configuration("allocate") == {"predicateErrorCacheEnable": False}
    assert conf.configuration("network-topology") == {"anything": [1, 2]}
    assert conf.configuration("preempt") == {}
    assert conf.metrics == {"type": "prometheus"}
    assert conf.source == "conf.yaml"


def test_volcano_default_conf(registry: Registry) -> None:
    conf = default_conf(registry)
    assert conf.source == "<default conf>"
    assert conf.action_names == ["enqueue", "allocate", "backfill"]
    assert [[p.name for p in tier.plugins] for tier in conf.tiers] == [
        ["priority", "gang", "conformance"],
        ["overcommit", "drf", "predicates", "proportion", "nodeorder"],
    ]
    assert conf == parse_conf(DEFAULT_CONF_TEXT, "<default conf>", registry)
    assert conf.to_yaml() == load_conf(ROOT / "conf" / "default.yaml", registry).to_yaml()


def test_a_configmap_wrapped_conf_is_accepted(registry: Registry) -> None:
    path = MANIFESTS / "scheduler-config-benchmark-gang.yaml"
    conf = load_conf(path, registry)
    assert conf.source == str(path)
    assert conf.action_names == ["enqueue", "allocate", "backfill"]
    assert [[p.name for p in tier.plugins] for tier in conf.tiers] == [
        ["priority", "gang", "conformance"],
        ["overcommit", "drf", "predicates", "proportion", "nodeorder", "binpack"],
    ]
    gang = conf.tiers[0].plugins[1]
    drf = conf.tiers[1].plugins[1]
    assert (gang.value("enabled_preemptable"), gang.value("enabled_job_ready")) == (False, True)
    assert (drf.value("enabled_preemptable"), drf.value("enabled_hierarchy")) == (False, None)


@pytest.fixture
def installed() -> Registry:
    """The installed actions and plugins (the gang eviction actions, capacity, ...)."""
    return Registry()


def test_action_names_match_in_any_case(installed: Registry) -> None:
    # Volcano's design doc and seed 002 spell the actions gangPreempt / gangReclaim; Volcano registers
    # gangpreempt / gangreclaim and rejects this conf (case-sensitive look-up); fumarole loads it.
    conf = load_conf(MANIFESTS / "scheduler-config-gangpreempt.yaml", installed)
    assert conf.action_names == ["allocate", "backfill", "gangpreempt", "gangreclaim"]
    assert list(conf.diagnostics) == []
    configured = parse_conf(
        'actions: "Allocate, gangPreempt"\ntiers:\n- plugins:\n  - name: gang\n'
        "configurations:\n- name: gangPreempt\n  arguments: {maxDomains: 2}\n",
        "conf.yaml",
        installed,
    )
    assert configured.action_names == ["allocate", "gangpreempt"]
    assert configured.configuration("gangpreempt") == {"maxDomains": 2}


@pytest.mark.parametrize(
    ("actions", "message"),
    [
        pytest.param(
            "enqueue, allocate, gangpreempt, preempt",
            "gangpreempt cannot be combined with preempt",
            id="gangpreempt-and-preempt",
        ),
        pytest.param(
            "allocate, gangReclaim, gangpreempt, reclaim, preempt",
            "gangpreempt and gangReclaim cannot be combined with preempt and reclaim",
            id="both-pairs-named-once",
        ),
        pytest.param(
            "allocate, gangreclaim, preempt",
            "gangreclaim cannot be combined with preempt",
            id="gangreclaim-and-preempt",
        ),
    ],
)
def test_gang_eviction_actions_are_not_combined_with_preempt_and_reclaim(
    installed: Registry, actions: str, message: str
) -> None:
    with pytest.raises(ConfError) as info:
        parse_conf(f'actions: "{actions}"\ntiers:\n- plugins:\n  - name: gang\n', "conf.yaml", installed)
    assert info.value.problems == [
        f"conf.yaml:1: actions: {message}: the gang-aware actions replace the pod-by-pod ones (seed 002); "
        "listed together, preempt and reclaim would evict pods one by one from the gangs gangpreempt and "
        "gangreclaim keep whole. List one kind."
    ]


@pytest.mark.parametrize(
    ("tiers", "warned"),
    [
        pytest.param(
            "- plugins:\n  - name: gang\n- plugins:\n  - name: capacity\n",
            [
                (
                    "conf.yaml:6",
                    "capacity is in tier 2: with gangreclaim its victim filter (unified_evictable: only pods "
                    "of queues above their deserved share) is never asked, because the first tier decides "
                    "(Volcano #5929); move capacity into the first tier",
                )
            ],
            id="capacity-in-tier-2-warned",
        ),
        pytest.param("- plugins:\n  - name: gang\n  - name: capacity\n", [], id="capacity-in-tier-1-fine"),
        pytest.param("- plugins:\n  - name: gang\n- plugins:\n  - name: proportion\n", [], id="no-capacity"),
    ],
)
def test_capacity_below_the_first_tier_is_warned_about_with_gang_eviction(
    installed: Registry, tiers: str, warned: list[tuple[str, str]]
) -> None:
    conf = parse_conf(f'actions: "allocate, gangreclaim"\ntiers:\n{tiers}', "conf.yaml", installed)
    assert [(d.code, d.subject, d.text) for d in conf.diagnostics] == [
        (Code.INEFFECTIVE_PLUGIN, subject, text) for subject, text in warned
    ]


@pytest.mark.parametrize(
    ("arguments", "warned"),
    [
        pytest.param(
            "{maxDomains: 0}",
            ["gangReclaim maxDomains 0: 0 or less means the default, 8 (as Volcano)"],
            id="zero",
        ),
        pytest.param(
            "{maxDomains: -3}",
            ["gangReclaim maxDomains -3: 0 or less means the default, 8 (as Volcano)"],
            id="negative",
        ),
        pytest.param("{maxDomains: 1}", [], id="positive"),
        pytest.param("{allowWholeBundle: false}", [], id="absent"),
    ],
)
def test_max_domains_of_zero_or_less_is_warned_about_at_load(
    installed: Registry, arguments: str, warned: list[str]
) -> None:
    text = (
        'actions: "allocate, gangreclaim"\ntiers:\n- plugins:\n  - name: gang\n'
        f"configurations:\n- name: gangReclaim\n  arguments: {arguments}\n"
    )
    conf = parse_conf(text, "conf.yaml", installed)
    assert [(d.code, d.subject, d.text) for d in conf.diagnostics] == [
        (Code.DEFAULTED, "conf.yaml:7", message) for message in warned
    ]


# ---------------------------------------------------------------------------------------- errors
def _conf(*plugin_lines: str, actions: str = "allocate") -> str:
    return f'actions: "{actions}"\ntiers:\n- plugins:\n' + "".join(f"{line}\n" for line in plugin_lines)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param(
            _conf("  - name: gang", actions="enqueue, alocate"),
            f"conf.yaml:1: actions: unknown action 'alocate' (known: {ACTIONS})",
            id="unknown-action",
        ),
        pytest.param(
            'actions: "allocate"\ntiers:\n- plugins:\n  - name: gang\n- plugins:\n  - name: gnag\n',
            f"conf.yaml:6: tiers[1].plugins[0].name: unknown plugin 'gnag' (known: {KNOWN})",
            id="unknown-plugin",
        ),
        pytest.param(
            'actions: "allocate"\ntiers:\n- plugins:\n  - name: gang\n'
            "- plugins:\n  - name: drf\n  - name: gang\n",
            "conf.yaml:7: tiers[1].plugins[1].name: plugin 'gang' is listed twice "
            "(first at tiers[0].plugins[0])",
            id="duplicate-plugin",
        ),
        pytest.param(
            _conf("  - name: gang", "    enableJobReadyy: true"),
            "conf.yaml:5: tiers[0].plugins[0].enableJobReadyy: unknown key",
            id="unknown-plugin-key",
        ),
        pytest.param(
            _conf("  - name: gang", "    enabledJobOrder: true"),
            "conf.yaml:5: tiers[0].plugins[0].enabledJobOrder: unknown key; did you mean enableJobOrder?",
            id="misspelt-enable-prefix",
        ),
        pytest.param(
            'actions: "allocate"\ntier:\n- plugins: []\n',
            "conf.yaml:2: tier: unknown key",
            id="unknown-top-level-key",
        ),
        pytest.param(
            'actions: "allocate"\ntiers:\n- plugins: []\n  name: t1\n',
            "conf.yaml:4: tiers[0].name: unknown key",
            id="unknown-tier-key",
        ),
        pytest.param(
            _conf("  - name: gang", '    enableJobOrder: "yes"'),
            "conf.yaml:5: tiers[0].plugins[0].enableJobOrder: Input should be a valid boolean (got 'yes')",
            id="flag-as-string",
        ),
        pytest.param(
            _conf("  - name: gang", "    enableJobOrder: 1"),
            "conf.yaml:5: tiers[0].plugins[0].enableJobOrder: Input should be a valid boolean (got 1)",
            id="flag-as-int",
        ),
        pytest.param(
            _conf("  - name: gang", "    arguments: [a]"),
            "conf.yaml:5: tiers[0].plugins[0].arguments: Input should be a valid dictionary",
            id="arguments-not-a-mapping",
        ),
        pytest.param(
            _conf("  - enableJobOrder: true"),
            "conf.yaml:4: tiers[0].plugins[0].name: required key is missing",
            id="plugin-without-name",
        ),
        pytest.param(
            _conf("  - name: drf", "    enableHierarchy: true", "  - name: proportion"),
            "conf.yaml:3: tiers[0]: proportion and drf with enableHierarchy: true conflict in one tier",
            id="hdrf-with-proportion",
        ),
        pytest.param(
            'actions: ""\ntiers:\n- plugins:\n  - name: gang\n',
            "conf.yaml:1: actions: no action is configured",
            id="no-action",
        ),
        pytest.param(
            "actions: [allocate]\n",
            "conf.yaml:1: actions: Input should be a valid string (got ['allocate'])",
            id="actions-as-list",
        ),
        pytest.param("", "conf.yaml: the conf is empty", id="empty"),
        pytest.param(
            "- allocate\n", "conf.yaml: the conf must be a mapping with actions and tiers", id="not-a-mapping"
        ),
        pytest.param(
            _conf("  - name: binpack", "    arguments: {binpack.weight: heavy}"),
            "conf.yaml:5: tiers[0].plugins[0].arguments.binpack.weight: Input should be a valid integer, "
            "unable to parse string as an integer (got 'heavy')",
            id="plugin-argument-type",
        ),
        pytest.param(
            _conf("  - name: binpack", "    arguments: {binpack.wieght: 2}"),
            "conf.yaml:5: tiers[0].plugins[0].arguments.binpack.wieght: unknown key",
            id="plugin-argument-unknown",
        ),
        pytest.param(
            'actions: "allocate"\nconfigurations:\n- name: allocate\n'
            "  arguments: {predicateErrorCacheEnable: 3}\n",
            "conf.yaml:4: configurations[0].arguments.predicateErrorCacheEnable: Input should be a valid "
            "boolean, unable to interpret input (got 3)",
            id="action-argument-type",
        ),
        pytest.param(
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata:\n  readme: hi\n",
            "conf.yaml:4: data: ConfigMap has no data key ending in .conf",
            id="configmap-without-conf",
        ),
        pytest.param(
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: [s.conf]\n",
            "conf.yaml:4: data: a ConfigMap's data must be a mapping",
            id="configmap-data-not-a-mapping",
        ),
        pytest.param(
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata:\n  s.conf: |\n    - allocate\n",
            "conf.yaml:5: data.s.conf: the embedded conf is not a mapping",
            id="configmap-conf-not-a-mapping",
        ),
        pytest.param(
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"
            "data:\n  s.conf: |\n    actions: allocate\n    tiers: 'x\n    - plugins: []\n",
            "conf.yaml:9: not valid YAML: found unexpected end of stream "
            "(while scanning a quoted scalar at line 7)",
            id="configmap-conf-not-yaml",
        ),
        pytest.param(
            'actions: "allocate\ntiers:\n- plugins:\n  - name: gang\n',
            "conf.yaml:5: not valid YAML: found unexpected end of stream "
            "(while scanning a quoted scalar at line 1)",
            id="not-yaml-unclosed-quote",
        ),
        pytest.param(
            'actions: "allocate"\n---\nactions: "enqueue"\n',
            "conf.yaml: 2 YAML documents and none is a ConfigMap named *scheduler-configmap (a conf file "
            "holds one conf; an installer, the scheduler's ConfigMap)",
            id="two-documents-and-no-scheduler-configmap",
        ),
        pytest.param(
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"
            "data:\n  s.conf: |\n    actions: allocate\n"
            "    tiers:\n    - plugins:\n      - name: gang\n        enableJobOrder: 'no'\n",
            "conf.yaml:10: tiers[0].plugins[0].enableJobOrder: Input should be a valid boolean (got 'no')",
            id="configmap-wrapped-bad-flag",
        ),
    ],
)
def test_bad_confs_name_the_file_and_the_key(registry: Registry, text: str, message: str) -> None:
    with pytest.raises(ConfError) as info:
        parse_conf(text, "conf.yaml", registry)
    assert str(info.value) == message


# Each case holds several mistakes; none may hide another (the partial conf keeps what is valid of
# an invalid entry: its name, its well-typed flags, its arguments).
@pytest.mark.parametrize(
    ("text", "problems"),
    [
        pytest.param(
            'actions: "allocate"\ntiers:\n- plugins:\n  - name: gang\n    enableJobOrdr: true\n'
            "- plugins:\n  - name: gnag\n  - name: binpack\n    arguments: {binpack.weight: heavy}\n",
            [
                "conf.yaml:5: tiers[0].plugins[0].enableJobOrdr: unknown key",
                f"conf.yaml:7: tiers[1].plugins[0].name: unknown plugin 'gnag' (known: {KNOWN})",
                "conf.yaml:9: tiers[1].plugins[1].arguments.binpack.weight: Input should be a valid integer, "
                "unable to parse string as an integer (got 'heavy')",
            ],
            id="flag-key-plugin-name-argument-type-in-three-entries",
        ),
        pytest.param(
            _conf("  - name: binpack", "    enableJobOrdr: true", "    arguments: {binpack.weight: heavy}"),
            [
                "conf.yaml:5: tiers[0].plugins[0].enableJobOrdr: unknown key",
                "conf.yaml:6: tiers[0].plugins[0].arguments.binpack.weight: Input should be a valid integer, "
                "unable to parse string as an integer (got 'heavy')",
            ],
            id="unknown-flag-key-and-argument-type-in-one-entry",
        ),
        pytest.param(
            _conf("  - name: binpack", '    enableJobOrder: "yes"', "    arguments: {binpack.wieght: 2}"),
            [
                "conf.yaml:5: tiers[0].plugins[0].enableJobOrder: "
                "Input should be a valid boolean (got 'yes')",
                "conf.yaml:6: tiers[0].plugins[0].arguments.binpack.wieght: unknown key",
            ],
            id="flag-type-and-unknown-argument-in-one-entry",
        ),
        pytest.param(
            _conf(
                "  - name: drf",
                "    enableHierarchy: true",
                "    enableJobOrder: 1",
                "  - name: proportion",
            ),
            [
                "conf.yaml:3: tiers[0]: proportion and drf with enableHierarchy: true conflict in one tier",
                "conf.yaml:6: tiers[0].plugins[0].enableJobOrder: Input should be a valid boolean (got 1)",
            ],
            id="hierarchy-conflict-of-an-entry-with-a-bad-flag",
        ),
        pytest.param(
            _conf(
                "  - name: gang", "  - name: gang", "    enableTaskOrdr: false", actions="enqueue, alocate"
            ),
            [
                f"conf.yaml:1: actions: unknown action 'alocate' (known: {ACTIONS})",
                "conf.yaml:5: tiers[0].plugins[1].name: plugin 'gang' is listed twice "
                "(first at tiers[0].plugins[0])",
                "conf.yaml:6: tiers[0].plugins[1].enableTaskOrdr: unknown key",
            ],
            id="unknown-action-duplicate-plugin-unknown-flag-key",
        ),
        pytest.param(
            'actions: "allocate"\nconfigurations:\n- name: allocate\n  argumnts: {}\n'
            "  arguments: {predicateErrorCacheEnable: 3}\n",
            [
                "conf.yaml:4: configurations[0].argumnts: unknown key",
                "conf.yaml:5: configurations[0].arguments.predicateErrorCacheEnable: Input should be a valid "
                "boolean, unable to interpret input (got 3)",
            ],
            id="configuration-unknown-key-and-argument-type",
        ),
        pytest.param(
            'actions: "allocate"\ntier: []\ntiers:\n- plugins:\n  - name: binpack\n    enableJobOrder: 2\n'
            "    arguments: {a: 1}\n",
            [
                "conf.yaml:2: tier: unknown key",
                "conf.yaml:6: tiers[0].plugins[0].enableJobOrder: Input should be a valid boolean (got 2)",
                "conf.yaml:7: tiers[0].plugins[0].arguments.a: unknown key",
            ],
            id="top-level-key-flag-type-unknown-argument",
        ),
        pytest.param(
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: volcano-scheduler-configmap}\ndata:\n"
            "  volcano-scheduler.conf: |\n"
            '    actions: "enqueue, allocate"\n'
            "    tiers:\n"
            "    - plugins:\n"
            "      - name: gang\n"
            "        enableJobOrdr: true\n"
            "    - plugins:\n"
            "      - name: gnag\n"
            "      - name: binpack\n"
            "        arguments: {binpack.weight: heavy}\n",
            [
                "conf.yaml:10: tiers[0].plugins[0].enableJobOrdr: unknown key",
                f"conf.yaml:12: tiers[1].plugins[0].name: unknown plugin 'gnag' (known: {KNOWN})",
                "conf.yaml:14: tiers[1].plugins[1].arguments.binpack.weight: "
                "Input should be a valid integer, unable to parse string as an integer (got 'heavy')",
            ],
            id="configmap-wrapped-lines-in-the-outer-file",
        ),
    ],
)
def test_every_problem_is_reported_with_its_line(registry: Registry, text: str, problems: list[str]) -> None:
    with pytest.raises(ConfError) as info:
        parse_conf(text, "conf.yaml", registry)
    assert info.value.problems == problems
    assert str(info.value) == "\n".join(problems)


def test_hdrf_and_proportion_in_different_tiers_is_fine(registry: Registry) -> None:
    text = _conf("  - name: drf", "    enableHierarchy: true") + "- plugins:\n  - name: proportion\n"
    conf = parse_conf(text, "conf.yaml", registry)
    assert conf.plugin_names() == ["drf", "proportion"]


def test_errors_name_the_file_read(tmp_path: Path, registry: Registry) -> None:
    path = tmp_path / "volcano-scheduler.conf"
    path.write_text(_conf("  - name: gang", '    enableJobOrder: "yes"'))
    with pytest.raises(ConfError) as info:
        load_conf(path, registry)
    assert (
        str(info.value)
        == f"{path}:5: tiers[0].plugins[0].enableJobOrder: Input should be a valid boolean (got 'yes')"
    )
    missing = tmp_path / "absent.conf"
    with pytest.raises(ConfError) as info:
        load_conf(missing, registry)
    assert str(info.value) == f"{missing}: cannot read the conf: No such file or directory"


def test_without_a_registry_names_are_not_checked() -> None:
    conf = parse_conf(_conf("  - name: anything-goes", actions="whatever"), "conf.yaml")
    assert (conf.action_names, conf.plugin_names()) == (["whatever"], ["anything-goes"])


# ---------------------------------------------------------------------------------------- settings
ENV = ("FUMAROLE_SEED", "FUMAROLE_LOG_LEVEL", "FUMAROLE_CONF", "FUMAROLE_SCHEDULER_NAMES")


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in ENV:
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def test_settings_defaults(clean_env: pytest.MonkeyPatch) -> None:
    settings = Settings()
    assert (settings.seed, settings.log_level, settings.conf, settings.scheduler_names) == (
        0,
        "WARNING",
        None,
        [],
    )


@pytest.mark.parametrize(
    ("variable", "value", "field", "expected"),
    [
        pytest.param("FUMAROLE_SEED", "42", "seed", 42, id="seed"),
        pytest.param("FUMAROLE_LOG_LEVEL", "DEBUG", "log_level", "DEBUG", id="log-level"),
        pytest.param(
            "FUMAROLE_CONF",
            "/etc/volcano/scheduler.conf",
            "conf",
            Path("/etc/volcano/scheduler.conf"),
            id="conf",
        ),
        pytest.param("FUMAROLE_SCHEDULER_NAMES", "volcano", "scheduler_names", ["volcano"], id="one-name"),
        pytest.param(
            "FUMAROLE_SCHEDULER_NAMES",
            " kube-batch, my-sched ,",
            "scheduler_names",
            ["kube-batch", "my-sched"],
            id="names-comma-separated",
        ),
    ],
)
def test_settings_from_environment(
    clean_env: pytest.MonkeyPatch, variable: str, value: str, field: str, expected: Any
) -> None:
    clean_env.setenv(variable, value)
    assert getattr(Settings(), field) == expected


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        pytest.param("FUMAROLE_SEED", "lucky", id="seed-not-an-int"),
        pytest.param("FUMAROLE_LOG_LEVEL", "LOUD", id="unknown-log-level"),
    ],
)
def test_bad_settings_are_rejected(clean_env: pytest.MonkeyPatch, variable: str, value: str) -> None:
    clean_env.setenv(variable, value)
    with pytest.raises(ValidationError):
        Settings()


@pytest.mark.parametrize(
    ("names", "owned"),
    [
        pytest.param(None, {"", "volcano"}, id="default"),
        pytest.param("my-sched", {"", "volcano", "my-sched"}, id="volcano-stays-ours"),
        pytest.param("a,b", {"", "volcano", "a", "b"}, id="two-names"),
    ],
)
def test_which_scheduler_names_are_ours(
    clean_env: pytest.MonkeyPatch, names: str | None, owned: set[str]
) -> None:
    if names is not None:
        clean_env.setenv("FUMAROLE_SCHEDULER_NAMES", names)
    settings = Settings()
    candidates = ["", "volcano", "my-sched", "a", "b", "default-scheduler"]
    assert {name for name in candidates if settings.owns(name)} == owned


def test_seed_drives_the_session_random_generator(clean_env: pytest.MonkeyPatch, registry: Registry) -> None:
    from fumarole.framework.cache import ClusterCache
    from fumarole.framework.scheduler import Scheduler

    clean_env.setenv("FUMAROLE_SEED", "1234")
    settings = Settings()
    scheduler = Scheduler(
        SchedulerConf(actions="allocate"), ClusterCache(settings), registry=registry, settings=settings
    )
    first = scheduler.open_session(now=0.0).rng.integers(0, 1_000_000, size=4)
    second = scheduler.open_session(now=0.0).rng.integers(0, 1_000_000, size=4)
    assert first.tolist() == np.random.default_rng([1234, 1]).integers(0, 1_000_000, size=4).tolist()
    assert second.tolist() == np.random.default_rng([1234, 2]).integers(0, 1_000_000, size=4).tolist()
