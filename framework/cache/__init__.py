"""Cluster state across sessions: the Kubernetes object codec, the cache and the in-memory cluster."""

from .cluster_cache import ClusterCache
from .codec import DELETE_ANNOTATION, SnapshotError, parse_text, read_file
from .in_memory import apply_decisions

__all__ = ["DELETE_ANNOTATION", "ClusterCache", "SnapshotError", "apply_decisions", "parse_text", "read_file"]
