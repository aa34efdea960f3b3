"""The levels of multi-level scheduling: the resource levels of each topo tree and a job's task levels.

What it decides:

* ``parse_resource_levels``: the ``init-params`` value ``resource-level-config``, a JSON object
  ``{"<topo tree>": {"level1": {"label": "<node label>", "reservedNode": N}, "level2": {...}}}``,
  becomes per topo tree the levels ``[tree, levelK, ..., level1, node]``. Levels must be
  continuous from ``level1``; ``reservedNode`` counts on ``level1`` only. A topo tree whose
  levels are not continuous is dropped with a diagnostic (upstream logs and drops it);
* ``parse_affinity_config``: the job annotation ``huawei.com/affinity-config`` (``"level1=4,level2=8"``,
  node counts) becomes the task levels ``[job(N), levelK, ..., level1, node(1)]``; each value must
  divide the one above it (the job's node count for the top level);
* ``trim_levels``: a topo tree with more levels than the job uses keeps its lowest ones under the
  tree level (``removeRedundantLayers``).

Node labels: ``huawei.com/topotree`` names a node's topo tree (``default`` without it); each middle
level's ``label`` is the node label whose value names the node's group at that level.

Spec: shared/reference/ascend-npu-plugin.md §2.8; upstream ``plugin/factory.go``
(``getConfigLevels``, ``getConfigLevel``), ``plugin/job.go`` (``GetAffinityBlocks``),
``common/util/type_multilevel.go`` (``GetTaskTreeLevels``), ``plugin/supernode.go``
(``removeRedundantLayers``).

Deliberate differences: errors name the field and the value (upstream: a fixed text).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass

TOPO_TREE_LABEL = "huawei.com/topotree"
DEFAULT_TOPO_TREE = "default"
AFFINITY_CONFIG = "huawei.com/affinity-config"
RESOURCE_LEVEL_CONFIG = "resource-level-config"
LEVEL_PREFIX = "level"
JOB_LEVEL = "job"
NODE_LEVEL = "node"

TREE = "tree"
MIDDLE = "middle"
NODE = "node"


class LevelError(ValueError):
    """A level configuration that cannot be used; the text names the field and the value."""


@dataclass(frozen=True)
class ResourceLevel:
    """One level of a resource tree: its kind, the node label naming its groups, the reserved nodes."""

    kind: str
    label: str = ""
    reserved: int = 0


@dataclass(frozen=True)
class TaskLevel:
    """One level of a task tree: its name and how many nodes one group of it takes."""

    name: str
    nodes: int


def _levels_of_tree(tree: str, config: object) -> list[ResourceLevel]:
    if not isinstance(config, Mapping) or not config:
        raise LevelError(f"{RESOURCE_LEVEL_CONFIG}: topo tree {tree!r} must map level1..levelK to objects")
    levels = [ResourceLevel(TREE, TOPO_TREE_LABEL)]
    for number in range(len(config), 0, -1):
        key = f"{LEVEL_PREFIX}{number}"
        entry = config.get(key)
        if not isinstance(entry, Mapping):
            raise LevelError(
                f"{RESOURCE_LEVEL_CONFIG}: topo tree {tree!r} has no {key} (levels must be continuous "
                f"from level1; keys: {sorted(config)})"
            )
        label = entry.get("label")
        if not isinstance(label, str) or not label:
            raise LevelError(
                f"{RESOURCE_LEVEL_CONFIG}: topo tree {tree!r} {key}.label must be a node label key"
            )
        reserved = entry.get("reservedNode", 0) if number == 1 else 0
        if not isinstance(reserved, int) or isinstance(reserved, bool) or reserved < 0:
            raise LevelError(
                f"{RESOURCE_LEVEL_CONFIG}: topo tree {tree!r} level1.reservedNode must be a whole number "
                f">= 0, not {reserved!r}"
            )
        levels.append(ResourceLevel(MIDDLE, label, reserved))
    levels.append(ResourceLevel(NODE))
    return levels


def parse_resource_levels(raw: object) -> tuple[dict[str, list[ResourceLevel]], list[str]]:
    """Topo tree -> its resource levels, and the problems found (one text per dropped tree).

    ``raw`` is the ``resource-level-config`` value: a JSON text or an already decoded mapping.
    Nothing configured gives no trees and no problem.
    """
    if raw is None or raw == "":
        return {}, []
    config: object = raw
    if isinstance(raw, str):
        try:
            config = json.loads(raw)
        except json.JSONDecodeError as error:
            return {}, [f"{RESOURCE_LEVEL_CONFIG}: not valid JSON ({error.msg} at {error.pos})"]
    if not isinstance(config, Mapping):
        return {}, [f"{RESOURCE_LEVEL_CONFIG}: must be a JSON object of topo trees"]
    trees: dict[str, list[ResourceLevel]] = {}
    problems: list[str] = []
    for tree in sorted(config):
        try:
            trees[str(tree)] = _levels_of_tree(str(tree), config[tree])
        except LevelError as error:
            problems.append(str(error))
    return trees, problems


def parse_affinity_config(text: str | None, job_nodes: int) -> list[TaskLevel]:
    """The task levels of a job of ``job_nodes`` pods from its ``huawei.com/affinity-config``."""
    if text is None:
        raise LevelError(f"annotation {AFFINITY_CONFIG} is missing (required by schedule_policy multilevel)")
    blocks: dict[str, int] = {}
    for pair in text.split(","):
        parts = pair.split("=")
        if len(parts) != 2:
            raise LevelError(f"annotation {AFFINITY_CONFIG}: {pair!r} is not <level>=<nodes>")
        try:
            blocks[parts[0].strip()] = int(parts[1])
        except ValueError:
            raise LevelError(
                f"annotation {AFFINITY_CONFIG}: the value of {parts[0].strip()!r} is not an integer: "
                f"{parts[1]!r}"
            ) from None
    if not blocks:
        raise LevelError(f"annotation {AFFINITY_CONFIG} is empty")
    levels = [TaskLevel(JOB_LEVEL, job_nodes)]
    for number in range(len(blocks), 0, -1):
        key = f"{LEVEL_PREFIX}{number}"
        if key not in blocks:
            raise LevelError(
                f"annotation {AFFINITY_CONFIG}: no {key} (levels must be continuous from level1; "
                f"keys: {sorted(blocks)})"
            )
        nodes = blocks[key]
        above = levels[-1].nodes
        if nodes <= 0 or above % nodes:
            raise LevelError(
                f"annotation {AFFINITY_CONFIG}: {key}={nodes} does not divide the level above it "
                f"({above} nodes)"
            )
        levels.append(TaskLevel(key, nodes))
    levels.append(TaskLevel(NODE_LEVEL, 1))
    return levels


def trim_levels(levels: list[ResourceLevel], count: int) -> list[ResourceLevel]:
    """The lowest ``count - 1`` levels under the tree level (``removeRedundantLayers``)."""
    if len(levels) == count:
        return list(levels)
    kept = list(levels[len(levels) - count + 1 :])
    return [ResourceLevel(TREE, TOPO_TREE_LABEL), *kept]


def level1_size(task_levels: list[TaskLevel]) -> int:
    """Nodes per level-1 group (1 when the job has no level1)."""
    for level in task_levels:
        if level.name == f"{LEVEL_PREFIX}1":
            return level.nodes
    return 1
