"""The equivalence cache of the stable filters (``predicate.CacheEnable``; ``cache.go``).

When enabled, the verdict of the stable filters (NodeUnschedulable, NodeAffinity,
TaintToleration) is remembered per (node, pod template) for the session; the template is the
pod annotation ``volcano.sh/template-uid`` (pods without it are never cached). A remembered
"fits" skips the stable filters; a remembered "does not fit" fails the node with status Error
"plugin equivalence cache predicates failed" instead of the filter's own reason, exactly as
upstream reports it.
"""

from __future__ import annotations

import numpy as np
from fumarole.framework.cache.objects import Pod

TEMPLATE_UID_ANNOTATION = "volcano.sh/template-uid"
REASON = "plugin equivalence cache predicates failed"
UNKNOWN, UNFIT, FIT = -1, 0, 1


def template_uid(pod: Pod | None) -> str:
    if pod is None:
        return ""
    return pod.metadata.annotations.get(TEMPLATE_UID_ANNOTATION, "")


class PredicateCache:
    """Per template: one verdict per node-table row (UNKNOWN, UNFIT or FIT)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._verdicts: dict[str, np.ndarray] = {}

    def verdicts(self, template: str) -> np.ndarray:
        found = self._verdicts.get(template)
        if found is None:
            found = self._verdicts[template] = np.full(self.size, UNKNOWN, dtype=np.int8)
        return found
