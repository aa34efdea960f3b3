"""The node table, nodeorder, predicates and overcommit keep per-node state from one session to the
next (issue 13): the rows of unchanged nodes (``node_table.TableSeed``, ``nodeorder.state.ViewSeed``,
``predicates.pod_view.PodRowsSeed``, overcommit's ``UsedTerms``) and what derives from the Node
objects alone while none changed (the taint and image scorers, the predicates' node columns and
stable codes, the session's total). Since the snapshot names the node copies it did not lend again
(``ClusterSnapshot.nodes_changed``), they redo only the rows the session says changed
(``Session.node_rows_changed_since``). A change to one node must be seen by the next session exactly
as a scheduler that never ran a session sees it: the node list, the table's numbers, every score,
every predicate status, overcommit's sums, before and after a placement in the session.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from fumarole.framework.api.task_status import TaskStatus
from fumarole.framework.cache import ClusterCache
from fumarole.framework.cache.builders import build_node, build_pod, build_pod_group, build_queue
from fumarole.framework.cache.objects import Node
from fumarole.framework.conf import SchedulerConf
from fumarole.framework.scheduler import Scheduler
from fumarole.framework.session import Session
from fumarole.framework.settings import Settings
from fumarole.framework.statement import Statement
from hypothesis import given, settings
from hypothesis import strategies as st

NAMESPACE = "ns"
HOSTNAME = "kubernetes.io/hostname"
ALL_WEIGHTS = {
    "leastrequested.weight": 1,
    "mostrequested.weight": 1,
    "nodeaffinity.weight": 2,
    "podaffinity.weight": 2,
    "balancedresource.weight": 1,
    "tainttoleration.weight": 3,
    "imagelocality.weight": 1,
}
CONF = SchedulerConf.model_validate(
    {
        "actions": "allocate",
        "tiers": [
            {
                "plugins": [
                    {"name": "predicates", "arguments": {"predicate.CacheEnable": True}},
                    {"name": "nodeorder", "arguments": ALL_WEIGHTS},
                    {"name": "overcommit"},
                ]
            }
        ],
    }
)


def term(labels: dict[str, str], key: str = HOSTNAME) -> dict[str, Any]:
    return {"labelSelector": {"matchLabels": labels}, "topologyKey": key}


PREFER_WITH_WEB = {
    "podAffinity": {
        "preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 50, "podAffinityTerm": term({"app": "web"})}
        ]
    },
    "podAntiAffinity": {
        "preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 20, "podAffinityTerm": term({"app": "db"}, "zone")}
        ]
    },
}
AVOID_DB = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term({"app": "db"})]}}
NEAR_WEB_ZONE = {
    "podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term({"app": "web"}, "zone")]}
}
IN_ZONE_A = {
    "nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [
                {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a", "b"]}]}
            ]
        },
        "preferredDuringSchedulingIgnoredDuringExecution": [
            {
                "weight": 10,
                "preference": {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]},
            }
        ],
    }
}
PORT = {"containers": [{"name": "main", "image": "web:1", "ports": [{"containerPort": 80, "hostPort": 80}]}]}


def node(
    index: int,
    *,
    zone: str | None = None,
    taints: tuple[dict[str, str], ...] = (),
    images: tuple[str, ...] = (),
    cpu: str = "16",
) -> Node:
    labels = {HOSTNAME: f"n{index}"}
    if zone is not None:
        labels["zone"] = zone
    built = build_node(
        f"n{index}", {"cpu": cpu, "memory": "64Gi", "pods": "6"}, labels=labels, taints=list(taints)
    )
    if images:
        status = built.status.model_copy(
            update={
                "images": [
                    type(built.status)
                    .model_validate({"images": [{"names": [name], "sizeBytes": 300 * 1024 * 1024}]})
                    .images[0]
                    for name in images
                ]
            }
        )
        built = built.model_copy(update={"status": status})
    return built


def running(name: str, where: str, labels: dict[str, str], **extra: Any) -> list[Any]:
    return [
        build_pod_group(NAMESPACE, name, min_member=1, phase="Running"),
        build_pod(
            NAMESPACE,
            f"{name}-0",
            group=name,
            requests={"cpu": "1", "memory": "1Gi"},
            node=where,
            phase="Running",
            labels=labels,
            **extra,
        ),
    ]


def pending(name: str, **extra: Any) -> list[Any]:
    return [
        build_pod_group(NAMESPACE, name, min_member=1, phase="Inqueue"),
        build_pod(NAMESPACE, f"{name}-0", group=name, requests={"cpu": "2", "memory": "2Gi"}, **extra),
    ]


def cluster() -> ClusterCache:
    cache = ClusterCache(Settings())
    objects: list[Any] = [build_queue("default")]
    objects += [
        node(0, zone="a", images=("web:1",)),
        node(1, zone="a", taints=({"key": "slow", "value": "yes", "effect": "PreferNoSchedule"},)),
        node(2, zone="b", images=("web:1", "db:2")),
        node(3, zone="c", taints=({"key": "gpu", "value": "yes", "effect": "NoSchedule"},)),
        node(4),
    ]
    objects += running("web-a", "n0", {"app": "web"}, image="web:1")
    objects += running("db-b", "n2", {"app": "db"}, affinity=AVOID_DB)
    objects += running("web-b", "n2", {"app": "web"}, affinity=PREFER_WITH_WEB)
    objects += running("port-c", "n1", {"app": "port"}, extra_spec=PORT)
    objects += pending("plain", image="web:1")
    objects += pending("sticky", labels={"app": "web"}, affinity=PREFER_WITH_WEB)
    objects += pending("loner", labels={"app": "db"}, affinity=AVOID_DB)
    objects += pending("follower", affinity=NEAR_WEB_ZONE)
    objects += pending("zoned", affinity=IN_ZONE_A, tolerations=[{"key": "gpu", "operator": "Exists"}])
    objects += pending("ported", extra_spec=PORT)
    cache.apply_objects(objects)
    return cache


def answers(ssn: Session) -> dict[str, Any]:
    """Every score and predicate status the two plugins give every pending task on every node."""
    nodeorder = ssn.plugins["nodeorder"]
    predicates = ssn.plugins["predicates"]
    rows = np.arange(len(ssn.node_table), dtype=np.int64)
    table = ssn.node_table
    overcommit = ssn.plugins["overcommit"]
    out: dict[str, Any] = {
        "nodes": list(table.names),
        "node list": [(node.name, node.ready) for node in ssn.node_list],
        "total": str(ssn.total_resource),
        "overcommit": (str(overcommit.idle_resource), str(overcommit.inqueue_resource)),
        "table": [table.resources, table.pod_count.tolist()]
        + [
            table.matrix(which).tolist()
            for which in ("allocatable", "idle", "used", "releasing", "pipelined")
        ],
    }
    for job in ssn.jobs.values():
        for task in job.tasks_with(TaskStatus.PENDING).values():
            pre = predicates.pre_predicate(task)
            fit = predicates.batch_predicate(task, rows)
            out[task.key] = (
                None if pre is None else str(pre),
                fit.passed.tolist(),
                [fit.statuses_for(row) for row in range(len(rows))],
                {name: scores.tolist() for name, scores in nodeorder.scores(task, rows).items()},
                nodeorder.batch_node_order_fn(task, rows).tolist(),
            )
    return out


def session_answers(scheduler: Scheduler) -> list[dict[str, Any]]:
    """The answers at session open, then after placing ``sticky`` and evicting ``web-a`` in a
    statement, then after discarding it."""
    ssn = scheduler.open_session(now=0.0)
    try:
        found = [answers(ssn)]
        stmt = Statement(ssn)
        sticky = ssn.jobs.get(f"{NAMESPACE}/sticky")
        target = ssn.nodes.get("n4") or next(iter(ssn.nodes.values()))
        if sticky is not None:
            stmt.allocate(next(iter(sticky.tasks.values())), target)
        web = ssn.jobs.get(f"{NAMESPACE}/web-a")
        if web is not None:
            stmt.evict(next(iter(web.tasks.values())), "test")
        found.append(answers(ssn))
        stmt.discard()
        found.append(answers(ssn))
        return found
    finally:
        ssn.close()


def replace_node(cache: ClusterCache, name: str, change: Callable[[Node], Node]) -> None:
    cache.put(change(cache.nodes[name]))


def relabel(n: Node) -> Node:
    labels = {**n.metadata.labels, "zone": "b"}
    return n.model_copy(update={"metadata": n.metadata.model_copy(update={"labels": labels})})


def with_taint(effect: str) -> Callable[[Node], Node]:
    def change(n: Node) -> Node:
        taints = [
            *n.spec.taints,
            type(n.spec)
            .model_validate({"taints": [{"key": "new", "value": "x", "effect": effect}]})
            .taints[0],
        ]
        return n.model_copy(update={"spec": n.spec.model_copy(update={"taints": taints})})

    return change


def without_images(n: Node) -> Node:
    return n.model_copy(update={"status": n.status.model_copy(update={"images": []})})


def smaller(n: Node) -> Node:
    allocatable = {**n.status.allocatable, "cpu": "3"}
    return n.model_copy(update={"status": n.status.model_copy(update={"allocatable": allocatable})})


def unschedulable(n: Node) -> Node:
    return n.model_copy(update={"spec": n.spec.model_copy(update={"unschedulable": True})})


def ready(status: str) -> Callable[[Node], Node]:
    def change(n: Node) -> Node:
        condition = type(n.status).model_validate({"conditions": [{"type": "Ready", "status": status}]})
        return n.model_copy(
            update={"status": n.status.model_copy(update={"conditions": condition.conditions})}
        )

    return change


CHANGES: dict[str, Callable[[ClusterCache], None]] = {
    "nothing": lambda cache: None,
    "labels": lambda cache: replace_node(cache, "n0", relabel),
    "PreferNoSchedule taint": lambda cache: replace_node(cache, "n4", with_taint("PreferNoSchedule")),
    "NoSchedule taint": lambda cache: replace_node(cache, "n0", with_taint("NoSchedule")),
    "images": lambda cache: replace_node(cache, "n2", without_images),
    "allocatable": lambda cache: replace_node(cache, "n4", smaller),
    "unschedulable": lambda cache: replace_node(cache, "n2", unschedulable),
    "pod bound there": lambda cache: cache.apply_objects(
        running("db-x", "n4", {"app": "db"}, affinity=AVOID_DB)
    ),
    "web pod bound there": lambda cache: cache.apply_objects(running("web-x", "n3", {"app": "web"})),
    "port pod bound there": lambda cache: cache.apply_objects(running("port-x", "n0", {}, extra_spec=PORT)),
    "pod deleted": lambda cache: cache.delete("Pod", f"{NAMESPACE}/db-b-0"),
    "pod with terms deleted": lambda cache: cache.delete("Pod", f"{NAMESPACE}/web-b-0"),
    "node added": lambda cache: cache.put(node(5, zone="a", images=("db:2",))),
    "node deleted": lambda cache: cache.delete("Node", "n1"),
    "not ready": lambda cache: replace_node(cache, "n3", ready("False")),
    "ready again": lambda cache: replace_node(cache, "n3", ready("True")),
}


@pytest.mark.parametrize("change", [pytest.param(name, id=name.replace(" ", "-")) for name in CHANGES])
def test_a_change_to_one_node_is_seen_as_a_fresh_scheduler_sees_it(change: str) -> None:
    cache = cluster()
    kept = Scheduler(CONF, cache, settings=Settings(observers=False))
    first = session_answers(kept)
    assert first == session_answers(Scheduler(CONF, cache.fresh_copy(), settings=Settings(observers=False)))
    CHANGES[change](cache)
    after = session_answers(kept)
    assert after == session_answers(Scheduler(CONF, cache.fresh_copy(), settings=Settings(observers=False)))
    if change not in ("nothing", "ready again"):  # n3 is ready to begin with
        assert after != first


@settings(max_examples=25, deadline=None)
@given(st.lists(st.sampled_from(sorted(CHANGES)), min_size=1, max_size=5))
def test_any_sequence_of_changes_is_seen_as_a_fresh_scheduler_sees_it(changes: list[str]) -> None:
    cache = cluster()
    kept = Scheduler(CONF, cache, settings=Settings(observers=False))
    session_answers(kept)
    for change in changes:
        try:
            CHANGES[change](cache)
        except KeyError:
            continue  # the node or pod is gone already
        assert session_answers(kept) == session_answers(
            Scheduler(CONF, cache.fresh_copy(), settings=Settings(observers=False))
        ), changes
