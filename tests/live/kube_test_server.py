"""A test server for ``fumarole run``'s tests — NOT a Kubernetes API server.

No API server can be installed on these machines, so the live loop is tested against this: a
pytest-httpserver (werkzeug, threaded) that answers the few endpoints ``fumarole run`` uses, the way
the API server answers them, from an in-memory set of objects with one resourceVersion counter:

* ``GET <collection>`` lists (``metadata.resourceVersion`` of the list; ``fieldSelector=metadata.name=``
  for ConfigMaps); ``GET <collection>?watch=true&resourceVersion=V`` streams the events after V as JSON
  lines, waiting up to ``watch_wait`` seconds for one, then ends the response (as a watch's timeout);
* ``POST .../pods/NAME/binding`` sets the pod's node (``409`` if it has one, ``404`` if it is gone);
  ``POST .../pods/NAME/eviction`` sets its ``deletionTimestamp``; ``PATCH .../pods/NAME/status`` and
  ``PATCH .../podgroups/NAME/status`` merge the status (a JSON merge patch); each write makes a
  ``MODIFIED`` event;
* injected faults: ``fail(method, path_suffix, status, times)`` answers the next ``times`` such
  requests with ``status``; ``gone(kind)`` answers the next watch of a kind with a ``410 Gone`` ERROR
  event; ``drop(kind)`` breaks the next watch stream of a kind (a line cut in the middle).

``writes`` records every write request (method, path, body) in arrival order, faults included.
"""

from __future__ import annotations

import copy
import json
import re
import threading
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import yaml
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

COLLECTIONS = {
    "Node": "/api/v1/nodes",
    "Pod": "/api/v1/pods",
    "PodGroup": "/apis/scheduling.volcano.sh/v1beta1/podgroups",
    "Queue": "/apis/scheduling.volcano.sh/v1beta1/queues",
    "HyperNode": "/apis/topology.volcano.sh/v1alpha1/hypernodes",
    "PriorityClass": "/apis/scheduling.k8s.io/v1/priorityclasses",
    "ConfigMap": "/api/v1/namespaces/volcano-system/configmaps",
}
BY_PATH = {path: kind for kind, path in COLLECTIONS.items()}
NAMESPACED = {"Pod", "PodGroup", "ConfigMap"}

_POD_WRITE = re.compile(r"^/api/v1/namespaces/([^/]+)/pods/([^/]+)/(binding|eviction|status)$")
_PG_STATUS = re.compile(
    r"^/apis/scheduling\.volcano\.sh/v1beta1/namespaces/([^/]+)/podgroups/([^/]+)/status$"
)


def _key(kind: str, raw: Mapping[str, Any]) -> str:
    metadata = raw["metadata"]
    if kind in NAMESPACED:
        return f"{metadata.get('namespace') or 'default'}/{metadata['name']}"
    return str(metadata["name"])


def merge_patch(target: Any, patch: Any) -> Any:
    """RFC 7386 JSON merge patch."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    result = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = merge_patch(result.get(key), value)
    return result


class KubeTestServer:
    """The test server (module docstring)."""

    def __init__(self, watch_wait: float = 0.2) -> None:
        self.server = HTTPServer(threaded=True)
        self.watch_wait = watch_wait
        self.lock = threading.Condition()
        self.version = 100
        self.objects: dict[str, dict[str, dict[str, Any]]] = {kind: {} for kind in COLLECTIONS}
        self.log: list[tuple[str, int, str, dict[str, Any]]] = []
        """(kind, resourceVersion, event type, object) in order."""
        self.writes: list[tuple[str, str, dict[str, Any]]] = []
        self.lists: list[str] = []
        """The kinds listed, in order (a relist shows here)."""
        self.watches: list[tuple[str, str]] = []
        """(kind, resourceVersion asked) of every watch request."""
        self._faults: list[list[Any]] = []
        self._gone: set[str] = set()
        self._drop: set[str] = set()
        self.server.expect_request(re.compile(r"^/.*$")).respond_with_handler(self.handle)

    # ------------------------------------------------------------------ set-up
    def start(self) -> KubeTestServer:
        self.server.start()
        return self

    def stop(self) -> None:
        with self.lock:
            self.lock.notify_all()
        self.server.clear()
        if self.server.is_running():
            self.server.stop()

    @property
    def url(self) -> str:
        return f"http://{self.server.host}:{self.server.port}"

    def kubeconfig(self, directory: Path) -> Path:
        path = directory / "kubeconfig"
        config = {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [{"name": "test-server", "cluster": {"server": self.url}}],
            "users": [{"name": "tester", "user": {"token": "test-token"}}],
            "contexts": [{"name": "test", "context": {"cluster": "test-server", "user": "tester"}}],
            "current-context": "test",
        }
        path.write_text(yaml.safe_dump(config))
        return path

    def load(self, documents: Iterable[Mapping[str, Any]]) -> None:
        """Create objects (kinds outside ``COLLECTIONS`` are left out)."""
        for raw in documents:
            if raw and raw.get("kind") in COLLECTIONS:
                self.put(raw)

    def load_file(self, path: Path | str) -> None:
        self.load(yaml.safe_load_all(Path(path).read_text()))

    def _next(self) -> str:
        self.version += 1
        return str(self.version)

    def put(self, raw: Mapping[str, Any], event: str | None = None) -> dict[str, Any]:
        """Create or replace an object (an ADDED or MODIFIED event)."""
        kind = raw["kind"]
        obj = copy.deepcopy(dict(raw))
        metadata = obj.setdefault("metadata", {})
        if kind in NAMESPACED:
            metadata.setdefault("namespace", "default")
        key = _key(kind, obj)
        with self.lock:
            store = self.objects[kind]
            metadata.setdefault("uid", key.replace("/", "-"))  # as fumarole names an object without one
            version = self._next()
            metadata["resourceVersion"] = version
            kind_of_event = event or ("MODIFIED" if key in store else "ADDED")
            store[key] = obj
            self.log.append((kind, int(version), kind_of_event, copy.deepcopy(obj)))
            self.lock.notify_all()
        return obj

    def delete(self, kind: str, key: str) -> None:
        with self.lock:
            obj = self.objects[kind].pop(key)
            obj["metadata"]["resourceVersion"] = self._next()
            self.log.append((kind, self.version, "DELETED", obj))
            self.lock.notify_all()

    def get(self, kind: str, key: str) -> dict[str, Any] | None:
        with self.lock:
            return copy.deepcopy(self.objects[kind].get(key))

    # ------------------------------------------------------------------ faults
    def fail(self, method: str, path_suffix: str, status: int, times: int = 1) -> None:
        with self.lock:
            self._faults.append([method, path_suffix, status, times])

    def gone(self, kind: str) -> None:
        with self.lock:
            self._gone.add(kind)

    def drop(self, kind: str) -> None:
        with self.lock:
            self._drop.add(kind)

    def _fault(self, method: str, path: str) -> int:
        with self.lock:
            for fault in self._faults:
                if fault[0] == method and path.endswith(fault[1]) and fault[3] > 0:
                    fault[3] -= 1
                    return int(fault[2])
        return 0

    # ------------------------------------------------------------------ HTTP
    @staticmethod
    def _status(code: int, reason: str, message: str) -> Response:
        body = {
            "kind": "Status",
            "apiVersion": "v1",
            "status": "Failure",
            "message": message,
            "reason": reason,
        }
        return Response(json.dumps({**body, "code": code}), status=code, content_type="application/json")

    def handle(self, request: Request) -> Response:
        path = request.path
        if request.method == "GET" and path in BY_PATH:
            kind = BY_PATH[path]
            if request.args.get("watch") == "true":
                return self._watch(kind, request)
            return self._list(kind, request)
        if request.method in ("POST", "PATCH"):
            body = json.loads(request.get_data(as_text=True) or "{}")
            with self.lock:
                self.writes.append((request.method, path, body))
            status = self._fault(request.method, path)
            if status:
                return self._status(status, "Injected", f"injected fault {status}")
            return self._write(request, path, body)
        return self._status(404, "NotFound", f"the test server does not serve {request.method} {path}")

    def _selected(self, kind: str, request: Request) -> list[dict[str, Any]]:
        selector = request.args.get("fieldSelector", "")
        items = list(self.objects[kind].values())
        if selector.startswith("metadata.name="):
            name = selector.split("=", 1)[1]
            items = [item for item in items if item["metadata"]["name"] == name]
        return items

    def _list(self, kind: str, request: Request) -> Response:
        with self.lock:
            self.lists.append(kind)
            items = copy.deepcopy(self._selected(kind, request))
            body = {"kind": f"{kind}List", "metadata": {"resourceVersion": str(self.version)}, "items": items}
        return Response(json.dumps(body), content_type="application/json")

    def _watch(self, kind: str, request: Request) -> Response:
        since = int(request.args.get("resourceVersion") or 0)
        selector = request.args.get("fieldSelector", "")
        name = selector.split("=", 1)[1] if selector.startswith("metadata.name=") else None
        with self.lock:
            self.watches.append((kind, str(since)))
            if kind in self._gone:
                self._gone.discard(kind)
                error = {
                    "kind": "Status",
                    "code": 410,
                    "reason": "Expired",
                    "message": "too old resource version",
                }
                return Response(
                    json.dumps({"type": "ERROR", "object": error}) + "\n", content_type="application/json"
                )
            deadline = time.monotonic() + self.watch_wait
            while True:
                events = [
                    (event_type, obj)
                    for event_kind, version, event_type, obj in self.log
                    if event_kind == kind
                    and version > since
                    and (name is None or obj["metadata"]["name"] == name)
                ]
                remaining = deadline - time.monotonic()
                if events or remaining <= 0 or not self.server.is_running():
                    break
                self.lock.wait(remaining)
            lines = [json.dumps({"type": event_type, "object": obj}) for event_type, obj in events]
            if kind in self._drop:
                self._drop.discard(kind)
                lines = [*lines[:1], '{"type": "MODIFIED", "object": {"metadata": ']
        text = "".join(line + "\n" for line in lines)
        return Response(text, content_type="application/json")

    def _write(self, request: Request, path: str, body: dict[str, Any]) -> Response:
        pod_write = _POD_WRITE.match(path)
        if pod_write is not None:
            namespace, name, sub = pod_write.groups()
            key = f"{namespace}/{name}"
            with self.lock:
                pod = copy.deepcopy(self.objects["Pod"].get(key))
            if pod is None:
                return self._status(404, "NotFound", f'pods "{name}" not found')
            if sub == "binding":
                if pod.get("spec", {}).get("nodeName"):
                    return self._status(409, "Conflict", f"pod {name} is already assigned")
                pod.setdefault("spec", {})["nodeName"] = body["target"]["name"]
                annotations = body.get("metadata", {}).get("annotations") or {}
                if annotations:
                    pod["metadata"].setdefault("annotations", {}).update(annotations)
                self.put(pod)
                return Response(json.dumps({"kind": "Status", "status": "Success"}), status=201)
            if sub == "eviction":
                pod["metadata"]["deletionTimestamp"] = "2026-12-02T00:00:00Z"
                self.put(pod)
                return Response(json.dumps({"kind": "Status", "status": "Success"}), status=201)
            patched = merge_patch(pod, {"status": body.get("status", {})})
            self.put(patched)
            return Response(json.dumps(patched), status=200, content_type="application/json")
        pg_status = _PG_STATUS.match(path)
        if pg_status is not None:
            namespace, name = pg_status.groups()
            with self.lock:
                pg = copy.deepcopy(self.objects["PodGroup"].get(f"{namespace}/{name}"))
            if pg is None:
                return self._status(404, "NotFound", f'podgroups "{name}" not found')
            patched = merge_patch(pg, {"status": body.get("status", {})})
            self.put(patched)
            return Response(json.dumps(patched), status=200, content_type="application/json")
        return self._status(404, "NotFound", f"the test server does not serve {request.method} {path}")
