"""Helpers shared by the actions: predicate passes over many nodes, node scoring and selection,
victim validation and its columnar bound (``pkg/scheduler/util/{predicate_helper,scheduler_helper}.go``),
which jobs an action works on, and the arguments' Go booleans and predicate error cache switch."""

from .arguments import GoBool, PredicateErrorCacheArguments, go_bool
from .jobs import admitted_job_queue, sub_job_pipelined, sub_job_ready, valid_job_queue
from .nomination import nominated_node_name, set_nominated_node_name
from .predicate_helper import PredicateHelper, PredicateMode
from .scoring import prioritize_nodes, select_best_node, sort_nodes_by_score, split_by_fit
from .victims import rows_with_room, validate_victims

__all__ = [
    "GoBool",
    "PredicateErrorCacheArguments",
    "PredicateHelper",
    "PredicateMode",
    "admitted_job_queue",
    "go_bool",
    "nominated_node_name",
    "prioritize_nodes",
    "rows_with_room",
    "select_best_node",
    "set_nominated_node_name",
    "sort_nodes_by_score",
    "split_by_fit",
    "sub_job_pipelined",
    "sub_job_ready",
    "valid_job_queue",
    "validate_victims",
]
