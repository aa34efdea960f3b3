"""``fumarole run``'s side of the official ``kubernetes`` client (the ``live`` extra): watchers and writer.

The client's ``ApiClient`` (configuration, authentication, TLS from the kubeconfig or the pod's
service account) sends every request, and its ``watch.Watch`` reads the watch streams; requests are
made by path (``RESOURCES``; the writes' paths are ``writes.Write.path``) so that what is sent is
exactly what ``fumarole schedule --format k8s`` prints.

A ``Watcher`` per kind, on its own daemon thread, as an informer's reflector does
(client-go ``tools/cache/reflector.go``): list (``resourceVersion`` of the list), then watch from that
version with bookmarks; a watch that ends (the server's timeout) is resumed from the last version
seen; ``410 Gone`` relists at once; any other failure (a dropped connection, a broken stream, a
``5xx``) waits (exponential backoff from ``backoff`` to ``max_backoff``, reset by a successful list)
and relists. Items go to the loop's queue (``loop.LiveLoop.events``); the loop owns the cache.
"""

from __future__ import annotations

import json
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from loguru import logger

from .state import CONFIG_MAP, WriteResult
from .writes import Write

try:
    from kubernetes import client as k8s_client
    from kubernetes import config as k8s_config
    from kubernetes import watch as k8s_watch
    from kubernetes.client.exceptions import ApiException
except ImportError as exc:  # pragma: no cover - the live extra is part of the test extra
    raise ImportError(
        "fumarole run needs the official Kubernetes client: pip install 'fumarole[live]'"
    ) from exc


@dataclass(frozen=True)
class Resource:
    kind: str
    path: str
    """The collection's path (cluster-wide, or the ConfigMap's namespace)."""
    field_selector: str = ""


RESOURCES: tuple[Resource, ...] = (
    Resource("Node", "/api/v1/nodes"),
    Resource("Pod", "/api/v1/pods"),
    Resource("PodGroup", "/apis/scheduling.volcano.sh/v1beta1/podgroups"),
    Resource("Queue", "/apis/scheduling.volcano.sh/v1beta1/queues"),
    Resource("HyperNode", "/apis/topology.volcano.sh/v1alpha1/hypernodes"),
    Resource("PriorityClass", "/apis/scheduling.k8s.io/v1/priorityclasses"),
)
"""What ``fumarole run`` lists and watches (plus the scheduler's ConfigMap, ``config_map_resource``)."""


def config_map_resource(namespace: str, name: str) -> Resource:
    return Resource(CONFIG_MAP, f"/api/v1/namespaces/{namespace}/configmaps", f"metadata.name={name}")


def api_client(kubeconfig: str | None) -> Any:
    """An ``ApiClient`` from a kubeconfig file, else from the pod's service account (in-cluster)."""
    if kubeconfig:
        return k8s_config.new_client_from_config(config_file=kubeconfig)  # type: ignore[no-untyped-call]
    configuration = k8s_client.Configuration()
    k8s_config.load_incluster_config(client_configuration=configuration)  # type: ignore[no-untyped-call]
    return k8s_client.ApiClient(configuration)


class Api:
    """Requests by path through the client's ``ApiClient``."""

    def __init__(self, client: Any, request_timeout: float = 30.0) -> None:
        self.client = client
        self.request_timeout = request_timeout

    def request(
        self,
        method: str,
        path: str,
        *,
        query: list[tuple[str, Any]] | None = None,
        body: Any = None,
        content_type: str = "application/json",
        timeout: float | None = None,
    ) -> Any:
        """The urllib3 response (not read); ``ApiException`` for a status that is not 2xx."""
        headers = {"Accept": "application/json", "Content-Type": content_type}
        method, url, headers, body, post = self.client.param_serialize(
            method,
            path,
            query_params=query or [],
            header_params=headers,
            body=body,
            auth_settings=["BearerToken"],
        )
        response = self.client.call_api(
            method,
            url,
            header_params=headers,
            body=body,
            post_params=post,
            _request_timeout=timeout or self.request_timeout,
        )
        if not 200 <= response.status <= 299:
            text = response.read().decode("utf-8", "replace")
            raise ApiException(status=response.status, reason=_reason(text, response.reason))
        return response.response


def _reason(text: str, fallback: str) -> str:
    try:
        status = json.loads(text)
    except ValueError:
        return text.strip() or fallback
    if isinstance(status, dict) and status.get("message"):
        return str(status["message"])
    return fallback


class ClientWriter:
    """Sends the writes: POST for Bindings and Evictions, merge patches for the status patches."""

    def __init__(self, api: Api) -> None:
        self.api = api

    def send(self, write: Write) -> WriteResult:
        content_type = "application/merge-patch+json" if write.method == "PATCH" else "application/json"
        try:
            response = self.api.request(write.method, write.path, body=write.body, content_type=content_type)
            response.read()
        except ApiException as exc:
            return WriteResult(write, exc.status or -1, str(exc.reason))
        except Exception as exc:  # no answer: a dropped connection, a timeout
            return WriteResult(write, -1, f"{type(exc).__name__}: {exc}")
        logger.info("{}: done", write.describe())
        return WriteResult(write)


class Watcher:
    """List and watch one kind into a queue (module docstring), on a daemon thread."""

    def __init__(
        self,
        api: Api,
        resource: Resource,
        events: queue.Queue[tuple[Any, ...]],
        stop: threading.Event,
        *,
        watch_timeout: int = 300,
        backoff: float = 0.5,
        max_backoff: float = 30.0,
        on_error: Callable[[str, BaseException], None] | None = None,
    ) -> None:
        self.api = api
        self.resource = resource
        self.events = events
        self.stop = stop
        self.watch_timeout = watch_timeout
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.on_error = on_error
        self.version = ""
        self.lists = 0
        self.thread = threading.Thread(target=self.run, name=f"watch-{resource.kind}", daemon=True)

    def start(self) -> Watcher:
        self.thread.start()
        return self

    def _query(self) -> list[tuple[str, Any]]:
        return [("fieldSelector", self.resource.field_selector)] if self.resource.field_selector else []

    def list(self) -> None:
        response = self.api.request("GET", self.resource.path, query=self._query())
        listed = json.loads(response.data)
        version = str((listed.get("metadata") or {}).get("resourceVersion", ""))
        self.events.put(("relist", self.resource.kind, listed.get("items") or [], version))
        self.version = version
        self.lists += 1

    def _watch_call(self, **kwargs: Any) -> Any:
        query = [*self._query(), ("watch", "true"), ("allowWatchBookmarks", "true")]
        if kwargs.get("resource_version"):
            query.append(("resourceVersion", kwargs["resource_version"]))
        if kwargs.get("timeout_seconds"):
            query.append(("timeoutSeconds", kwargs["timeout_seconds"]))
        return self.api.request("GET", self.resource.path, query=query, timeout=self.watch_timeout + 10)

    def watch(self) -> None:
        watcher = k8s_watch.Watch()  # type: ignore[no-untyped-call]
        stream = watcher.stream(  # type: ignore[no-untyped-call]
            self._watch_call,
            resource_version=self.version,
            timeout_seconds=self.watch_timeout,
            deserialize=False,
        )
        for event in stream:
            if self.stop.is_set():
                watcher.stop()  # type: ignore[no-untyped-call]
                break
            raw = event.get("object") or {}
            version = (raw.get("metadata") or {}).get("resourceVersion")
            if version:
                self.version = str(version)
            self.events.put(("event", self.resource.kind, event.get("type", ""), raw))

    def run(self) -> None:
        delay = self.backoff
        must_list = True
        kind = self.resource.kind
        while not self.stop.is_set():
            try:
                if must_list:
                    self.list()
                    must_list = False
                    delay = self.backoff
                self.watch()
            except ApiException as exc:
                if exc.status == 410:
                    logger.info(
                        "watch of {}: 410 Gone at resourceVersion {}: listing again", kind, self.version
                    )
                    must_list = True
                    continue
                self._failed(exc, delay)
                must_list = True
                delay = min(delay * 2, self.max_backoff)
            except Exception as exc:  # a dropped connection, a broken stream
                self._failed(exc, delay)
                must_list = True
                delay = min(delay * 2, self.max_backoff)

    def _failed(self, exc: BaseException, delay: float) -> None:
        if self.stop.is_set():
            return
        logger.warning(
            "list/watch of {} failed ({}): listing again in {:.1f} s", self.resource.kind, exc, delay
        )
        if self.on_error is not None:
            self.on_error(self.resource.kind, exc)
        self.stop.wait(delay)
