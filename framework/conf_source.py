"""Which YAML in a file is the scheduler conf: a bare conf, the ConfigMap that wraps it, or the
scheduler's ConfigMap inside a whole installer.

* A bare conf (``actions``, ``tiers`` …) is itself.
* A ConfigMap holds the conf as text under ``data["volcano-scheduler.conf"]``, else under its only
  key ending in ``.conf``.
* A multi-document file (Volcano's ``installer/volcano-development.yaml``, the Ascend plugin's
  ``build/volcano-v1.X.0.yaml``) holds it in the ConfigMap whose ``metadata.name`` ends with
  ``scheduler-configmap`` (helm names it ``<release>-scheduler-configmap``; the installers use
  ``volcano-scheduler-configmap``); the other documents (CRDs, Deployments, the controllers'
  ConfigMap) are not read.
* Any other Kubernetes object is not a conf, and the error says what it is: above all a
  kube-scheduler ``KubeSchedulerConfiguration``, which looks like one.

Lines are always those of the file as written (a conf inside a ConfigMap is numbered in the outer
file). Spec: Volcano's scheduler reads the file its ``--scheduler-conf`` flag names, which the
installers mount from that ConfigMap key (``installer/helm/chart/volcano/templates/scheduler.yaml``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import yaml

from .util.input_text import SAFE_LOADER, yaml_problem
from .util.yaml_lines import YamlLines

CONF_KEY = "volcano-scheduler.conf"
"""The ConfigMap data key the installers use."""

CONFIGMAP_SUFFIX = "scheduler-configmap"
"""How the scheduler's ConfigMap is named in an installer (``volcano-scheduler-configmap``)."""

KUBE_SCHEDULER_CONFIGURATION = "KubeSchedulerConfiguration"


class ConfSourceError(ValueError):
    """The file holds no usable conf; the message names the file and the line."""


@dataclass(frozen=True)
class ConfDocument:
    """The conf's YAML mapping and the lines of its keys in the file."""

    document: Mapping[str, Any]
    lines: YamlLines


def _error(source: str, lines: YamlLines, loc: tuple[object, ...], message: str) -> ConfSourceError:
    line = lines.line(loc) if loc else None
    where = f"{source}:{line}" if line is not None else source
    key = ".".join(str(part) for part in loc)
    return ConfSourceError(f"{where}: {key}: {message}" if key else f"{where}: {message}")


def _describe(document: Mapping[str, Any]) -> str:
    kind, api_version = document.get("kind"), document.get("apiVersion")
    name = document.get("metadata", {}).get("name") if isinstance(document.get("metadata"), Mapping) else None
    described = f"{kind} {name}" if isinstance(name, str) else str(kind)
    return f"{described} ({api_version})" if isinstance(api_version, str) else described


def _is_object(document: Mapping[str, Any]) -> bool:
    return isinstance(document.get("kind"), str) and "actions" not in document and "tiers" not in document


def _not_a_conf(source: str, lines: YamlLines, document: Mapping[str, Any]) -> ConfSourceError:
    if document.get("kind") == KUBE_SCHEDULER_CONFIGURATION:
        what = (
            "a kube-scheduler KubeSchedulerConfiguration, not a Volcano scheduler conf (a Volcano conf "
            "has actions and tiers of plugins)"
        )
    else:
        what = f"a {_describe(document)}, not a Volcano scheduler conf (nor a ConfigMap holding one)"
    return _error(source, lines, ("kind",), what)


def _unwrap_configmap(document: Mapping[str, Any], source: str, text: str, lines: YamlLines) -> ConfDocument:
    """The conf a ConfigMap holds; its lines are counted in the outer file."""
    data = document.get("data")
    if not isinstance(data, Mapping):
        raise _error(source, lines, ("data",), "a ConfigMap's data must be a mapping")
    if CONF_KEY in data:
        key: Any = CONF_KEY
    else:
        keys = [key for key in data if str(key).endswith(".conf")]
        if not keys:
            raise _error(source, lines, ("data",), "ConfigMap has no data key ending in .conf")
        if len(keys) > 1:
            named = ", ".join(str(key) for key in keys)
            message = f"ConfigMap has no {CONF_KEY} key and several ending in .conf: {named}"
            raise _error(source, lines, ("data",), message)
        key = keys[0]
    inner_text = data[key]
    start = lines.value_line(("data", key)) or 1
    try:
        inner = yaml.load(str(inner_text), Loader=SAFE_LOADER)
    except yaml.YAMLError as exc:
        raise ConfSourceError(yaml_problem(source, exc, offset=start - 1, text=str(inner_text))) from exc
    if not isinstance(inner, Mapping):
        raise _error(source, lines, ("data", key), "the embedded conf is not a mapping")
    inner_lines = YamlLines.of(str(inner_text), offset=start - 1) if text else YamlLines(None)
    return ConfDocument(inner, inner_lines)


def _scheduler_configmap(
    documents: list[tuple[Mapping[str, Any], YamlLines]], source: str
) -> tuple[Mapping[str, Any], YamlLines]:
    """The scheduler's ConfigMap among the documents of an installer."""
    found = []
    for document, lines in documents:
        metadata = document.get("metadata")
        name = metadata.get("name") if isinstance(metadata, Mapping) else None
        if document.get("kind") == "ConfigMap" and isinstance(name, str) and name.endswith(CONFIGMAP_SUFFIX):
            found.append((document, lines, name))
    if len(found) == 1:
        document, lines, _ = found[0]
        return document, lines
    if not found:
        kinds = sorted({str(document["kind"]) for document, _ in documents if "kind" in document})
        listed = f" ({', '.join(kinds)})" if kinds else ""
        raise ConfSourceError(
            f"{source}: {len(documents)} YAML documents{listed} and none is a ConfigMap named "
            f"*{CONFIGMAP_SUFFIX} (a conf file holds one conf; an installer, the scheduler's ConfigMap)"
        )
    where = ", ".join(f"{name} (line {lines.line(()) or '?'})" for _, lines, name in found)
    raise ConfSourceError(
        f"{source}: {len(found)} ConfigMaps named *{CONFIGMAP_SUFFIX}: {where}; give one alone"
    )


def read_conf_document(text: str, source: str, *, line_numbers: bool = True) -> ConfDocument:
    """The conf in ``text`` (see the module docstring); ``ConfSourceError`` when there is none.
    ``line_numbers`` false: the text is not what the user wrote, lines are not reported."""
    try:
        documents = list(yaml.load_all(text, Loader=SAFE_LOADER))
    except yaml.YAMLError as exc:
        if line_numbers:
            message = yaml_problem(source, exc, text=text)
        else:
            message = f"{source}: not valid YAML: {' '.join(str(exc).split())}"
        raise ConfSourceError(message) from exc
    if line_numbers:
        nodes: list[yaml.Node | None] = list(yaml.compose_all(text, Loader=SAFE_LOADER))
    else:
        nodes = [None] * len(documents)
    present = [
        (document, YamlLines(node))
        for document, node in zip(documents, nodes, strict=True)
        if document is not None
    ]
    if not present:
        raise ConfSourceError(f"{source}: the conf is empty")
    if len(present) == 1:
        document, lines = present[0]
        if not isinstance(document, Mapping):
            raise ConfSourceError(f"{source}: the conf must be a mapping with actions and tiers")
    else:
        mappings = [(document, lines) for document, lines in present if isinstance(document, Mapping)]
        document, lines = _scheduler_configmap(mappings, source)
    if document.get("kind") == "ConfigMap":
        return _unwrap_configmap(document, source, text if line_numbers else "", lines)
    if _is_object(document):
        raise _not_a_conf(source, lines, document)
    return ConfDocument(document, lines)
