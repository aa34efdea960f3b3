"""The enable flags of a plugin's conf entry (``conf.PluginOption``), declared once.

Each flag has Volcano's YAML key (with its inconsistent ``enable``/``enabled`` prefixes), the Go field
it fills and whether ``ApplyPluginConfDefaults`` turns it on when a conf file leaves it out. The
conf model, its defaulting, ``fumarole conf show`` and docs/extension-points.md are derived from
this list; each extension point names the flag(s) that gate it.

``OBSOLETE`` holds the flags' history: the keys earlier releases read and the current one does not
(``enableNamespaceOrder``, dropped in v1.8.0; ``EnabledClusterOrder``, renamed ``enabledClusterOrder``
in v1.16.0). A conf file may still give them: the first is ignored, the second read under its new
name (the conf's author meant the flag, and every release before v1.16 read it so), each with an
``obsolete-key`` warning (``framework.obsolete``). Spec: ``PluginOption`` in
``pkg/scheduler/conf/scheduler_conf.go`` at v1.5.0 to v1.16.0-alpha.1.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..obsolete import ObsoleteKey


@dataclass(frozen=True)
class Flag:
    """One enable flag of ``PluginOption``."""

    key: str
    """The YAML key, exactly as Volcano spells it (``enableJobOrder``, ``enabledVictim``)."""
    go: str
    """The Go field of ``PluginOption`` (``EnabledJobOrder``)."""
    defaulted: bool = True
    """Whether an unset flag becomes true when a conf file is loaded (``ApplyPluginConfDefaults``)."""

    @property
    def field(self) -> str:
        """The Python spelling, accepted as an alias of the YAML key (``enabled_job_order``)."""
        return re.sub(r"(?<!^)(?=[A-Z])", "_", self.go).lower()

    def __str__(self) -> str:
        return self.key


JOB_ORDER = Flag("enableJobOrder", "EnabledJobOrder")
HIERARCHY = Flag("enableHierarchy", "EnabledHierarchy", defaulted=False)
JOB_READY = Flag("enableJobReady", "EnabledJobReady")
JOB_PIPELINED = Flag("enableJobPipelined", "EnabledJobPipelined")
TASK_ORDER = Flag("enableTaskOrder", "EnabledTaskOrder")
PREEMPTABLE = Flag("enablePreemptable", "EnabledPreemptable")
RECLAIMABLE = Flag("enableReclaimable", "EnabledReclaimable")
PREEMPTIVE = Flag("enablePreemptive", "EnablePreemptive")
QUEUE_ORDER = Flag("enableQueueOrder", "EnabledQueueOrder")
CLUSTER_ORDER = Flag("enabledClusterOrder", "EnabledClusterOrder", defaulted=False)
PREDICATE = Flag("enablePredicate", "EnabledPredicate")
BEST_NODE = Flag("enableBestNode", "EnabledBestNode")
NODE_ORDER = Flag("enableNodeOrder", "EnabledNodeOrder")
TARGET_JOB = Flag("enableTargetJob", "EnabledTargetJob")
RESERVED_NODES = Flag("enableReservedNodes", "EnabledReservedNodes")
JOB_ENQUEUED = Flag("enableJobEnqueued", "EnabledJobEnqueued")
VICTIM = Flag("enabledVictim", "EnabledVictim")
JOB_STARVING = Flag("enableJobStarving", "EnabledJobStarving")
OVERUSED = Flag("enabledOverused", "EnabledOverused")
ALLOCATABLE = Flag("enabledAllocatable", "EnabledAllocatable")
HYPER_NODE_ORDER = Flag("enabledHyperNodeOrder", "EnabledHyperNodeOrder")
SUB_JOB_READY = Flag("enabledSubJobReady", "EnabledSubJobReady")
SUB_JOB_PIPELINED = Flag("enabledSubJobPipelined", "EnabledSubJobPipelined")
SUB_JOB_ORDER = Flag("enabledSubJobOrder", "EnabledSubJobOrder")
HYPER_NODE_GRADIENT = Flag("enabledHyperNodeGradient", "EnabledHyperNodeGradient")

FLAGS: tuple[Flag, ...] = tuple(value for value in list(globals().values()) if isinstance(value, Flag))
"""Every flag, in the order of Volcano's ``PluginOption``."""

BY_KEY: dict[str, Flag] = {flag.key: flag for flag in FLAGS}
"""YAML key -> flag."""

BY_NAME: dict[str, Flag] = {**BY_KEY, **{flag.field: flag for flag in FLAGS}}
"""YAML key or Python spelling -> flag."""

OBSOLETE: dict[str, ObsoleteKey] = {
    obsolete.key: obsolete
    for obsolete in (
        ObsoleteKey(
            "enableNamespaceOrder",
            "v1.5.0 to v1.7.x",
            "v1.8.0 removed it with drf's namespace fair share (queues share the cluster instead)",
        ),
        ObsoleteKey(
            "EnabledClusterOrder",
            "v1.5.0 to v1.15.x",
            f"v1.16.0 renamed it {CLUSTER_ORDER.key}",
            renamed_to=CLUSTER_ORDER.key,
        ),
    )
}
"""YAML keys of flags earlier Volcano releases read -> what became of them."""


def did_you_mean(key: str) -> str:
    """A hint for a misspelt flag: the other prefix (``enabledJobOrder`` -> ``enableJobOrder``)."""
    for wrong, right in (("enabled", "enable"), ("enable", "enabled")):
        if key.startswith(wrong):
            guess = right + key[len(wrong) :]
            if guess in BY_KEY:
                return f"; did you mean {guess}?"
    return ""
