"""The pytest plugin: loaded through its pytest11 entry point in a fresh pytest, its fixtures, and a
third party's scenario folder run through the public API; importing fumarole.testing stays light."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from fumarole.testing import Harness, binds, build_node, build_pod, build_pod_group, build_queue

ROOT = Path(__file__).resolve().parents[2]


def test_fumarole_harness_fixture(fumarole_harness: Callable[..., Harness]) -> None:
    objects = [
        build_node("n1", {"cpu": "2", "memory": "4Gi", "pods": "110"}),
        build_queue("default"),
        build_pod_group("ns", "pg"),
        build_pod("ns", "p", group="pg", requests={"cpu": "1"}),
    ]
    harness = fumarole_harness(objects, ROOT / "conf" / "default.yaml")
    assert isinstance(harness, Harness)
    [decisions] = harness.run()
    assert binds(decisions) == {"ns/p": "n1"}


def test_fumarole_logs_fixture(fumarole_logs: list[str]) -> None:
    objects = [build_node("n1", {"cpu": "2", "memory": "4Gi", "pods": "110"}), build_queue("default")]
    Harness(objects, [["gang"]]).run()
    assert fumarole_logs == [
        "opened session-1 with 0 jobs, 1 nodes, 2 queues",
        "closed session-1",
        "cycle 1: 0 binds, 0 evictions, 0 pipelined",
    ]


def test_the_plugin_is_loaded_by_its_entry_point(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_third_party="""
        from pathlib import Path

        import pytest
        from fumarole.testing import build_node, build_pod, build_pod_group, build_queue, binds
        from fumarole.testing.scenarios import load_scenarios, run_and_check

        HERE = Path(__file__).parent


        def test_fixture(fumarole_harness):
            objects = [
                build_node("n1", {"cpu": "2", "memory": "4Gi", "pods": "110"}),
                build_queue("default"),
                build_pod_group("ns", "pg"),
                build_pod("ns", "p", group="pg", requests={"cpu": "1"}),
            ]
            conf = "actions: allocate\\ntiers:\\n- plugins:\\n  - name: gang\\n  - name: predicates\\n"
            [decisions] = fumarole_harness(objects, conf).run()
            assert binds(decisions) == {"ns/p": "n1"}


        @pytest.mark.parametrize(("document", "path"), load_scenarios(HERE / "scenarios"))
        def test_scenario(document, path):
            run_and_check(document, path)
        """
    )
    conf = (ROOT / "conf" / "default.yaml").as_posix()
    (pytester.path / "scenarios").mkdir()
    (pytester.path / "scenarios" / "mine.yaml").write_text(
        f"""
name: binds where it fits
conf_file: {conf}
objects:
- {{apiVersion: v1, kind: Node, metadata: {{name: small}},
   status: {{allocatable: {{cpu: "1", pods: "110"}}}}}}
- {{apiVersion: v1, kind: Node, metadata: {{name: big}},
   status: {{allocatable: {{cpu: "8", pods: "110"}}}}}}
- {{apiVersion: scheduling.volcano.sh/v1beta1, kind: Queue, metadata: {{name: default}}}}
- {{apiVersion: scheduling.volcano.sh/v1beta1, kind: PodGroup, metadata: {{name: pg, namespace: ns}},
   spec: {{minMember: 1}}, status: {{phase: Inqueue}}}}
- {{apiVersion: v1, kind: Pod,
   metadata: {{name: p, namespace: ns, annotations: {{scheduling.k8s.io/group-name: pg}}}},
   spec: {{containers: [{{name: main, resources: {{requests: {{cpu: "4"}}}}}}]}}, status: {{phase: Pending}}}}
expect:
  binds: {{ns/p: big}}
""",
        encoding="utf-8",
    )
    result = pytester.runpytest_subprocess("-v", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["*test_scenario?mine::binds where it fits? PASSED*"])


@pytest.mark.parametrize(
    ("module", "absent"),
    [
        pytest.param("fumarole.testing", "pytest", id="testing-without-pytest"),
        pytest.param("fumarole.testing.plugin", "fumarole.framework", id="plugin-without-framework"),
    ],
)
def test_light_imports(module: str, absent: str, tmp_path: Path) -> None:
    code = f"import sys, {module}; print({absent!r} in sys.modules)"
    # Not from the checkout: ``python -c`` puts the working directory first on sys.path.
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=tmp_path
    )
    assert result.stdout.strip() == "False"


def test_the_public_names_resolve() -> None:
    import fumarole.testing as testing

    for name in testing.__all__:
        assert getattr(testing, name) is not None, name
    assert set(testing.__all__) == set(testing._EXPORTS)
    with pytest.raises(AttributeError):
        _ = testing.nope


def test_the_guide_example_runs(pytester: pytest.Pytester) -> None:
    """docs/plugin-authoring.md, "Testing your plugin": its first example passes as written."""
    guide = (ROOT / "docs" / "plugin-authoring.md").read_text(encoding="utf-8")
    section = guide[guide.index("## Testing your plugin") :]
    example = section[section.index("```python\n") + len("```python\n") :]
    pytester.makepyfile(test_min_ready=example[: example.index("```")])
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=3)
