"""HyperNodes: the network-topology tree over nodes (``pkg/scheduler/api/hyper_node_info.go``).

A HyperNode of tier ``t`` groups nodes (members of type Node, chosen by ``exactMatch``,
``regexMatch`` or ``labelMatch``) or hypernodes of lower tiers (members of type HyperNode, by
``exactMatch``). ``build_topology`` resolves the members into each hypernode's real nodes and
rejects what cannot be a tree: a member hypernode that does not exist, a cycle, a hypernode with two
parents, a node claimed by two hypernodes of the same tier, a child whose tier is not below its
parent's. Every session adds the virtual ``<cluster-top-hypernode>`` above all parent-less
hypernodes with tier = max tier + 1 (1 when there are none), holding every node.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..cache.objects import HyperNode, Node

CLUSTER_TOP_HYPERNODE = "<cluster-top-hypernode>"


class HyperNodeError(ValueError):
    """The hypernode objects do not form a valid tree."""

    def __init__(self, hypernode: str, message: str) -> None:
        self.hypernode = hypernode
        super().__init__(f"HyperNode {hypernode}: {message}")


class HyperNodeInfo:
    __slots__ = ("children", "hyper_node", "name", "parent", "tier", "tier_name")

    def __init__(
        self, name: str, tier: int, tier_name: str = "", hyper_node: HyperNode | None = None
    ) -> None:
        self.name = name
        self.tier = tier
        self.tier_name = tier_name
        self.hyper_node = hyper_node
        self.parent = ""
        self.children: set[str] = set()

    def clone(self) -> HyperNodeInfo:
        twin = HyperNodeInfo(self.name, self.tier, self.tier_name, self.hyper_node)
        twin.parent = self.parent
        twin.children = set(self.children)
        return twin

    def __repr__(self) -> str:
        return f"HyperNode({self.name} tier={self.tier} parent={self.parent or '-'})"


class HyperNodeInfoMap(dict[str, HyperNodeInfo]):
    """Hypernodes by name, with the ancestor queries plugins need."""

    def get_ancestors(self, name: str) -> list[str]:
        """The hypernode itself, then its parent, grand-parent, … (``GetAncestors``)."""
        ancestors = [name]
        current = name
        while True:
            info = self.get(current)
            parent = info.parent if info is not None else ""
            if not parent or parent in ancestors:
                return ancestors
            ancestors.append(parent)
            current = parent

    def get_lca(self, first: str, second: str) -> str:
        """Least common ancestor; an empty argument yields the other (``GetLCAHyperNode``)."""
        if not first:
            return second
        if not second:
            return first
        mine = set(self.get_ancestors(first))
        for ancestor in self.get_ancestors(second):
            if ancestor in mine:
                return ancestor
        return ""

    def clone(self) -> HyperNodeInfoMap:
        return HyperNodeInfoMap({name: info.clone() for name, info in self.items()})


@dataclass
class HyperNodeTopology:
    """The resolved tree: infos, hypernodes per tier, and real node names per hypernode."""

    infos: HyperNodeInfoMap = field(default_factory=HyperNodeInfoMap)
    by_tier: dict[int, set[str]] = field(default_factory=dict)
    real_nodes: dict[str, set[str]] = field(default_factory=dict)

    def tier_names(self) -> dict[str, int]:
        return {info.tier_name: info.tier for info in self.infos.values() if info.tier_name}

    def clone(self) -> HyperNodeTopology:
        return HyperNodeTopology(
            self.infos.clone(),
            {tier: set(names) for tier, names in self.by_tier.items()},
            {name: set(nodes) for name, nodes in self.real_nodes.items()},
        )


def _node_members(hn: HyperNode, nodes: Sequence[Node]) -> set[str]:
    members: set[str] = set()
    for member in hn.spec.members:
        if member.type != "Node":
            continue
        selector = member.selector
        if selector.exact_match is not None:
            if not selector.exact_match.name:
                continue  # upstream GetMembers: an empty exact name selects nothing, whatever else is set
            members.add(selector.exact_match.name)
        if selector.regex_match is not None:
            try:
                pattern = re.compile(selector.regex_match.pattern)
            except re.error as exc:
                raise HyperNodeError(
                    hn.metadata.name,
                    f"spec.members.selector.regexMatch.pattern: invalid regular expression ({exc})",
                ) from exc
            members.update(node.metadata.name for node in nodes if pattern.search(node.metadata.name))
        if selector.label_match is not None:
            label_selector = selector.label_match.to_selector()
            if label_selector.is_empty():
                continue
            members.update(
                node.metadata.name for node in nodes if label_selector.matches(node.metadata.labels)
            )
    return members


def build_topology(hypernodes: Iterable[HyperNode], nodes: Sequence[Node]) -> HyperNodeTopology:
    """Resolve hypernode members into a tree; raise ``HyperNodeError`` on an invalid one."""
    objects = {hn.metadata.name: hn for hn in hypernodes}
    topo = HyperNodeTopology()
    for name, hn in objects.items():
        topo.infos[name] = HyperNodeInfo(name, hn.spec.tier, hn.spec.tier_name, hn)
        topo.by_tier.setdefault(hn.spec.tier, set()).add(name)
    for name, hn in objects.items():
        for member in hn.spec.members:
            if member.type != "HyperNode":
                continue
            exact = member.selector.exact_match
            if exact is None:
                raise HyperNodeError(name, "spec.members: a HyperNode member must use exactMatch")
            child = exact.name
            if child not in objects:
                raise HyperNodeError(name, f"spec.members: member HyperNode {child!r} does not exist")
            info = topo.infos[child]
            if info.parent and info.parent != name:
                raise HyperNodeError(child, f"spec.members: has two parents: {info.parent} and {name}")
            info.parent = name
            topo.infos[name].children.add(child)
    # Cycles: walk up from every hypernode.
    for name in objects:
        seen = [name]
        current = topo.infos[name].parent
        while current:
            if current in seen:
                cycle = " -> ".join([*seen[seen.index(current) :], current])
                raise HyperNodeError(name, f"spec.members: cyclic membership: {cycle}")
            seen.append(current)
            current = topo.infos[current].parent
    for name, info in topo.infos.items():
        for child in info.children:
            if topo.infos[child].tier >= info.tier:
                raise HyperNodeError(
                    name,
                    f"spec.members: member {child} has tier {topo.infos[child].tier}, "
                    f"not below this hypernode's tier {info.tier}",
                )
    # Real nodes, leaves first.
    known_nodes = {node.metadata.name for node in nodes}

    def resolve(name: str) -> set[str]:
        if name in topo.real_nodes:
            return topo.real_nodes[name]
        found = {member for member in _node_members(objects[name], nodes) if member in known_nodes}
        for child in sorted(topo.infos[name].children):
            found |= resolve(child)
        topo.real_nodes[name] = found
        return found

    for name in objects:
        resolve(name)
    for tier, names in topo.by_tier.items():
        owner: dict[str, str] = {}
        for name in sorted(names):
            for node in _node_members(objects[name], nodes):
                if node in owner and owner[node] != name:
                    raise HyperNodeError(
                        name,
                        f"spec.members: node {node} is also a member of HyperNode {owner[node]} "
                        f"in the same tier {tier}",
                    )
                owner[node] = name
    return topo
