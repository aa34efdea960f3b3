"""Helpers shared by the actions: predicate passes over many nodes, node scoring and selection,
victim validation (``pkg/scheduler/util/{predicate_helper,scheduler_helper}.go``)."""

from .nomination import nominated_node_name, set_nominated_node_name
from .predicate_helper import PredicateHelper, PredicateMode
from .scoring import prioritize_nodes, select_best_node, sort_nodes_by_score, split_by_fit
from .victims import validate_victims

__all__ = [
    "PredicateHelper",
    "nominated_node_name",
    "set_nominated_node_name",
    "PredicateMode",
    "prioritize_nodes",
    "select_best_node",
    "sort_nodes_by_score",
    "split_by_fit",
    "validate_victims",
]
