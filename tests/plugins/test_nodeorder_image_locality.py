"""nodeorder ImageLocality: the vectorised path (the image-locality part of the plugin's one registered
batch node-order function, ``NodeOrderPlugin.batch_node_order_fn``) answers, node by node, exactly what the
scalar per-node path (``NodeOrderPlugin.node_order_fn``, upstream's ``NodeOrderFn``) answers, and both give
the scores computed by hand from ``plugins/imagelocality/image_locality.go``.

Six nodes, images of various sizes and spreads; pods with no container, one, several (init containers
included), untagged names (normalised to ``:latest``, also behind a registry with a port) and a name that
differs from the node's only by its registry (no registry normalisation: no match).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from fumarole.framework.cache.objects import Node
from fumarole.framework.conf import PluginOption
from fumarole.framework.session import Session
from fumarole.plugins.nodeorder import NodeOrderPlugin
from fumarole.plugins.nodeorder.image_locality import ImageLocalityScorer
from fumarole.testing import Harness, build_node, build_pod, build_pod_group, build_queue

MI = 2**20
NGINX = {"names": ["nginx:1.0"], "sizeBytes": 500 * MI}
REDIS = {"names": ["redis:latest", "redis"], "sizeBytes": 300 * MI}
APP = {"names": ["registry.example.com/team/app:v2"], "sizeBytes": 800 * MI}
CLI = {"names": ["localhost:5000/tools/cli:latest"], "sizeBytes": 600 * MI}
BUSYBOX = {"names": ["docker.io/library/busybox:1.36"], "sizeBytes": 200 * MI}
MODEL = {"names": ["big/model:7b"], "sizeBytes": 6000 * MI}
NODE_IMAGES: dict[str, list[dict[str, Any]]] = {
    "a": [NGINX, REDIS, BUSYBOX],
    "b": [NGINX, APP, BUSYBOX],
    "c": [NGINX, CLI, BUSYBOX],
    "d": [APP, MODEL, BUSYBOX],
    "e": [MODEL],
    "f": [],
}
NAMES = list(NODE_IMAGES)


def open_session(containers: list[str], init_containers: list[str], weight: int) -> Session:
    spec = {
        "containers": [{"name": f"c{i}", "image": image} for i, image in enumerate(containers)],
        "initContainers": [{"name": f"i{i}", "image": image} for i, image in enumerate(init_containers)],
    }
    nodes = []
    for name, images in NODE_IMAGES.items():
        built = build_node(name, {"cpu": "4", "memory": "8Gi", "pods": "110"})
        built.status.images = Node.model_validate(
            {"metadata": {"name": name}, "status": {"images": images}}
        ).status.images
        nodes.append(built)
    objects = [
        build_queue("default"),
        build_pod_group("ns", "pg", min_member=0),
        *nodes,
        build_pod("ns", "task", group="pg", extra_spec=spec),
    ]
    arguments = {
        "leastrequested.weight": 0,
        "mostrequested.weight": 0,
        "nodeaffinity.weight": 0,
        "podaffinity.weight": 0,
        "balancedresource.weight": 0,
        "tainttoleration.weight": 0,
        "imagelocality.weight": weight,
        "podtopologyspread.weight": 0,
    }
    option = PluginOption(name="nodeorder", enabled_node_order=True, arguments=arguments)
    return Harness(objects, [[option]], plugins={"nodeorder": NodeOrderPlugin}).open_session()


@pytest.mark.parametrize(
    ("containers", "init_containers", "weight", "expected"),
    [
        pytest.param([], [], 1, [0, 0, 0, 0, 0, 0], id="no-container"),
        # int(500Mi * 3/6) = 250Mi over [23Mi, 1000Mi] -> 100 * 227Mi / 977Mi = 23
        pytest.param(["nginx:1.0"], [], 1, [23, 23, 23, 0, 0, 0], id="one-tagged-image"),
        pytest.param(["nginx:1.0"], [], 3, [69, 69, 69, 0, 0, 0], id="weighted"),
        # "redis" is redis:latest, listed by node a under both names: int(300Mi / 6) = 50Mi -> 2
        pytest.param(["redis"], [], 1, [2, 0, 0, 0, 0, 0], id="untagged-is-latest"),
        # the ':' of the registry port is before the last '/': ":latest" is added; 100Mi -> 7
        pytest.param(["localhost:5000/tools/cli"], [], 1, [0, 0, 7, 0, 0, 0], id="registry-port-untagged"),
        # a tag but another registry: no normalisation of the registry, so no node has it
        pytest.param(["busybox:1.36"], [], 1, [0, 0, 0, 0, 0, 0], id="registry-not-normalised"),
        # the node's exact name: int(200Mi * 4/6) = 133.3Mi -> 11
        pytest.param(["docker.io/library/busybox:1.36"], [], 1, [11, 11, 11, 11, 0, 0], id="full-name"),
        # int(6000Mi * 2/6) = 2000Mi, clamped to the 1000Mi ceiling -> 100
        pytest.param(["big/model:7b"], [], 1, [0, 0, 0, 100, 100, 0], id="clamped-at-the-ceiling"),
        # the same image twice counts twice, against a 2000Mi ceiling: 500Mi -> 24
        pytest.param(["nginx:1.0", "nginx:1.0"], [], 1, [24, 24, 24, 0, 0, 0], id="image-repeated"),
        # three containers, ceiling 3000Mi: a 250Mi + 50Mi -> 9; b 250Mi + 266.6Mi -> 16; c 250Mi -> 7;
        # d 266.6Mi -> 8
        pytest.param(
            ["nginx:1.0", "registry.example.com/team/app:v2"],
            ["redis"],
            1,
            [9, 16, 7, 8, 0, 0],
            id="several-containers-with-init",
        ),
        # ceiling 4000Mi: a, b 250Mi + 133.3Mi -> 9; c 250Mi + 100Mi + 133.3Mi -> 11; d 2000Mi (more
        # than one container's 1000Mi, not clamped) + 133.3Mi -> 53; e 2000Mi -> 49
        pytest.param(
            ["big/model:7b", "nginx:1.0", "localhost:5000/tools/cli"],
            ["docker.io/library/busybox:1.36"],
            1,
            [9, 9, 11, 53, 49, 0],
            id="four-containers-large-image",
        ),
    ],
)
def test_batch_scores_equal_scalar_scores_node_by_node(
    containers: list[str], init_containers: list[str], weight: int, expected: list[int]
) -> None:
    ssn = open_session(containers, init_containers, weight)
    plugin = ssn.plugins["nodeorder"]
    assert isinstance(plugin, NodeOrderPlugin)
    # One batch node-order function; every other weight is 0, so its scores are the image locality.
    assert ssn.enabled_fns("batch_node_order") == [[plugin.batch_node_order_fn]]
    (task,) = [task for job in ssn.jobs.values() for task in job.tasks.values()]
    table = ssn.node_table

    scalar = {name: plugin.node_order_fn(task, ssn.nodes[name]) for name in NAMES}
    assert scalar == {name: float(score) for name, score in zip(NAMES, expected, strict=True)}
    assert {name: ssn.node_order(task, ssn.nodes[name]) for name in NAMES} == scalar

    every_row = np.asarray([table.index[name] for name in NAMES], dtype=np.int64)
    batch = plugin.batch_node_order_fn(task, every_row)
    assert batch.tolist() == [scalar[name] for name in NAMES]
    assert ssn.batch_node_order(task, every_row).tolist() == [scalar[name] for name in NAMES]

    some = ("f", "d", "a", "c")
    some_rows = np.asarray([table.index[name] for name in some], dtype=np.int64)
    assert plugin.batch_node_order_fn(task, some_rows).tolist() == [scalar[name] for name in some]
    assert ssn.batch_node_order(task, some_rows).tolist() == [scalar[name] for name in some]


def test_a_task_without_pod_scores_zero_on_both_paths() -> None:
    ssn = open_session(["nginx:1.0"], [], 1)
    scorer = ImageLocalityScorer(ssn.node_table.nodes)
    rows = ssn.node_table.all_rows
    names = [ssn.node_table.names[row] for row in rows.tolist()]
    assert scorer.batch_scores(None, rows).tolist() == [scorer.score(None, name) for name in names]
    assert [scorer.score(None, name) for name in names] == [0] * len(names)
