"""Pods that share the parts they repeat: what a pod costs in the cache (issue 13, "Fast loading").

In a cluster most pods are copies of a few templates: the pods of one job, deployment or replica set
have the same containers, requests, tolerations, affinity and node selector, and most of them the
same status (``phase: Running``). Validated one by one, each pod holds its own copy of all of it (a
pod of the generated benchmarks costs about 5 KB as models, its spec half of that). ``SharedPodParts``
validates a raw Pod as ``Pod.model_validate`` does, but keeps the spec (all of it but ``nodeName``) and
the status it validated last time it saw the same raw text, and gives the next pod written the same
way those very objects instead of new ones: the spec copied only when the node differs (a shallow
copy, so its containers, tolerations and affinity stay shared), the status as it is, and the resource
request computed once (``Pod.request`` reads only the shared parts).

The result equals the plain validation, field for field, and so does every error: a part is shared
only when its raw form is the same (``repr``, which tells ``1`` from ``"1"`` and ``True``, keeps the key
order, and is never equal for objects it cannot tell apart), so it validates exactly as the first one
did; anything else (a ``nodeName`` that is not a string, a spec or status that is not a mapping, a
part not seen yet) goes through ``Pod.model_validate`` whole, and only a valid pod is remembered.

Sharing relies on the cache's rule that objects are never changed in place: every writer makes a
changed copy (``model_copy(update=...)``: binding, starting, evicting, admission's defaults), so no
pod can see a change made to another. ``tests/framework/test_pod_parts.py`` checks both.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .objects import Pod, PodSpec, PodStatus, _same_request_inputs

_MISSING = object()
_ABSENT = "-"
"""The key of a part the raw pod does not write (no ``repr`` of a mapping starts with ``-``)."""


class SharedPodParts:
    """Validates raw Pods, sharing the spec and status parts that repeat (see the module docstring).

    ``limit`` bounds each table of remembered parts: when it is full it is emptied, so a stream of
    pods that repeat nothing costs at most ``limit`` remembered parts, and sharing starts again."""

    def __init__(self, limit: int = 4096) -> None:
        self.limit = limit
        self._specs: dict[str, Pod] = {}
        """Spec text without ``nodeName`` -> the first valid pod with it (its spec and request)."""
        self._statuses: dict[str, PodStatus] = {}
        self.shared = 0
        """How many pods were built from remembered parts (for tests and benchmarks)."""

    def validate(self, raw: Mapping[str, Any]) -> Pod:
        """``Pod.model_validate(raw)``, with the spec and status of an earlier pod when they repeat."""
        spec = raw.get("spec", _MISSING)
        status = raw.get("status", _MISSING)
        if spec is _MISSING:
            node_name: object = ""
            spec_key = _ABSENT
        elif isinstance(spec, dict):
            node_name = spec.get("nodeName", "")
            rest = dict(spec)
            rest.pop("nodeName", None)
            spec_key = repr(rest)
        else:
            return Pod.model_validate(raw)
        if status is _MISSING:
            status_key = _ABSENT
        elif isinstance(status, dict):
            status_key = repr(status)
        else:
            return Pod.model_validate(raw)
        first = self._specs.get(spec_key)
        if first is None or not isinstance(node_name, str):
            pod = Pod.model_validate(raw)
            self._remember(spec_key, status_key, pod)
            return pod
        parts: dict[str, PodSpec | PodStatus] = {"spec": _on_node(first.spec, node_name, spec)}
        shared_status = self._statuses.get(status_key)
        if shared_status is not None:
            parts["status"] = shared_status
        pod = Pod.model_validate({**raw, **parts})  # the status validated here when it is new
        if spec_key is _ABSENT or status_key is _ABSENT:  # as written: a default, not a field set
            pod.__pydantic_fields_set__.difference_update(
                name for name, key in (("spec", spec_key), ("status", status_key)) if key is _ABSENT
            )
        if shared_status is None:
            self._remember(spec_key, status_key, pod)
        if _same_request_inputs(first, pod):
            pod.__dict__["_request"] = first.__dict__["_request"]
        self.shared += 1
        return pod

    def _remember(self, spec_key: str, status_key: str, pod: Pod) -> None:
        if spec_key not in self._specs:
            if len(self._specs) >= self.limit:
                self._specs.clear()
            pod.request()  # computed once here, shared by the pods built from this one
            self._specs[spec_key] = pod
        if status_key not in self._statuses:
            if len(self._statuses) >= self.limit:
                self._statuses.clear()
            self._statuses[status_key] = pod.status


def _on_node(spec: PodSpec, node_name: str, raw: object) -> PodSpec:
    """``spec`` itself when the raw spec names the same node the same way (written or not), else a
    shallow copy on ``node_name`` that sets the field only if the raw spec wrote it."""
    written = isinstance(raw, dict) and "nodeName" in raw
    fields = spec.__pydantic_fields_set__
    if spec.node_name == node_name and written == ("node_name" in fields):
        return spec
    twin = spec.model_copy(update={"node_name": node_name})
    if not written:
        twin.__pydantic_fields_set__.discard("node_name")
    return twin
