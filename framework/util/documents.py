"""The documents of an input text, read fast and exactly as PyYAML's safe loader reads them.

``load_documents(text)`` yields what ``yaml.load_all(text, Loader=SAFE_LOADER)`` yields, document by
document, and raises the same ``yaml.YAMLError`` at the same point; only the way there is faster:

* **JSON.** A text whose first non-blank character is ``{`` or ``[`` is tried with the JSON parser
  (the file's content decides, not its name: a ``.yaml`` file may hold JSON and ``kubectl get -o json``
  output is often saved under any name). JSON is YAML, so the result must be what YAML makes of it:
  a number is read as YAML reads the same plain scalar (``1e5``, with no dot, is the string ``"1e5"``
  to YAML 1.1, ``1.5`` a float), and a text holding what YAML reads otherwise than JSON (a surrogate
  escape, a character YAML does not allow, a Unicode line break, a tab before or after the top
  value) or anything the JSON parser rejects (``NaN``, two documents, a syntax error) is read as YAML,
  whose error message is the one the user gets.
* **YAML** is built from libyaml's event stream (``yaml.CSafeLoader``'s parser) into plain dicts,
  lists and scalars, one document at a time: no node graph is composed, not even of one document,
  so a ``kind: List`` of 50,000 pods costs its objects and nothing more. Plain scalars are resolved by
  the safe loader's own implicit resolvers and constructors (each distinct text once, so equal
  scalars share one object), quoted and block scalars are strings. Anything rarer (an explicit tag,
  a merge key ``<<``, a collection as a key, an alias, a YAML error) makes the rest of the stream be
  read by ``yaml.load_all`` itself from the start of the file, skipping the documents already
  yielded, so the result and the error are PyYAML's by construction. Without libyaml the whole text
  goes through ``yaml.load_all``.

tests/framework/test_documents.py compares both paths with ``yaml.load_all`` on every YAML file of
the repository, on mutations of them and on JSON dumps of them.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Iterator
from typing import Any

import yaml
from yaml.events import (
    AliasEvent,
    DocumentEndEvent,
    DocumentStartEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
    StreamEndEvent,
    StreamStartEvent,
)
from yaml.nodes import ScalarNode

from .input_text import SAFE_LOADER

CParser: Any
try:
    from yaml import _yaml

    CParser = _yaml.CParser
except ImportError:  # pragma: no cover - PyYAML built without libyaml
    CParser = None

_EVENTS = CParser is not None and SAFE_LOADER is getattr(yaml, "CSafeLoader", None)
"""Whether YAML is built from libyaml's events (the safe loader is libyaml's too)."""

_JSON_START = ("{", "[")
_BLANK = re.compile(r"[ \t\r\n]*")

_NOT_JSON_SAFE = re.compile(
    "[^\x09\x0a\x0d\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]"
    r"|\\u[dD][89abAB]"
)
"""What makes a JSON text read otherwise by YAML: a character YAML does not allow (control
characters, ``\\x7f``, a byte-order mark inside the text), a Unicode line break (``\\x85``,
``\\u2028``, ``\\u2029``: YAML folds them), a surrogate escape (YAML rejects it)."""

_STR = "tag:yaml.org,2002:str"
_MERGE = "tag:yaml.org,2002:merge"
_VALUE = "tag:yaml.org,2002:value"


class _Unusual(Exception):
    """The fast reader met something it leaves to ``yaml.load_all``."""


def load_documents(text: str) -> Iterator[Any]:
    """The documents of ``text`` as ``yaml.load_all(text, Loader=SAFE_LOADER)`` gives them."""
    head = _BLANK.match(text).end()  # type: ignore[union-attr]
    if text[head : head + 1] in _JSON_START:
        document = _json_document(text)
        if document is not _NO_DOCUMENT:
            yield document
            return
    if not _EVENTS:
        yield from yaml.load_all(text, Loader=SAFE_LOADER)
        return
    yielded = 0
    try:
        for document in _yaml_documents(text):
            yield document
            yielded += 1
    except (_Unusual, yaml.YAMLError):
        for number, document in enumerate(yaml.load_all(text, Loader=SAFE_LOADER)):
            if number >= yielded:
                yield document


_NO_DOCUMENT = object()


def _json_document(text: str) -> Any:
    """The one document of a JSON text, or ``_NO_DOCUMENT`` when it must be read as YAML."""
    head = _BLANK.match(text).end()  # type: ignore[union-attr]
    if "\t" in text[:head] or "\t" in text[len(text.rstrip(" \t\r\n")) :]:
        return _NO_DOCUMENT
    if text.isascii():
        # The JSON parser rejects the other control characters itself.
        if "\x7f" in text or "\\ud" in text or "\\uD" in text:
            return _NO_DOCUMENT
    elif _NOT_JSON_SAFE.search(text):
        return _NO_DOCUMENT
    try:
        return json.loads(
            text,
            parse_float=_json_number,
            parse_int=_json_number,
            parse_constant=_reject_constant,
        )
    except (ValueError, _Unusual, RecursionError):
        return _NO_DOCUMENT


@functools.lru_cache(maxsize=4096)
def _json_number(text: str) -> Any:
    """A JSON number as YAML reads it (``1e5`` is a string to YAML 1.1)."""
    return plain_scalar(text)


def _reject_constant(name: str) -> Any:
    raise _Unusual(name)


# ---------------------------------------------------------------------------------------- scalars
_CONSTRUCTOR = yaml.constructor.SafeConstructor()


def _resolve(value: str) -> str:
    """The tag the safe loader gives a plain scalar (``Resolver.resolve``)."""
    table: dict[Any, list[tuple[str, re.Pattern[str]]]] = SAFE_LOADER.yaml_implicit_resolvers
    for tag, regexp in table.get(value[0] if value else "", []) + table.get(None, []):
        if regexp.match(value):
            return tag
    return _STR


def plain_scalar(value: str) -> Any:
    """What the safe loader makes of a plain (unquoted) scalar: ``1`` an int, ``true`` a bool, ``~``
    None, ``1e5`` a string; a merge key, ``=`` or an unusual tag is left to PyYAML."""
    tag = _resolve(value)
    if tag == _STR:
        return value
    if tag in (_MERGE, _VALUE):
        raise _Unusual(tag)
    constructors: dict[Any, Callable[..., Any]] = SAFE_LOADER.yaml_constructors
    constructor = constructors.get(tag)
    if constructor is None:
        raise _Unusual(tag)
    return constructor(_CONSTRUCTOR, ScalarNode(tag, value))


# ---------------------------------------------------------------------------------------- YAML
def _yaml_documents(text: str) -> Iterator[Any]:
    """The documents built from libyaml's events; ``_Unusual`` for what is left to PyYAML."""
    if SAFE_LOADER.yaml_path_resolvers:
        raise _Unusual("path resolvers")
    parser = CParser(text)
    get_event = parser.get_event
    cache: dict[str, Any] = {}
    try:
        if type(get_event()) is not StreamStartEvent:
            raise _Unusual("no stream start")
        while True:
            kind = type(get_event())
            if kind is StreamEndEvent:
                return
            if kind is not DocumentStartEvent:
                raise _Unusual("no document start")
            yield _document(get_event, cache)
    finally:
        parser.dispose()


def _document(get_event: Callable[[], Any], cache: dict[str, Any]) -> Any:
    """One document's value, from its first event to its DocumentEndEvent (consumed)."""
    missing = _MISSING
    # The open collections: ``top`` is the innermost (a dict or a list), ``key`` its pending key
    # (``missing`` when the next value is a key); outer ones wait on ``stack``.
    stack: list[tuple[Any, Any]] = []
    top: Any = None
    key: Any = missing
    root: Any = missing
    anchors: dict[str, Any] = {}
    open_anchors: list[str] = []
    """Anchors of collections still open: an alias to one of them is a recursive structure."""
    while True:
        event = get_event()
        kind = type(event)
        if kind is ScalarEvent or kind is AliasEvent:
            if kind is AliasEvent:
                value = anchors.get(event.anchor, missing)
                if value is missing or event.anchor in open_anchors:
                    raise _Unusual("undefined or recursive alias")
            else:
                if event.tag is not None:
                    raise _Unusual("tag")
                value = event.value
                if event.implicit[0]:
                    found = cache.get(value, missing)
                    if found is missing:
                        found = cache[value] = plain_scalar(value)
                    value = found
                if event.anchor is not None:
                    if event.anchor in anchors:
                        raise _Unusual("duplicate anchor")
                    anchors[event.anchor] = value
            if top is None:
                root = value
            elif type(top) is list:
                top.append(value)
            elif key is missing:
                if type(value) is dict or type(value) is list:
                    raise _Unusual("collection as a key")
                key = value
            else:
                top[key] = value
                key = missing
        elif kind is MappingStartEvent or kind is SequenceStartEvent:
            if event.tag is not None:
                raise _Unusual("tag")
            value = {} if kind is MappingStartEvent else []
            if event.anchor is not None:
                if event.anchor in anchors:
                    raise _Unusual("duplicate anchor")
                anchors[event.anchor] = value
                open_anchors.append(event.anchor)
            if top is None:
                root = value
            elif type(top) is list:
                top.append(value)
            elif key is missing:
                raise _Unusual("collection as a key")
            else:
                top[key] = value
            stack.append((top, key))
            top = value
            key = missing
        elif kind is MappingEndEvent or kind is SequenceEndEvent:
            if open_anchors and anchors[open_anchors[-1]] is top:
                open_anchors.pop()
            top, key = stack.pop()
            if top is not None and type(top) is dict:
                key = missing
        elif kind is DocumentEndEvent:
            if root is missing:
                raise _Unusual("empty document")
            return root
        else:
            raise _Unusual(kind.__name__)


_MISSING = object()


__all__ = ["load_documents", "plain_scalar"]
