"""Reading Kubernetes objects from YAML files (``kubectl get -o yaml`` output and hand-written).

A file holds one or more YAML documents; each document is an object or a ``kind: List`` whose
``items`` are objects. Kinds the scheduler reads (``objects.KINDS``) are validated into typed
models; other kinds are counted and ignored. A malformed object is reported with the file, its
kind, namespace/name and the offending field, and nothing of the file is returned.

In a changes file (``--then``), an object whose metadata carries the annotation
``fumarole.io/delete: "true"`` asks for the deletion of that object instead of its creation
(``"false"``, or no annotation: create or replace it); any other value is an error naming the object.
The deletion of an object that does not exist is a warning of the cache (``Code.DELETE_MISSING``).

Every error is one line (``SnapshotError``): a file that is not UTF-8 text or holds binary content
names the line and the byte offset, a YAML error its line, a bad object its kind, namespace/name and
every bad field (``; `` between them). docs/inputs.md lists the input classes and what each gets.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from ..conf import format_validation_error
from ..util.collector import collector_paused
from ..util.documents import load_documents
from ..util.input_text import InputTextError, decode, one_line, short_repr, yaml_problem
from .objects import API_GROUPS, KINDS, KubeObject, Pod
from .pod_parts import SharedPodParts

DELETE_ANNOTATION = "fumarole.io/delete"


DELETE_VALUES = {"true": True, "false": False}
"""The values of the deletion annotation (any case: ``True`` is YAML's ``true`` quoted)."""


class SnapshotError(ValueError):
    """Input that cannot be loaded; the message, one line, names the file, the object and the field."""

    def __init__(self, message: str) -> None:
        super().__init__(one_line(message))


@dataclass
class Document:
    """One validated object and where it came from."""

    obj: KubeObject
    source: str
    delete: bool = False

    @property
    def identity(self) -> tuple[str, str]:
        return self.obj.KIND, self.obj.key


@dataclass
class LoadedFile:
    path: str
    documents: list[Document] = field(default_factory=list)
    ignored: Counter[str] = field(default_factory=Counter)


def describe(raw: Mapping[str, Any]) -> str:
    """``Kind namespace/name`` of a raw object, as far as it can be told."""
    kind = raw.get("kind") or "<no kind>"
    metadata = raw.get("metadata")
    meta: Mapping[str, Any] = metadata if isinstance(metadata, Mapping) else {}
    name = meta.get("name") or "<unnamed>"
    namespace = meta.get("namespace")
    kind, name, namespace = (
        part if isinstance(part, str) or part is None else short_repr(part, 40)
        for part in (kind, name, namespace)
    )
    return f"{kind} {namespace}/{name}" if namespace else f"{kind} {name}"


def _document_objects(document: Any, number: int, path: str) -> tuple[list[Any], bool]:
    """The raw objects of one document: its ``items`` for a ``kind: List`` (or any ``*List`` with
    ``items``), else the document itself; and whether it is a list. A document that is not an object,
    ``items`` that is not a list, an item that is not an object: ``SnapshotError``."""
    if not isinstance(document, Mapping):
        raise SnapshotError(
            f"{path}: document {number}: expected a Kubernetes object, got {type(document).__name__}"
        )
    if document.get("kind") == "List" or (
        "items" in document and isinstance(document.get("kind"), str) and document["kind"].endswith("List")
    ):
        items = document.get("items") or []
        if not isinstance(items, list):
            raise SnapshotError(f"{path}: document {number}: items must be a list")
        for index, item in enumerate(items):
            if not isinstance(item, Mapping):
                raise SnapshotError(f"{path}: document {number}: items[{index}]: expected an object")
        return items, True
    return [document], False


def parse_text(text: str, path: str, *, allow_delete: bool = False) -> LoadedFile:
    """Parse and validate the objects in YAML (or JSON) text; raise SnapshotError on the first bad one.

    The documents are read one at a time (``util.documents``) and each object is validated as soon
    as its document is read, then its raw form is dropped, so a file never costs its whole parse
    tree. The error reported is still the one a whole-file reading would report first: a YAML error
    anywhere in the file, else the first document that is not an object (or list of objects), else
    the first object that is invalid; once one is found, the rest is only read, not validated.
    """
    loaded = LoadedFile(path)
    parts = SharedPodParts()
    structure: SnapshotError | None = None
    invalid: SnapshotError | None = None
    with collector_paused():
        try:
            for number, document in enumerate(load_documents(text), start=1):
                if document is None or structure is not None:
                    continue
                try:
                    objects, is_list = _document_objects(document, number, path)
                except SnapshotError as exc:
                    structure = exc
                    continue
                if invalid is not None:
                    continue
                for index, raw in enumerate(objects):
                    where = (
                        f"{path}: document {number} items[{index}]"
                        if is_list
                        else f"{path}: document {number}"
                    )
                    try:
                        _decode(raw, where, path, loaded, parts, allow_delete=allow_delete)
                    except SnapshotError as exc:
                        invalid = exc
                        break
                    if is_list:
                        objects[index] = None  # the raw item is no longer needed
        except yaml.YAMLError as exc:
            raise SnapshotError(yaml_problem(path, exc, text=text)) from None
    if structure is not None:
        raise structure
    if invalid is not None:
        raise invalid
    return loaded


def _decode(
    raw: Mapping[str, Any],
    where: str,
    path: str,
    loaded: LoadedFile,
    parts: SharedPodParts,
    *,
    allow_delete: bool,
) -> None:
    """Validate one raw object into ``loaded`` (a kind fumarole does not read is counted as ignored);
    pods share the parts they repeat with the file's earlier pods (``pod_parts``)."""
    kind = raw.get("kind")
    if not kind:
        raise SnapshotError(f"{where}: {describe(raw)}: kind: required key is missing")
    if not isinstance(kind, str):
        raise SnapshotError(f"{where}: {describe(raw)}: kind: must be a string (got {short_repr(kind)})")
    model = KINDS.get(kind)
    api_version = raw.get("apiVersion", "")
    if model is None or (api_version and api_version not in API_GROUPS[kind]):
        loaded.ignored[kind] += 1
        return
    if not isinstance(raw.get("metadata"), Mapping):
        raise SnapshotError(f"{path}: {describe(raw)}: metadata: required key is missing")
    try:
        obj = parts.validate(raw) if model is Pod else model.model_validate(dict(raw))
    except ValidationError as exc:
        message = format_validation_error(f"{path}: {describe(raw)}", exc, single_line=True)
        raise SnapshotError(message) from None
    except ValueError as exc:
        raise SnapshotError(f"{path}: {describe(raw)}: {exc}") from None
    delete = _deletion(obj, path)
    if delete and not allow_delete:
        raise SnapshotError(
            f"{path}: {describe(raw)}: metadata.annotations.{DELETE_ANNOTATION}: deletions are only "
            "allowed in changes files (--then)"
        )
    loaded.documents.append(Document(obj, path, delete))


def _deletion(obj: KubeObject, path: str) -> bool:
    """Whether the object asks for its deletion (the annotation ``"true"``); another value is an error."""
    written = obj.metadata.annotations.get(DELETE_ANNOTATION)
    if written is None:
        return False
    delete = DELETE_VALUES.get(written.lower())
    if delete is None:
        raise SnapshotError(
            f"{path}: {obj.KIND} {obj.key}: metadata.annotations.{DELETE_ANNOTATION}: "
            f'must be "true" or "false" (got {short_repr(written)})'
        )
    return delete


def read_file(path: str | Path, *, allow_delete: bool = False) -> LoadedFile:
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise SnapshotError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    try:
        text = decode(data, str(path))
    except InputTextError as exc:
        raise SnapshotError(str(exc)) from None
    return parse_text(text, str(path), allow_delete=allow_delete)


def check_duplicates(files: Iterable[LoadedFile]) -> None:
    """Reject an object defined twice (same kind, namespace and name) across the given files."""
    seen: dict[tuple[str, str], str] = {}
    for loaded in files:
        for document in loaded.documents:
            identity = document.identity
            if identity in seen:
                kind, key = identity
                raise SnapshotError(
                    f"{document.source}: {kind} {key}: duplicate object (already defined in {seen[identity]})"
                )
            seen[identity] = document.source
