"""Line numbers of the values in a YAML document, for error messages that point at the line.

``YamlLines.of(text)`` composes the document (no objects built) and ``line(loc)`` walks a location
such as ``("tiers", 0, "plugins", 1, "enableJobOrder")`` down the node tree and returns the 1-based
line of the deepest node found (the key's line for a mapping entry), or None when the text has no such
node. ``offset`` shifts every line, for a document embedded in another (a conf inside a ConfigMap).
"""

from __future__ import annotations

from collections.abc import Sequence

import yaml

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class YamlLines:
    def __init__(self, root: yaml.Node | None, offset: int = 0) -> None:
        self.root = root
        self.offset = offset

    @classmethod
    def of(cls, text: str, offset: int = 0) -> YamlLines:
        try:
            return cls(yaml.compose(text, Loader=_LOADER), offset)
        except yaml.YAMLError:
            return cls(None, offset)

    def node(self, loc: Sequence[object]) -> tuple[yaml.Node | None, yaml.Node | None]:
        """The value node at ``loc`` (or the deepest found) and the key node of its last mapping step."""
        node = self.root
        key_node: yaml.Node | None = None
        for part in loc:
            if isinstance(node, yaml.MappingNode):
                for key, value in node.value:
                    if key.value == str(part):
                        key_node, node = key, value
                        break
                else:
                    return node, key_node
            elif (
                isinstance(node, yaml.SequenceNode) and isinstance(part, int) and 0 <= part < len(node.value)
            ):
                key_node, node = None, node.value[part]
            else:
                return node, key_node
        return node, key_node

    def line(self, loc: Sequence[object]) -> int | None:
        if self.root is None:
            return None
        node, key_node = self.node(loc)
        target = key_node if key_node is not None else node
        if target is None:
            return None
        return target.start_mark.line + 1 + self.offset

    def value_line(self, loc: Sequence[object]) -> int | None:
        """The line where the value at ``loc`` starts (for a block scalar: its first content line)."""
        node, _ = self.node(loc)
        if node is None:
            return None
        line = node.start_mark.line + 1 + self.offset
        if isinstance(node, yaml.ScalarNode) and node.style in ("|", ">"):
            line += 1
        return line
