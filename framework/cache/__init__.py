"""Cluster state across sessions: the Kubernetes object codec, the cache, the snapshot a session starts
from, how a decision log is applied, and the in-memory cluster."""

from .cluster_cache import ClusterCache
from .codec import DELETE_ANNOTATION, SnapshotError, parse_text, read_file
from .in_memory import apply_decisions
from .snapshot import ClusterSnapshot, SnapshotSource

__all__ = [
    "DELETE_ANNOTATION",
    "ClusterCache",
    "ClusterSnapshot",
    "SnapshotError",
    "SnapshotSource",
    "apply_decisions",
    "parse_text",
    "read_file",
]
