"""Real confs load: keys earlier Volcano releases read (accepted, with a warning), the plugins and
actions Volcano has and fumarole does not (an error, or skipped with ``skip_unsupported``), YAML nulls,
a conf inside a whole installer, and files that are not a Volcano conf at all.

Names are resolved against the installed entry points (the built-in plugins and actions), as the
command line resolves them, unless a test registers its own.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import pytest
from fumarole.framework.conf import ConfError, SchedulerConf, load_conf, parse_conf
from fumarole.framework.diagnostics import Code, Diagnostics
from fumarole.framework.extension_points import flags
from fumarole.framework.interface import PluginArguments
from fumarole.framework.obsolete import ObsoleteKey
from fumarole.framework.registry import Registry, validate_arguments
from fumarole.framework.session import Session
from fumarole.framework.settings import Settings
from fumarole.framework.volcano_names import ACTIONS, PLUGINS
from pydantic import BaseModel, ConfigDict, Field, StrictInt

ROOT = Path(__file__).resolve().parents[2]
MANIFESTS = ROOT / "tests" / "fixtures" / "manifests"
KNOWN_PLUGINS = (
    "best-fit-score, binpack, capacity, conformance, dot-product-score, drf, fgd-score, gang, "
    "gpu-clustering-score, gpu-packing-score, gpu-share, huawei-npu, name-tie-break, network-topology-aware, "
    "nodeorder, "
    "overcommit, predicates, priority, proportion, random-score"
)
OBSOLETE = Code.OBSOLETE_KEY
SKIPPED = Code.UNSUPPORTED_SKIPPED
SKIP = "--skip-unsupported (FUMAROLE_SKIP_UNSUPPORTED=true) skips it"


def lacking(kind: str, name: str, releases: str, yet: str = "") -> str:
    """How fumarole describes a Volcano plugin or action it does not implement."""
    return f"a Volcano {kind} ({releases}) that fumarole does not implement{yet}"


def warnings(conf: SchedulerConf) -> list[tuple[Code, str, str]]:
    return [(diagnostic.code, diagnostic.subject, diagnostic.text) for diagnostic in conf.diagnostics]


@pytest.fixture(scope="module")
def registry() -> Registry:
    return Registry()


# ---------------------------------------------------------------------------------------- obsolete keys
def _gpu(key: str, releases: str) -> str:
    return (
        f"predicates argument predicate.{key} is obsolete: read by Volcano {releases}; since v1.9.0 the "
        f"deviceshare plugin reads deviceshare.{key}; ignored"
    )


def _proportional(key: str, replacement: str) -> str:
    return (
        f"predicates argument {key} is obsolete: read by Volcano v1.5.0 to v1.12.x; since v1.13.0 the "
        f"resource-strategy-fit plugin reads proportional.{replacement}; ignored"
    )


CLUSTER_ORDER = (
    "{plugin} flag EnabledClusterOrder is obsolete: read by Volcano v1.5.0 to v1.15.x; v1.16.0 renamed it "
    "enabledClusterOrder; {done}"
)


@pytest.mark.parametrize(
    ("plugin_lines", "expected"),
    [
        pytest.param(
            [
                "  - name: predicates",
                "    arguments:",
                "      predicate.GPUSharingEnable: false",
                "      predicate.GPUNumberEnable: false",
            ],
            [
                (OBSOLETE, "conf.yaml:6", _gpu("GPUSharingEnable", "v1.5.0 to v1.8.x")),
                (OBSOLETE, "conf.yaml:7", _gpu("GPUNumberEnable", "v1.7.0 to v1.8.x")),
            ],
            id="gpu-keys-of-the-ascend-confs",
        ),
        pytest.param(
            [
                "  - name: predicates",
                "    arguments:",
                "      predicate.NodeLockEnable: maybe",  # ignored whatever its value, as Volcano does
                "      predicate.VGPUEnable: true",
            ],
            [
                (OBSOLETE, "conf.yaml:6", _gpu("NodeLockEnable", "v1.8.x only")),
                (OBSOLETE, "conf.yaml:7", _gpu("VGPUEnable", "v1.8.x only")),
            ],
            id="v1.8-gpu-keys-whatever-their-value",
        ),
        pytest.param(
            [
                "  - name: predicates",
                "    arguments:",
                "      predicate.ProportionalEnable: true",
                "      predicate.resources: nvidia.com/gpu",
                "      predicate.resources.nvidia.com/gpu.cpu: 4",
                "      predicate.resources.nvidia.com/gpu.memory: 8",
            ],
            [
                (OBSOLETE, "conf.yaml:6", _proportional("predicate.ProportionalEnable", "enable")),
                (OBSOLETE, "conf.yaml:7", _proportional("predicate.resources", "resources")),
                (
                    OBSOLETE,
                    "conf.yaml:8",
                    _proportional(
                        "predicate.resources.nvidia.com/gpu.cpu", "resourceProportion.nvidia.com/gpu.cpu"
                    ),
                ),
                (
                    OBSOLETE,
                    "conf.yaml:9",
                    _proportional(
                        "predicate.resources.nvidia.com/gpu.memory",
                        "resourceProportion.nvidia.com/gpu.memory",
                    ),
                ),
            ],
            id="proportional-family",
        ),
        pytest.param(
            ["  - name: predicates", "    arguments: {predicate.DynamicResourceAllocationEnable: true}"],
            [
                (
                    OBSOLETE,
                    "conf.yaml:5",
                    "predicates argument predicate.DynamicResourceAllocationEnable is obsolete: read by "
                    "Volcano v1.12.0 to v1.14.x; since v1.15.0 Kubernetes' DynamicResourceAllocation "
                    "feature gate decides; ignored",
                ),
            ],
            id="dra-key",
        ),
        pytest.param(
            [
                "  - name: nodeorder",
                "    arguments:",
                "      selectorspread.weight: 1",
                "      imagelocality.weight: 2",
            ],
            [
                (
                    OBSOLETE,
                    "conf.yaml:6",
                    "nodeorder argument selectorspread.weight is obsolete: read by Volcano v1.7.0 to "
                    "v1.8.x; v1.9.0 dropped it with Kubernetes' SelectorSpread score "
                    "(podtopologyspread.weight weighs spreading); ignored",
                ),
            ],
            id="nodeorder-selectorspread",
        ),
        pytest.param(
            ["  - name: drf", "    enableNamespaceOrder: true"],
            [
                (
                    OBSOLETE,
                    "conf.yaml:5",
                    "drf flag enableNamespaceOrder is obsolete: read by Volcano v1.5.0 to v1.7.x; "
                    "v1.8.0 removed it with drf's namespace fair share (queues share the cluster instead); "
                    "ignored",
                ),
            ],
            id="namespace-order-flag",
        ),
        pytest.param(
            ["  - name: gang", "    EnabledClusterOrder: true"],
            [
                (
                    OBSOLETE,
                    "conf.yaml:5",
                    CLUSTER_ORDER.format(plugin="gang", done="read as enabledClusterOrder"),
                )
            ],
            id="cluster-order-flag-renamed",
        ),
        pytest.param(
            ["  - name: gang", "    EnabledClusterOrder: true", "    enabledClusterOrder: false"],
            [
                (
                    OBSOLETE,
                    "conf.yaml:5",
                    CLUSTER_ORDER.format(plugin="gang", done="ignored: enabledClusterOrder is given too"),
                )
            ],
            id="cluster-order-flag-both-spellings",
        ),
        pytest.param(
            [
                "  - name: predicates",
                "    arguments: {predicate.CacheEnable: true, predicate.NodePortsEnable: false}",
            ],
            [],
            id="current-keys-no-warning",
        ),
    ],
)
def test_obsolete_keys_load_with_a_warning(
    registry: Registry, plugin_lines: list[str], expected: list[tuple[Code, str, str]]
) -> None:
    text = 'actions: "enqueue, allocate"\ntiers:\n- plugins:\n' + "".join(
        f"{line}\n" for line in plugin_lines
    )
    conf = parse_conf(text, "conf.yaml", registry)
    assert warnings(conf) == expected


@pytest.mark.parametrize(
    ("entry", "expected"),
    [
        pytest.param(["EnabledClusterOrder: true"], True, id="old-spelling-read"),
        pytest.param(["EnabledClusterOrder: false"], False, id="old-spelling-false"),
        pytest.param(
            ["EnabledClusterOrder: true", "enabledClusterOrder: false"], False, id="new-spelling-wins"
        ),
        pytest.param(
            ["EnabledClusterOrder: true", "enabled_cluster_order: false"], False, id="python-spelling-wins"
        ),
        pytest.param(["enableNamespaceOrder: true"], False, id="namespace-order-dropped"),
        pytest.param(["flags: {EnabledClusterOrder: true}"], True, id="under-flags"),
    ],
)
def test_obsolete_flags_are_dropped_or_read_under_their_new_name(
    registry: Registry, entry: list[str], expected: bool
) -> None:
    lines = "".join(f"    {line}\n" for line in entry)
    conf = parse_conf(
        f'actions: "allocate"\ntiers:\n- plugins:\n  - name: gang\n{lines}', "conf.yaml", registry
    )
    gang = conf.tiers[0].plugins[0]
    assert gang.is_enabled(flags.CLUSTER_ORDER) is expected
    assert set(gang.flags) <= {flag.key for flag in flags.FLAGS}
    assert "EnabledClusterOrder" not in conf.to_text() and "enableNamespaceOrder" not in conf.to_text()
    assert [d.subject for d in conf.diagnostics] == ["conf.yaml:5"]
    shadowed = len(entry) > 1  # the flag is given in its current spelling too
    assert ("is given too" in conf.diagnostics.to_json()[0]["text"]) is shadowed


def test_an_obsolete_key_still_beside_an_unknown_one_is_reported_alone(registry: Registry) -> None:
    text = (
        'actions: "allocate"\ntiers:\n- plugins:\n  - name: predicates\n    arguments:\n'
        "      predicate.GPUSharingEnable: true\n      predicate.GPUSharingEnabled: true\n"
    )
    with pytest.raises(ConfError) as info:
        parse_conf(text, "conf.yaml", registry)
    assert info.value.problems == [
        "conf.yaml:7: tiers[0].plugins[0].arguments.predicate.GPUSharingEnabled: unknown key"
    ]


# ---------------------------------------------------------------------------------------- own history
RENAMED = (
    "tuned argument old.weight is obsolete: read by Volcano tuned 1.x; tuned 2.0 renamed it tuned.weight"
)


class _TunedArguments(PluginArguments):
    """A third party's arguments: ``old.weight`` was renamed ``tuned.weight``; ``legacy`` is gone."""

    obsolete_keys: ClassVar[tuple[ObsoleteKey, ...]] = (
        ObsoleteKey(
            "old.weight", "tuned 1.x", "tuned 2.0 renamed it tuned.weight", renamed_to="tuned.weight"
        ),
        ObsoleteKey("legacy.<name>", "tuned 1.x", "tuned 2.0 dropped it"),
    )
    weight: StrictInt = Field(1, alias="tuned.weight")


class _Tuned:
    name = "tuned"
    arguments_model = _TunedArguments

    def __init__(self, arguments: _TunedArguments) -> None:
        self.arguments = arguments

    def on_session_open(self, ssn: Session) -> None:
        return None

    def on_session_close(self, ssn: Session) -> None:
        return None


class _ActionArguments(BaseModel):
    model_config = ConfigDict(extra="forbid")
    obsolete_keys: ClassVar[tuple[ObsoleteKey, ...]] = (ObsoleteKey("speed", "v0.1", "v0.2 dropped it"),)
    depth: StrictInt = 1


class _Action:
    name = "walk"
    arguments_model = _ActionArguments

    def execute(self, ssn: Session) -> None:
        return None


@pytest.fixture
def tuned() -> Registry:
    registry = Registry(entry_points=False)
    registry.register_plugin("tuned", _Tuned)
    registry.register_action("walk", _Action)
    return registry


@pytest.mark.parametrize(
    ("arguments", "read", "texts"),
    [
        pytest.param(
            "{old.weight: 3}",
            {"tuned.weight": 3},
            [f"{RENAMED}; read as tuned.weight"],
            id="renamed-key-read-under-its-new-name",
        ),
        pytest.param(
            "{old.weight: 3, tuned.weight: 5}",
            {"tuned.weight": 5},
            [f"{RENAMED}; ignored: tuned.weight is given too"],
            id="new-spelling-wins",
        ),
        pytest.param(
            "{legacy.gpu: on, legacy.cpu: 2}",
            {},
            [
                "tuned argument legacy.gpu is obsolete: read by Volcano tuned 1.x; tuned 2.0 dropped it; "
                "ignored",
                "tuned argument legacy.cpu is obsolete: read by Volcano tuned 1.x; tuned 2.0 dropped it; "
                "ignored",
            ],
            id="a-family",
        ),
    ],
)
def test_a_plugin_declares_its_own_obsolete_keys(
    tuned: Registry, arguments: str, read: dict[str, Any], texts: list[str]
) -> None:
    text = f'actions: "walk"\ntiers:\n- plugins:\n  - name: tuned\n    arguments: {arguments}\n'
    conf = parse_conf(text, "conf.yaml", tuned)
    assert [d.text for d in conf.diagnostics] == texts
    assert {d.subject for d in conf.diagnostics} == {"conf.yaml:5"}
    assert conf.tiers[0].plugins[0].arguments == read  # the conf as the plugin reads it
    built = tuned.load_plugin("tuned", conf.tiers[0].plugins[0].arguments)
    assert built.arguments == _TunedArguments(weight=read.get("tuned.weight", 1))
    # a conf built in code gets the same reading, without the warnings
    assert validate_arguments(_TunedArguments, {"old.weight": 7, "legacy.x": 1}) == _TunedArguments(weight=7)


def test_an_action_declares_its_own_obsolete_keys(tuned: Registry) -> None:
    text = 'actions: "walk"\nconfigurations:\n- name: walk\n  arguments:\n    depth: 2\n    speed: 9\n'
    conf = parse_conf(text, "conf.yaml", tuned)
    assert conf.configuration("walk") == {"depth": 2}
    assert warnings(conf) == [
        (
            OBSOLETE,
            "conf.yaml:6",
            "walk argument speed is obsolete: read by Volcano v0.1; v0.2 dropped it; ignored",
        )
    ]


# ---------------------------------------------------------------------------------------- unsupported names
UNSUPPORTED = """\
actions: "enqueue, allocate, shuffle, reserve, elect"
tiers:
- plugins:
  - name: gang
  - name: sla
- plugins:
  - name: deviceshare
    arguments: {deviceshare.GPUSharingEnable: true}
  - name: capacity-card
  - name: reservation
  - name: drf
"""


ENTRIES = [  # (line, where, kind, name, releases, yet) of UNSUPPORTED's entries fumarole lacks
    (1, "actions", "action", "shuffle", "since v1.6.0", ""),
    (1, "actions", "action", "reserve", "in v1.5.0 only", ""),
    (1, "actions", "action", "elect", "in v1.5.0 only", ""),
    (5, "tiers[0].plugins[1].name", "plugin", "sla", "since v1.5.0", ""),
    (7, "tiers[1].plugins[0].name", "plugin", "deviceshare", "since v1.9.0", ""),
    (9, "tiers[1].plugins[1].name", "plugin", "capacity-card",
     "proposed in volcano-sh/volcano PR #4706, in no release yet", ""),
    (10, "tiers[1].plugins[2].name", "plugin", "reservation", "in v1.5.0 only", ""),
]  # fmt: skip


def test_volcano_plugins_and_actions_fumarole_lacks_are_named_with_their_lines(registry: Registry) -> None:
    with pytest.raises(ConfError) as info:
        parse_conf(UNSUPPORTED, "conf.yaml", registry)
    assert info.value.problems == [
        f"conf.yaml:{line}: {where}: '{name}' is {lacking(kind, name, releases, yet)}; {SKIP}"
        for line, where, kind, name, releases, yet in ENTRIES
    ]


def test_skip_unsupported_leaves_them_out_with_a_warning(registry: Registry) -> None:
    conf = parse_conf(UNSUPPORTED, "conf.yaml", registry, skip_unsupported=True)
    assert conf.action_names == ["enqueue", "allocate"]
    assert [[plugin.name for plugin in tier.plugins] for tier in conf.tiers] == [["gang"], ["drf"]]
    assert warnings(conf) == [
        (
            SKIPPED,
            f"conf.yaml:{line}",
            f"{kind} '{name}' skipped (--skip-unsupported): {lacking(kind, name, releases, yet)}",
        )
        for line, _, kind, name, releases, yet in ENTRIES
    ]


@pytest.mark.parametrize(
    ("text", "problems"),
    [
        pytest.param(
            'actions: "shuffle, elect"\ntiers:\n- plugins:\n  - name: gang\n',
            [
                "conf.yaml:1: actions: no action left to run: --skip-unsupported skipped every one "
                "(shuffle, elect)"
            ],
            id="every-action-skipped",
        ),
        pytest.param(
            'actions: "allocate"\ntiers:\n- plugins:\n  - name: sla\n  - name: gnag\n',
            [f"conf.yaml:5: tiers[0].plugins[1].name: unknown plugin 'gnag' (known: {KNOWN_PLUGINS})"],
            id="other-problems-remain",
        ),
        pytest.param(
            'actions: "allocate"\ntiers:\n- plugins:\n  - name: Gang\n',
            [
                f"conf.yaml:4: tiers[0].plugins[0].name: unknown plugin 'Gang' (known: {KNOWN_PLUGINS}); "
                "did you mean 'gang'? Names are case-sensitive: Volcano skips it too, with an error log",
            ],
            id="plugin-names-in-another-case-are-not-skipped",
        ),
    ],
)
def test_what_skip_unsupported_does_not_skip(registry: Registry, text: str, problems: list[str]) -> None:
    with pytest.raises(ConfError) as info:
        parse_conf(text, "conf.yaml", registry, skip_unsupported=True)
    assert info.value.problems == problems


def test_a_name_an_installed_extension_provides_is_supported() -> None:
    registry = Registry(entry_points=False)
    registry.register_plugin(
        "sla", type("_Sla", (_Tuned,), {"name": "sla", "arguments_model": PluginArguments})
    )
    registry.register_action("shuffle", _Action)
    conf = parse_conf('actions: "shuffle"\ntiers:\n- plugins:\n  - name: sla\n', "conf.yaml", registry)
    assert (conf.action_names, list(conf.diagnostics)) == (["shuffle"], [])


def test_every_volcano_name_is_listed_once_with_its_releases() -> None:
    assert set(PLUGINS) == {
        "priority", "gang", "conformance", "drf", "predicates", "nodeorder", "binpack", "proportion",
        "overcommit", "sla", "task-topology", "numa-aware", "tdm", "reservation", "rescheduling", "usage",
        "extender", "resourcequota", "cdp", "deviceshare", "pdb", "nodegroup", "capacity",
        "network-topology-aware", "resource-strategy-fit", "capacity-card",
    }  # fmt: skip
    assert set(ACTIONS) == {
        "enqueue", "allocate", "backfill", "preempt", "reclaim", "elect", "reserve", "shuffle", "gangpreempt",
        "gangreclaim",
    }  # fmt: skip
    assert [name for name, entry in ACTIONS.items() if entry.planned] == []
    assert all(entry.name == name and entry.releases for name, entry in {**PLUGINS, **ACTIONS}.items())


def test_fumarole_skip_unsupported_is_a_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    assert Settings().skip_unsupported is False
    monkeypatch.setenv("FUMAROLE_SKIP_UNSUPPORTED", "true")
    assert Settings().skip_unsupported is True


# ---------------------------------------------------------------------------------------- YAML nulls
@pytest.mark.parametrize(
    ("text", "tiers"),
    [
        pytest.param('actions: "allocate"\ntiers:\n', [], id="tiers"),
        pytest.param(
            'actions: "allocate"\ntiers:\n- plugins:\n- plugins:\n  - name: gang\n',
            [[], ["gang"]],
            id="plugins",
        ),
        pytest.param(
            'actions: "allocate"\ntiers:\n- plugins:\n  - name: gang\n    arguments:\n',
            [["gang"]],
            id="arguments",
        ),
        pytest.param('actions: "allocate"\nconfigurations:\nmetrics:\n', [], id="configurations-and-metrics"),
        pytest.param(
            'actions: "allocate"\nconfigurations:\n- name: allocate\n  arguments:\n',
            [],
            id="configuration-arguments",
        ),
        pytest.param(
            'actions: "allocate"\ntiers:\n- plugins:\n  - name: gang\n    enableJobReady:\n',
            [["gang"]],
            id="flag",
        ),
    ],
)
def test_yaml_nulls_are_empty_as_in_yaml_v2(registry: Registry, text: str, tiers: list[list[str]]) -> None:
    conf = parse_conf(text, "conf.yaml", registry, apply_defaults=False)
    assert [[plugin.name for plugin in tier.plugins] for tier in conf.tiers] == tiers
    assert all(not plugin.flags and not plugin.arguments for tier in conf.tiers for plugin in tier.plugins)
    assert all(not configuration.arguments for configuration in conf.configurations) and not conf.metrics


def test_a_null_actions_is_no_action(registry: Registry) -> None:
    with pytest.raises(ConfError) as info:
        parse_conf("actions:\ntiers:\n", "conf.yaml", registry)
    assert info.value.problems == ["conf.yaml:1: actions: no action is configured"]


# ---------------------------------------------------------------------------------------- which document
SCHEDULER_CONFIGMAP = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: {name}
  namespace: volcano-system
data:
  volcano-scheduler.conf: |
    actions: "enqueue, allocate"
    tiers:
    - plugins:
      - name: gang
      - name: predicates
        arguments: {{predicate.GPUSharingEnable: false}}
"""
CONTROLLER_CONFIGMAP = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: volcano-controller-configmap, namespace: volcano-system}
data:
  volcano-controller.conf: |
    actions: "not a scheduler conf"
"""
NAMESPACE = "apiVersion: v1\nkind: Namespace\nmetadata: {name: volcano-system}\n"


def test_an_installer_yields_its_scheduler_configmap(registry: Registry) -> None:
    text = "\n".join(
        [
            "---",
            NAMESPACE,
            "---",
            CONTROLLER_CONFIGMAP,
            "---",
            SCHEDULER_CONFIGMAP.format(name="volcano-scheduler-configmap"),
            "---",
        ]
    )
    conf = parse_conf(text, "installer.yaml", registry)
    assert conf.action_names == ["enqueue", "allocate"]
    assert warnings(conf) == [(OBSOLETE, "installer.yaml:27", _gpu("GPUSharingEnable", "v1.5.0 to v1.8.x"))]
    assert text.splitlines()[26].strip() == "arguments: {predicate.GPUSharingEnable: false}"


def test_an_installers_problems_are_numbered_in_the_installer(registry: Registry) -> None:
    configmap = SCHEDULER_CONFIGMAP.format(name="vc-scheduler-configmap").replace("name: gang", "name: gnag")
    text = f"{NAMESPACE}---\n{configmap}"
    with pytest.raises(ConfError) as info:
        parse_conf(text, "installer.yaml", registry)
    assert info.value.problems == [
        f"installer.yaml:15: tiers[0].plugins[0].name: unknown plugin 'gnag' (known: {KNOWN_PLUGINS})"
    ]
    assert text.splitlines()[14].strip() == "- name: gnag"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param(
            f"{NAMESPACE}---\n{CONTROLLER_CONFIGMAP}",
            "installer.yaml: 2 YAML documents (ConfigMap, Namespace) and none is a ConfigMap named "
            "*scheduler-configmap (a conf file holds one conf; an installer, the scheduler's ConfigMap)",
            id="no-scheduler-configmap",
        ),
        pytest.param(
            SCHEDULER_CONFIGMAP.format(name="a-scheduler-configmap")
            + "---\n"
            + SCHEDULER_CONFIGMAP.format(name="b-scheduler-configmap"),
            "installer.yaml: 2 ConfigMaps named *scheduler-configmap: a-scheduler-configmap (line 1), "
            "b-scheduler-configmap (line 15); give one alone",
            id="two-scheduler-configmaps",
        ),
        pytest.param(
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata:\n  a.conf: 'actions: allocate'\n"
            "  b.conf: 'actions: enqueue'\n",
            "installer.yaml:4: data: ConfigMap has no volcano-scheduler.conf key and several ending in "
            ".conf: a.conf, b.conf",
            id="configmap-with-two-confs",
        ),
        pytest.param(
            "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec: {}\n",
            "installer.yaml:2: kind: a Pod web (v1), not a Volcano scheduler conf (nor a ConfigMap "
            "holding one)",
            id="another-object",
        ),
    ],
)
def test_files_that_hold_no_conf(registry: Registry, text: str, message: str) -> None:
    with pytest.raises(ConfError) as info:
        parse_conf(text, "installer.yaml", registry)
    assert str(info.value) == message


def test_a_configmaps_volcano_scheduler_conf_key_wins(registry: Registry) -> None:
    text = (
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata:\n  a.conf: 'actions: nonsense'\n"
        "  volcano-scheduler.conf: 'actions: allocate'\n"
    )
    assert parse_conf(text, "c.yaml", registry).action_names == ["allocate"]


def test_a_kube_scheduler_configuration_is_not_a_volcano_conf(registry: Registry) -> None:
    path = MANIFESTS / "fgd-test-scheduler-config.yaml"
    with pytest.raises(ConfError) as info:
        load_conf(path, registry)
    assert str(info.value) == (
        f"{path}:3: kind: a kube-scheduler KubeSchedulerConfiguration, not a Volcano scheduler conf "
        "(a Volcano conf has actions and tiers of plugins)"
    )


# ---------------------------------------------------------------------------------------- the conf's warnings
def test_the_warnings_travel_with_every_copy_of_the_conf(registry: Registry) -> None:
    text = 'actions: "allocate"\ntiers:\n- plugins:\n  - {name: gang, enableNamespaceOrder: true}\n'
    conf = parse_conf(text, "conf.yaml", registry, apply_defaults=False)
    expected = warnings(conf)
    assert len(expected) == 1 and isinstance(conf.diagnostics, Diagnostics)
    copies: list[Any] = [
        conf.with_source("other.yaml"),
        conf.with_defaults(),
        conf.resolved(),
        conf.model_copy(update={"actions": "enqueue"}),
    ]
    assert [warnings(copy) for copy in copies] == [expected] * len(copies)
    assert list(SchedulerConf().diagnostics) == []
    assert conf.with_diagnostics([]) != conf and conf.with_diagnostics(conf.diagnostics) == conf
