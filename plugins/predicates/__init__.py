"""Volcano's ``predicates`` plugin: which nodes a task may run on, apart from resources.

Spec: ``pkg/scheduler/plugins/predicates/predicates.go`` (+ ``helper.go``, ``cache.go``) and the
Kubernetes filter plugins it wraps. Registers ``pre_predicate``, ``batch_predicate`` and the
``simulate_*`` functions (flag ``enablePredicate``) and allocate / deallocate event handlers.

One module per filter: ``pod_count``, ``node_unschedulable``, ``node_affinity``,
``taint_toleration``, ``node_ports``, ``pod_affinity``; ``plugin`` wires them together in upstream
order; ``node_columns`` and ``pod_view`` hold the per-session columns and the Kubernetes view of
the pods on each node; ``arguments`` lists every accepted key and which ones have no effect.
"""

from .plugin import PredicatesPlugin

__all__ = ["PredicatesPlugin"]
