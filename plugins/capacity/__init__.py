"""capacity: elastic queue quota with capability, deserved and guarantee (Volcano's ``capacity``).

Decides whether a queue may take more (allocatable, preemptive, job_enqueueable), which running
tasks of other queues a reclaimer may take back (reclaimable, unified_evictable), and in which
order queues are served (queue_order; victim_queue_order in hierarchical mode). Flat mode caps a
queue by its ``capability`` and lets others reclaim what it holds above ``deserved`` but never
below ``guarantee``; hierarchical mode (``enableHierarchy: true``) builds a queue tree rooted at
``root`` from ``spec.parent``, allocates only to leaf queues and checks every ancestor too.

Registers (flag in parentheses): queue_order (enableQueueOrder), reclaimable (enableReclaimable),
unified_evictable, preemptive (enablePreemptive), allocatable and simulate_allocatable
(enabledAllocatable), job_enqueueable and job_enqueued (enableJobEnqueued), pre_predicate
(enablePredicate), simulate_add_task / simulate_remove_task (enablePreemptable or
enabledAllocatable), allocate / deallocate event handlers, and victim_queue_order (hierarchical
mode only). Argument: ``ancestorReclaimLevel``; the DRA arguments are accepted and ignored —
fumarole has no DRA (dynamic resource allocation), so DRA quotas are not implemented.

Spec: pkg/scheduler/plugins/capacity/capacity.go (and capacity_test.go) in volcano-sh/volcano.
Modules: ``arguments`` (the arguments model), ``queue_attrs`` (per-queue attributes, flat mode),
``hierarchy`` (the queue tree and its validation), ``victims`` (reclaim victim rules), ``plugin``
(the extension points and the deliberate differences from upstream).
"""

from .plugin import CapacityPlugin, CapacityState

__all__ = ["CapacityPlugin", "CapacityState"]
