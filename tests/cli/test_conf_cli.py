"""``fumarole conf validate`` and ``fumarole conf show``, run as a user runs them (a subprocess in a
temporary directory, so messages name the files as given), with the installed plugins and actions
plus the test distribution (tests/fixtures/testplugins: plugins ``firstfit``, ``trace-a`` … and the
``broken`` one whose module cannot be imported)."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from importlib import metadata
from pathlib import Path

import pytest
from fumarole.framework.conf import DEFAULT_CONF_TEXT, ConfError, load_conf
from fumarole.framework.registry import Registry

Run = Callable[..., subprocess.CompletedProcess[str]]
ROOT = Path(__file__).resolve().parents[2]
MANIFESTS = ROOT / "tests" / "fixtures" / "manifests"
TEST_PLUGINS = {"broken", "firstfit", "trace-a", "trace-b", "trace-c"}

# Volcano's PluginOption order (pkg/scheduler/conf/scheduler_conf.go): how `conf show` lists the flags.
FLAG_KEYS = [
    "enableJobOrder",
    "enableHierarchy",
    "enableJobReady",
    "enableJobPipelined",
    "enableTaskOrder",
    "enablePreemptable",
    "enableReclaimable",
    "enablePreemptive",
    "enableQueueOrder",
    "enabledClusterOrder",
    "enablePredicate",
    "enableBestNode",
    "enableNodeOrder",
    "enableTargetJob",
    "enableReservedNodes",
    "enableJobEnqueued",
    "enabledVictim",
    "enableJobStarving",
    "enabledOverused",
    "enabledAllocatable",
    "enabledHyperNodeOrder",
    "enabledSubJobReady",
    "enabledSubJobPipelined",
    "enabledSubJobOrder",
    "enabledHyperNodeGradient",
]
NOT_DEFAULTED = {"enableHierarchy", "enabledClusterOrder"}


def _known(group: str, test_names: set[str]) -> str:
    installed = {ep.name for ep in metadata.entry_points(group=group)}
    return ", ".join(sorted(installed | test_names))


def _with_known_names(line: str) -> str:
    return line.format(
        plugins=_known("fumarole.plugins", TEST_PLUGINS), actions=_known("fumarole.actions", TEST_ACTIONS)
    )


THREE_MISTAKES = """\
actions: "enqueue, allocate, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
    enableJobOrdr: true
- plugins:
  - name: drff
  - name: binpack
    arguments:
      binpack.weight: heavy
"""
THREE_PROBLEMS = [
    "conf.yaml:6: tiers[0].plugins[1].enableJobOrdr: unknown key",
    "conf.yaml:8: tiers[1].plugins[0].name: unknown plugin 'drff' (known: {plugins})",
    "conf.yaml:11: tiers[1].plugins[1].arguments.binpack.weight: "
    "Input should be a valid integer (got 'heavy')",
    "conf.yaml: 3 problems",
]
CONFIGMAP = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: volcano-scheduler-configmap
  namespace: volcano-system
data:
  volcano-scheduler.conf: |
    actions: "enqueue, allocate, backfil"
    tiers:
    - plugins:
      - name: gang
        enablePreemptable: "no"
"""
BROKEN = 'actions: "allocate"\ntiers:\n- plugins:\n  - name: firstfit\n  - name: broken\n'
FILES: dict[str, str | bytes] = {
    "good.yaml": 'actions: "enqueue, allocate"\ntiers:\n- plugins:\n  - name: gang\n  - name: firstfit\n',
    "conf.yaml": THREE_MISTAKES,
    "configmap.yaml": CONFIGMAP,
    "broken.yaml": BROKEN,
    "unclosed.yaml": 'actions: "enqueue, allocate\ntiers:\n- plugins:\n  - name: gang\n',
    "binary.yaml": b'actions: "allocate"\n# caf\xe9\n',
    "empty.yaml": "",
    "list.yaml": "- enqueue\n- allocate\n",
}
TEST_ACTIONS = {"bindfirst", "broken-action", "counting"}


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    for name, content in FILES.items():
        path = tmp_path / name
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)
    (tmp_path / "a-directory").mkdir()
    return tmp_path


# ---------------------------------------------------------------------------------------- validate
@pytest.mark.parametrize(
    ("files", "status", "stdout", "stderr"),
    [
        pytest.param(["good.yaml"], 0, ["good.yaml: ok"], [], id="valid"),
        pytest.param(["conf.yaml"], 1, THREE_PROBLEMS, [], id="three-mistakes-three-lines"),
        pytest.param(
            ["configmap.yaml"],
            1,
            [
                "configmap.yaml:8: actions: unknown action 'backfil' (known: {actions})",
                "configmap.yaml:12: tiers[0].plugins[0].enablePreemptable: Input should be a valid boolean "
                "(got 'no')",
                "configmap.yaml: 2 problems",
            ],
            [],
            id="configmap-lines-of-the-outer-file",
        ),
        pytest.param(
            ["broken.yaml"],
            1,
            [
                "broken.yaml:5: tiers[0].plugins[1].name: fumarole.plugins: entry point 'broken' "
                "(fumarole_testplugins.broken:BrokenPlugin) failed to load: ImportError: "
                "fumarole_testplugins.broken needs the uninstalled package 'frobnicate'",
                "broken.yaml: 1 problem",
            ],
            [],
            id="plugin-that-cannot-be-imported",
        ),
        pytest.param(
            ["unclosed.yaml"],
            1,
            [
                "unclosed.yaml:5: not valid YAML: found unexpected end of stream "
                "(while scanning a quoted scalar at line 1)",
                "unclosed.yaml: 1 problem",
            ],
            [],
            id="not-yaml",
        ),
        pytest.param(
            ["binary.yaml"],
            1,
            ["binary.yaml:2: not UTF-8 text (byte 0xe9 at offset 25)", "binary.yaml: 1 problem"],
            [],
            id="not-text",
        ),
        pytest.param(
            ["empty.yaml"], 1, ["empty.yaml: the conf is empty", "empty.yaml: 1 problem"], [], id="empty"
        ),
        pytest.param(
            ["list.yaml"],
            1,
            ["list.yaml: the conf must be a mapping with actions and tiers", "list.yaml: 1 problem"],
            [],
            id="not-a-mapping",
        ),
        pytest.param(
            ["missing.yaml"],
            2,
            [],
            ["fumarole: missing.yaml: cannot read the conf: No such file or directory"],
            id="missing-file",
        ),
        pytest.param(
            ["a-directory"],
            2,
            [],
            ["fumarole: a-directory: cannot read the conf: Is a directory"],
            id="directory",
        ),
        pytest.param(
            ["good.yaml", "conf.yaml", "good.yaml"],
            1,
            ["good.yaml: ok", *THREE_PROBLEMS, "good.yaml: ok"],
            [],
            id="several-files-one-invalid",
        ),
        pytest.param(
            ["missing.yaml", "good.yaml", "empty.yaml"],
            2,
            ["good.yaml: ok", "empty.yaml: the conf is empty", "empty.yaml: 1 problem"],
            ["fumarole: missing.yaml: cannot read the conf: No such file or directory"],
            id="several-files-one-unreadable",
        ),
    ],
)
def test_validate(
    fumarole: Run, workdir: Path, files: list[str], status: int, stdout: list[str], stderr: list[str]
) -> None:
    result = fumarole("conf", "validate", *files, cwd=workdir)
    expected = [_with_known_names(line) for line in stdout]
    assert (result.returncode, result.stdout.splitlines(), result.stderr.splitlines()) == (
        status,
        expected,
        stderr,
    )


def test_every_shipped_conf_is_valid(fumarole: Run) -> None:
    confs = sorted(str(path.relative_to(ROOT)) for path in (ROOT / "conf").glob("*.yaml"))
    result = fumarole("conf", "validate", *confs, cwd=ROOT, paths=())
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout.splitlines() == [f"{conf}: ok" for conf in confs]


GANG_EVICTION_CONFS = {
    "capacity-tier-2.yaml": 'actions: "enqueue, allocate, gangpreempt"\ntiers:\n'
    "- plugins:\n  - name: priority\n  - name: gang\n- plugins:\n  - name: capacity\n",
    "gang-and-preempt.yaml": 'actions: "enqueue, allocate, gangpreempt, preempt"\ntiers:\n'
    "- plugins:\n  - name: gang\n",
}


def test_validate_gang_eviction_confs(fumarole: Run, tmp_path: Path) -> None:
    """The seed's spelling (``gangPreempt``, Volcano's design doc verbatim) is valid; capacity below the
    first tier is a warning (the output of validate, not stderr); gangpreempt with preempt a problem."""
    (tmp_path / "seed.yaml").write_bytes((MANIFESTS / "scheduler-config-gangpreempt.yaml").read_bytes())
    for name, text in GANG_EVICTION_CONFS.items():
        (tmp_path / name).write_text(text)
    result = fumarole("conf", "validate", "seed.yaml", *GANG_EVICTION_CONFS, cwd=tmp_path, paths=())
    assert (result.returncode, result.stderr) == (1, "")
    assert result.stdout.splitlines() == [
        "seed.yaml: ok",
        "capacity-tier-2.yaml:7: warning: capacity is in tier 2: with gangpreempt its victim filter "
        "(unified_evictable: only pods of queues above their deserved share) is never asked, because the "
        "first tier decides (Volcano #5929); move capacity into the first tier [ineffective-plugin]",
        "capacity-tier-2.yaml: ok, 1 warning",
        "gang-and-preempt.yaml:1: actions: gangpreempt cannot be combined with preempt: the gang-aware "
        "actions replace the pod-by-pod ones (seed 002); listed together, preempt and reclaim would evict "
        "pods one by one from the gangs gangpreempt and gangreclaim keep whole. List one kind.",
        "gang-and-preempt.yaml: 1 problem",
    ]


# ---------------------------------------------------------------------------------------- show
SMALL = """\
# a comment, dropped
actions: enqueue,allocate
tiers:
- plugins:
  - name: gang
    enablePreemptable: false
    enableHierarchy: true
- plugins:
  - name: binpack
    arguments: {binpack.weight: 10, binpack.resources: "nvidia.com/gpu", binpack.resources.nvidia.com/gpu: 5}
configurations:
- name: allocate
  arguments: {predicateErrorCacheEnable: "false"}
"""


def _resolved_flags(indent: str, **written: bool) -> list[str]:
    return [f"{indent}{key}: {str(written.get(key, key not in NOT_DEFAULTED)).lower()}" for key in FLAG_KEYS]


SMALL_SHOWN = [
    "# small.yaml, after Volcano's defaulting: every enable flag resolved",
    "# (enableHierarchy and enabledClusterOrder are never defaulted: unset is false)",
    'actions: "enqueue, allocate"',
    "tiers:",
    "- plugins:",
    "  - name: gang",
    *_resolved_flags("    ", enablePreemptable=False, enableHierarchy=True),
    "- plugins:",
    "  - name: binpack",
    *_resolved_flags("    "),
    "    arguments:",
    "      binpack.weight: 10",
    "      binpack.resources: nvidia.com/gpu",
    "      binpack.resources.nvidia.com/gpu: 5",
    "configurations:",
    "- name: allocate",
    "  arguments:",
    "    predicateErrorCacheEnable: 'false'",
]
SMALL_AS_WRITTEN = [
    "# small.yaml, as written",
    "# (a flag left out is defaulted when the conf is loaded)",
    'actions: "enqueue, allocate"',
    "tiers:",
    "- plugins:",
    "  - name: gang",
    "    enableHierarchy: true",
    "    enablePreemptable: false",
    "- plugins:",
    "  - name: binpack",
    *SMALL_SHOWN[-8:],
]
DEFAULT_AS_WRITTEN = [
    "# Volcano's default conf, as written",
    "# (a flag left out is defaulted when the conf is loaded)",
    *DEFAULT_CONF_TEXT.splitlines(),
]


@pytest.mark.parametrize(
    ("args", "env", "stdout"),
    [
        pytest.param(["small.yaml"], {}, SMALL_SHOWN, id="every-flag-resolved"),
        pytest.param(["small.yaml", "--no-defaults"], {}, SMALL_AS_WRITTEN, id="as-written"),
        pytest.param(["--no-defaults"], {}, DEFAULT_AS_WRITTEN, id="without-a-file-volcanos-default"),
        pytest.param(
            ["--no-defaults"],
            {"FUMAROLE_CONF": "small.yaml"},
            SMALL_AS_WRITTEN,
            id="without-a-file-the-environments",
        ),
    ],
)
def test_show(fumarole: Run, tmp_path: Path, args: list[str], env: dict[str, str], stdout: list[str]) -> None:
    (tmp_path / "small.yaml").write_text(SMALL)
    result = fumarole("conf", "show", *args, cwd=tmp_path, env=env)
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout.splitlines() == stdout


def test_show_without_a_file_resolves_volcanos_default_conf(fumarole: Run, tmp_path: Path) -> None:
    result = fumarole("conf", "show", cwd=tmp_path)
    plugins = [
        ["priority", "gang", "conformance"],
        ["overcommit", "drf", "predicates", "proportion", "nodeorder"],
    ]
    expected = [
        "# Volcano's default conf, after Volcano's defaulting: every enable flag resolved",
        "# (enableHierarchy and enabledClusterOrder are never defaulted: unset is false)",
        'actions: "enqueue, allocate, backfill"',
        "tiers:",
    ]
    for tier in plugins:
        expected.append("- plugins:")
        for name in tier:
            expected += [f"  - name: {name}", *_resolved_flags("    ")]
    assert (result.returncode, result.stderr, result.stdout.splitlines()) == (0, "", expected)


@pytest.mark.parametrize(
    ("args", "stderr"),
    [
        pytest.param(
            ["missing.yaml"],
            "fumarole: missing.yaml: cannot read the conf: No such file or directory",
            id="missing",
        ),
        pytest.param(["."], "fumarole: .: cannot read the conf: Is a directory", id="directory"),
        pytest.param(
            ["conf.yaml"],
            "fumarole: " + "\n".join(THREE_PROBLEMS[:-1]),
            id="invalid-conf-every-problem",
        ),
        pytest.param(
            ["unclosed.yaml"],
            "fumarole: unclosed.yaml:2: not valid YAML: found unexpected end of stream "
            "(while scanning a quoted scalar at line 1)",
            id="not-yaml",
        ),
    ],
)
def test_show_bad_input_exits_2(fumarole: Run, tmp_path: Path, args: list[str], stderr: str) -> None:
    (tmp_path / "conf.yaml").write_text(THREE_MISTAKES)
    (tmp_path / "unclosed.yaml").write_text('actions: "allocate\n')
    result = fumarole("conf", "show", *args, cwd=tmp_path)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == _with_known_names(stderr) + "\n"


# ---------------------------------------------------------------------------------------- round trip
def _loadable() -> list[Path]:
    candidates = sorted((ROOT / "conf").glob("*.yaml")) + sorted(MANIFESTS.glob("scheduler-config-*.yaml"))
    loadable = []
    for path in candidates:
        try:
            load_conf(path, Registry())
        except ConfError:
            continue
        loadable.append(path)
    return loadable


def test_the_round_trip_covers_the_shipped_and_reference_confs() -> None:
    names = [path.name for path in _loadable()]
    assert names == [
        "default.yaml",
        "npu-inference-training-baseline.yaml",
        "npu-inference-training-gang.yaml",
        "npu-inference-training.yaml",
        "scheduler-config-benchmark-gang.yaml",  # a ConfigMap
        "scheduler-config-gangpreempt.yaml",  # gangPreempt / gangReclaim, names in another case
    ]


@pytest.mark.parametrize("path", [pytest.param(path, id=path.name) for path in _loadable()])
def test_show_prints_a_conf_that_loads_to_the_same_conf(fumarole: Run, tmp_path: Path, path: Path) -> None:
    shown = fumarole("conf", "show", str(path), paths=())
    as_written = fumarole("conf", "show", str(path), "--no-defaults", paths=())
    assert (shown.returncode, shown.stderr, as_written.returncode, as_written.stderr) == (0, "", 0, "")
    (tmp_path / "shown.yaml").write_text(shown.stdout)
    (tmp_path / "as-written.yaml").write_text(as_written.stdout)
    validated = fumarole("conf", "validate", "shown.yaml", "as-written.yaml", cwd=tmp_path, paths=())
    assert (validated.returncode, validated.stdout) == (0, "shown.yaml: ok\nas-written.yaml: ok\n")

    registry = Registry()
    original = load_conf(path, registry)
    assert load_conf(tmp_path / "shown.yaml", registry).resolved().to_yaml() == original.resolved().to_yaml()
    assert load_conf(tmp_path / "as-written.yaml", registry).to_yaml() == original.to_yaml()
    written = load_conf(tmp_path / "as-written.yaml", registry, apply_defaults=False)
    assert written.to_yaml() == load_conf(path, registry, apply_defaults=False).to_yaml()
    again = fumarole("conf", "show", "shown.yaml", cwd=tmp_path, paths=())
    assert again.stdout.split("\n", 1)[1] == shown.stdout.split("\n", 1)[1]  # the same but for the name


# ---------------------------------------------------------------------------------------- real confs
CORPUS = ROOT / "tests" / "fixtures" / "confs"
GPU_WARNINGS = [
    "{file}:{line}: warning: predicates argument predicate.GPUSharingEnable is obsolete: read by Volcano "
    "v1.5.0 to v1.8.x; since v1.9.0 the deviceshare plugin reads deviceshare.GPUSharingEnable; ignored "
    "[obsolete-key]",
    "{file}:{next}: warning: predicates argument predicate.GPUNumberEnable is obsolete: read by Volcano "
    "v1.7.0 to v1.8.x; since v1.9.0 the deviceshare plugin reads deviceshare.GPUNumberEnable; ignored "
    "[obsolete-key]",
]
SLA = "'sla' is a Volcano plugin (since v1.5.0) that fumarole does not implement"
CI_WARNINGS = [
    "ci.conf:11: warning: plugin 'sla' skipped (--skip-unsupported): a Volcano plugin (since v1.5.0) that "
    "fumarole does not implement [unsupported-skipped]",
    "ci.conf:18: warning: predicates argument predicate.DynamicResourceAllocationEnable is obsolete: read by "
    "Volcano v1.12.0 to v1.14.x; since v1.15.0 Kubernetes' DynamicResourceAllocation feature gate decides; "
    "ignored [obsolete-key]",
    "ci.conf: ok, 2 warnings",
]


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    for name, source in {
        "v1.15.0.yaml": "ascend/volcano-v1.15.0.yaml",
        "installer.yaml": "ascend/installer-v1.15.0-excerpt.yaml",
        "ci.conf": "volcano/volcano-scheduler-ci.conf",
    }.items():
        (tmp_path / name).write_bytes((CORPUS / source).read_bytes())
    return tmp_path


def _gpu_warnings(file: str, line: int) -> list[str]:
    return [warning.format(file=file, line=line, next=line + 1) for warning in GPU_WARNINGS]


@pytest.mark.parametrize(
    ("args", "env", "status", "stdout"),
    [
        pytest.param(
            ["v1.15.0.yaml"],
            {},
            0,
            [*_gpu_warnings("v1.15.0.yaml", 25), "v1.15.0.yaml: ok, 2 warnings"],
            id="ascend",
        ),
        pytest.param(
            ["installer.yaml"],
            {},
            0,
            [*_gpu_warnings("installer.yaml", 288), "installer.yaml: ok, 2 warnings"],
            id="whole-installer",
        ),
        pytest.param(
            ["ci.conf"],
            {},
            1,
            [
                f"ci.conf:11: tiers[0].plugins[3].name: {SLA}; --skip-unsupported "
                "(FUMAROLE_SKIP_UNSUPPORTED=true) skips it",
                "ci.conf: 1 problem",
            ],
            id="volcano-ci-conf",
        ),
        pytest.param(["--skip-unsupported", "ci.conf"], {}, 0, CI_WARNINGS, id="skip-unsupported"),
        pytest.param(
            ["ci.conf"], {"FUMAROLE_SKIP_UNSUPPORTED": "true"}, 0, CI_WARNINGS, id="skip-from-the-env"
        ),
    ],
)
def test_validate_real_confs(
    fumarole: Run, corpus: Path, args: list[str], env: dict[str, str], status: int, stdout: list[str]
) -> None:
    # the warnings are the output: not logged again on standard error
    result = fumarole("conf", "validate", *args, cwd=corpus, env=env, paths=())
    assert (result.returncode, result.stdout.splitlines(), result.stderr) == (status, stdout, "")


def test_show_prints_an_old_conf_as_fumarole_reads_it(fumarole: Run, corpus: Path) -> None:
    shown = fumarole("conf", "show", "--no-defaults", "v1.15.0.yaml", cwd=corpus, paths=())
    assert shown.returncode == 0
    assert "predicate.GPUSharingEnable is obsolete" in shown.stderr  # logged, as schedule logs it
    assert "predicate.GPU" not in shown.stdout and "volcano-npu_v6.0.RC1_linux-x86_64" in shown.stdout
    (corpus / "shown.yaml").write_text(shown.stdout)
    validated = fumarole("conf", "validate", "shown.yaml", cwd=corpus, paths=())
    assert (validated.returncode, validated.stdout) == (0, "shown.yaml: ok\n")
