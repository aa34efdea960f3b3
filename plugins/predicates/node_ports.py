"""NodePorts filter: host ports already taken on the node (k8s ``nodeports``).

Spec: ``pkg/scheduler/framework/plugins/nodeports/node_ports.go``, ``schedutil.GetHostPorts`` and
``framework.HostPortInfo``.

* The pod's host ports are the ``hostPort > 0`` ports of its containers and of its init
  containers with ``restartPolicy: Always``; an empty ``hostIP`` means ``0.0.0.0``, an empty
  protocol TCP. A pod without host ports skips the filter.
* A node's used ports are a *set* of (ip, protocol, port) over the pods of the Kubernetes view;
  removing a pod removes its entries even if another pod declared the same one (as
  ``HostPortInfo.Remove`` does).
* Conflict: a wanted ``0.0.0.0`` port clashes with the same (protocol, port) on any IP; another IP
  clashes with the same (protocol, port) on that IP or on ``0.0.0.0``.
* Failure: Unschedulable "node(s) didn't have free ports for the requested pod ports".

Vectorised: an index (protocol, port) -> {row: IPs} answers "which nodes clash" without touching
nodes that use no such port.
"""

from __future__ import annotations

from collections.abc import Iterable

from fumarole.framework.cache.objects import Pod

NAME = "NodePorts"
REASON = "node(s) didn't have free ports for the requested pod ports"
BIND_ALL = "0.0.0.0"

HostPort = tuple[str, str, int]
"""(ip, protocol, port), sanitised."""


def host_ports(pod: Pod | None) -> tuple[HostPort, ...]:
    """``GetHostPorts``, sanitised as ``HostPortInfo`` does."""
    if pod is None:
        return ()
    containers = [c for c in pod.spec.init_containers if c.restart_policy == "Always"]
    containers += pod.spec.containers
    out: list[HostPort] = []
    for container in containers:
        for port in container.ports:
            if port.host_port <= 0:
                continue
            out.append((port.host_ip or BIND_ALL, port.protocol or "TCP", port.host_port))
    return tuple(out)


def conflicts(used: dict[str, set[tuple[str, int]]], wanted: HostPort) -> bool:
    """``HostPortInfo.CheckConflict`` for one node's used ports (ip -> {(protocol, port)})."""
    ip, protocol, port = wanted
    pair = (protocol, port)
    if ip == BIND_ALL:
        return any(pair in pairs for pairs in used.values())
    return pair in used.get(BIND_ALL, set()) or pair in used.get(ip, set())


class HostPortIndex:
    """Used host ports of every node, indexed by (protocol, port)."""

    def __init__(self) -> None:
        self.by_port: dict[tuple[str, int], dict[int, set[str]]] = {}

    def add(self, row: int, ports: Iterable[HostPort]) -> None:
        for ip, protocol, port in ports:
            self.by_port.setdefault((protocol, port), {}).setdefault(row, set()).add(ip)

    def remove(self, row: int, ports: Iterable[HostPort]) -> None:
        for ip, protocol, port in ports:
            rows = self.by_port.get((protocol, port))
            if rows is None:
                continue
            ips = rows.get(row)
            if ips is None:
                continue
            ips.discard(ip)
            if not ips:
                del rows[row]
                if not rows:
                    del self.by_port[(protocol, port)]

    def conflict_rows(self, wanted: Iterable[HostPort]) -> set[int]:
        """Rows on which at least one wanted port clashes."""
        out: set[int] = set()
        for ip, protocol, port in wanted:
            rows = self.by_port.get((protocol, port))
            if not rows:
                continue
            if ip == BIND_ALL:
                out.update(rows)
            else:
                out.update(row for row, ips in rows.items() if BIND_ALL in ips or ip in ips)
        return out
