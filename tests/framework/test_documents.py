"""``load_documents`` reads every text exactly as ``yaml.load_all(text, Loader=SAFE_LOADER)`` does: the
same documents, or the same error (type and message), on every YAML file of the repository, on
mutations of them (hypothesis, derandomized), on their JSON dumps and on a table of the rarer YAML
and JSON forms (anchors, merge keys, tags, timestamps, numbers YAML 1.1 reads as strings, characters
YAML rejects). The fast paths themselves are checked to be taken (no silent fallback on common input).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
import yaml
from fumarole.framework.util import documents
from fumarole.framework.util.documents import load_documents
from fumarole.framework.util.input_text import SAFE_LOADER
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[2]
YAML_FILES = sorted(
    path
    for folder in ("tests/fixtures", "examples", "conf")
    for path in (ROOT / folder).rglob("*.y*ml")
    if path.is_file()
)


def _same(left: Any, right: Any, seen: frozenset[int] = frozenset()) -> bool:
    """Equality that holds for NaN (``.nan`` is a float that equals nothing) and for recursive
    structures (an alias inside its own anchor)."""
    if id(left) in seen:
        return repr(left) == repr(right)
    seen = seen | {id(left)}
    if isinstance(left, float) and isinstance(right, float) and math.isnan(left) and math.isnan(right):
        return True
    if type(left) is not type(right):
        return False
    if isinstance(left, dict):
        return list(left) == list(right) and all(_same(left[key], right[key], seen) for key in left)
    if isinstance(left, list):
        return len(left) == len(right) and all(_same(a, b, seen) for a, b in zip(left, right, strict=True))
    return bool(left == right)


def _outcome(read: Any, text: str) -> tuple[str, Any]:
    try:
        return "ok", list(read(text))
    except yaml.YAMLError as exc:
        return type(exc).__name__, str(exc)


def _check(text: str) -> None:
    fast = _outcome(load_documents, text)
    slow = _outcome(lambda t: yaml.load_all(t, Loader=SAFE_LOADER), text)
    assert fast[0] == slow[0], (fast, slow)
    if fast[0] == "ok":
        assert _same(fast[1], slow[1]), (fast, slow)
    else:
        assert fast[1] == slow[1]


def test_there_are_files_to_compare() -> None:
    assert len(YAML_FILES) > 50


@pytest.mark.parametrize("path", YAML_FILES, ids=lambda path: str(path.relative_to(ROOT)))
def test_every_repository_file_reads_as_pyyaml_reads_it(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    _check(text)
    documents_ = list(yaml.load_all(text, Loader=SAFE_LOADER))
    if len(documents_) == 1 and isinstance(documents_[0], dict | list):
        _check(json.dumps(documents_[0], default=str))
        _check(json.dumps(documents_[0], default=str, indent=2))


@settings(max_examples=300, derandomize=True, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(
    index=st.integers(min_value=0, max_value=10_000),
    cuts=st.lists(
        st.tuples(
            st.integers(0, 10_000),
            st.sampled_from(
                [
                    "",
                    "x",
                    ": ",
                    "- ",
                    "&a ",
                    "*a",
                    "!!",
                    "\t",
                    "\n  ",
                    "{",
                    "]",
                    "'",
                    '"',
                    "<<: *a\n",
                    "\x85",
                    "1e5",
                    "~",
                    "2024-01-01",
                ]
            ),
        ),
        max_size=3,
    ),
)
def test_mutated_files_read_as_pyyaml_reads_them(index: int, cuts: list[tuple[int, str]]) -> None:
    text = YAML_FILES[index % len(YAML_FILES)].read_text(encoding="utf-8")
    for at, inserted in cuts:
        at = at % (len(text) + 1)
        text = text[:at] + inserted + text[at:]
    _check(text)


CASES = [
    pytest.param("", id="empty"),
    pytest.param("---\n---\n", id="empty-documents"),
    pytest.param("a: 1\n---\nb: [1, 2]\n...\n", id="documents"),
    pytest.param("a: &x {b: 1}\nc: *x\nd: &y 3\ne: *y\n", id="anchors-and-aliases"),
    pytest.param("a: &x [1]\nb: &x [2]\nc: *x\n", id="duplicate-anchor"),
    pytest.param("a: *missing\n", id="undefined-alias"),
    pytest.param("a: &x [1, *x]\n", id="recursive-alias"),
    pytest.param("base: &b {x: 1}\nd:\n  <<: *b\n  y: 2\n", id="merge-key"),
    pytest.param("a: !!str 1\nb: !!int '2'\n", id="explicit-tags"),
    pytest.param("a: !custom 1\n", id="unknown-tag"),
    pytest.param("? [1, 2]\n: x\n", id="sequence-as-key"),
    pytest.param("? {a: 1}\n: x\n", id="mapping-as-key"),
    pytest.param("a: =\n= : 1\n", id="value-key"),
    pytest.param(
        "t: 2024-01-02T03:04:05Z\nd: 2024-01-02\nq: '2024-01-02'\nn: ~\nb: yes\no: off\ni: 0x1f\n"
        "s: 1:30\nf: 1.5e+3\ng: 1e5\nh: .inf\nk: .nan\nl: -0\nm: 0o17\nz: 017\n",
        id="implicit-scalars",
    ),
    pytest.param(
        "a: |\n  line\n  two\nb: >\n  folded\n  text\nc: 'it''s'\nd: \"\\t\\u00e9\"\n", id="block-and-quoted"
    ),
    pytest.param("a: 1\na: 2\n", id="duplicate-key"),
    pytest.param("a: [1, 2\n", id="unclosed-flow"),
    pytest.param("a: 1\n b: 2\n", id="bad-indentation"),
    pytest.param("a: 1\n---\nb: [\n", id="error-in-second-document"),
    pytest.param("a: 1\x07\n", id="control-character"),
    pytest.param("%YAML 1.1\n---\na: 1\n", id="directive"),
    pytest.param(
        '{"a": 1, "b": [1, 2.5, 1e5, 1.5e3, 1.5e+3, -0, -1.0, true, false, null, "x\\/y"]}', id="json-numbers"
    ),
    pytest.param('{"a": "\\ud83d\\ude00"}', id="json-surrogate-escape"),
    pytest.param('\t{"a": 1}', id="json-leading-tab"),
    pytest.param('{"a": 1}\n\t', id="json-trailing-tab"),
    pytest.param('{\n\t"a": 1}', id="json-inner-tab"),
    pytest.param('{"a": "\x7f"}', id="json-delete-character"),
    pytest.param('{"a": "x\x85y"}', id="json-next-line"),
    pytest.param('{"a": "x\u2028y"}', id="json-line-separator"),
    pytest.param('{"a": "\ufeffx"}', id="json-byte-order-mark"),
    pytest.param('{"a": NaN}', id="json-nan"),
    pytest.param('{"a": 1,}', id="json-trailing-comma"),
    pytest.param('{"a": 1}\n---\n{"b": 2}\n', id="json-two-documents"),
    pytest.param('{"a": 1} # comment\n', id="json-comment"),
    pytest.param('[{"kind": "Pod"}, 1, "x", []]', id="json-array"),
    pytest.param('{"a": "caf\u00e9", "b": "\\u00e9\\n"}', id="json-non-ascii"),
    pytest.param('{"a": {"b": {"c": [[], {}]}}}', id="json-nested-empty"),
    pytest.param('{"a": 1', id="json-unclosed"),
]


@pytest.mark.parametrize("text", CASES)
def test_rare_forms_read_as_pyyaml_reads_them(text: str) -> None:
    _check(text)


def test_json_is_read_by_the_json_parser(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_yaml(*args: object, **kwargs: object) -> None:
        raise AssertionError("read as YAML")

    monkeypatch.setattr(documents, "_yaml_documents", no_yaml)
    monkeypatch.setattr(documents.yaml, "load_all", no_yaml)
    text = json.dumps({"kind": "List", "items": [{"kind": "Pod", "n": 1.5, "m": 2, "e": "é"}]}, indent=1)
    assert list(load_documents(text)) == [
        {"kind": "List", "items": [{"kind": "Pod", "n": 1.5, "m": 2, "e": "é"}]}
    ]


@pytest.mark.skipif(not documents._EVENTS, reason="PyYAML without libyaml")
def test_common_yaml_is_read_from_events(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_pyyaml(*args: object, **kwargs: object) -> None:
        raise AssertionError("left to yaml.load_all")

    monkeypatch.setattr(documents.yaml, "load_all", no_pyyaml)
    text = (ROOT / "examples" / "cluster.yaml").read_text(encoding="utf-8")
    text += "\n---\na: &x {cpu: '1'}\nb: *x\n"
    assert len(list(load_documents(text))) > 1
