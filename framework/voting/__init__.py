"""How the answers of several plugins combine into one: the tier-voting rules.

Every extension point of the session is combined by exactly one of these rules. Plugins are
always consulted tier by tier, in conf order inside a tier, and only when their enable flag is on
and they registered the function; each rule receives those functions already grouped by tier.

==========================  =========================================================  ==================
rule (module)               extension points                                           Go original
==========================  =========================================================  ==================
all_must_pass               predicate, pre_predicate, simulate_predicate,               PredicateFn …
                            simulate_add_task, simulate_remove_task
sum_of_scores               node_order, batch_node_order, node_order_map/reduce         NodeOrderFn …
first_nonzero               job_order, queue_order, task_order, victim_queue_order,     JobOrderCompareFn …
                            cluster_order, sub_job_order
tier_intersection           preemptable, reclaimable, unified_evictable                 Preemptable …
tier_vote                   job_pipelined, sub_job_pipelined, job_enqueueable           JobPipelined …
first_tier_decides          job_starving                                                JobStarving
all_true                    job_ready, sub_job_ready, allocatable, preemptive,          JobReady …
                            simulate_allocatable
any_true                    overused                                                    Overused
first_failure               job_valid                                                   JobValid
winner_takes_all            hyper_node_gradient_for_job/_sub_job, target_job,           HyperNodeGradient…
                            best_node (first non-None)
tier_union                  victim_tasks                                                VictimTasks
broadcast                   job_enqueued, reserved_nodes, allocate/deallocate events    JobEnqueued …
==========================  =========================================================  ==================
"""

from .all_must_pass import first_error
from .all_true import all_true
from .any_true import any_true
from .broadcast import broadcast
from .first_failure import first_failure
from .first_nonzero import first_nonzero
from .first_tier_decides import first_tier_decides
from .sum_of_scores import sum_batch_scores, sum_scores
from .tier_intersection import tier_intersection
from .tier_union import tier_union
from .tier_vote import tier_vote
from .winner_takes_all import first_not_none, winner_takes_all

__all__ = [
    "all_true",
    "any_true",
    "broadcast",
    "first_error",
    "first_failure",
    "first_nonzero",
    "first_not_none",
    "first_tier_decides",
    "sum_batch_scores",
    "sum_scores",
    "tier_intersection",
    "tier_union",
    "tier_vote",
    "winner_takes_all",
]
