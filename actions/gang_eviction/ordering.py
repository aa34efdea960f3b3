"""The order in which victim bundles are taken: one comparator family for both passes and both actions.

Seed 002 (评分与排序策略): safe bundles before whole ones; then the action's policy — gangpreempt is
priority-driven (the victim job the plugins would schedule last goes first: ``job_order`` reversed),
gangreclaim fairness-driven (the victim queue order, ``victim_queue_order``, whose fallback is the
reversed queue order); then efficiency, highest first; then the job UID, the first task's UID and the
number of tasks. The policy key uses the plugins' vote only (``.vote``), without the creation-time and
UID fallbacks of the full orders, so that, as the seed says, efficiency decides the remaining ties
(upstream's ``!JobOrderFn`` is a total order and efficiency never decides between two jobs).

The same comparator sorts the raw bundles (before the eviction filter) and the filtered ones.

Spec: seed 002; upstream ``SortBundlesForPreempt`` / ``SortBundlesForReclaim`` (``actions/utils/bundle.go``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import cmp_to_key
from typing import TYPE_CHECKING

from fumarole.framework.voting import UNDECIDED

from .bundles import Bundle

if TYPE_CHECKING:
    from fumarole.framework.api.resource import Resource
    from fumarole.framework.session import Session

PolicyOrder = Callable[[Bundle, Bundle], int]
"""< 0: the left bundle is evicted first; 0: the policy has no preference."""


def victim_job_order(ssn: Session) -> PolicyOrder:
    """gangpreempt: the job the plugins would schedule last is evicted first."""

    def compare(left: Bundle, right: Bundle) -> int:
        if left.job.uid == right.job.uid:
            return 0
        vote = ssn.job_order.vote(left.job, right.job)
        return 0 if vote is UNDECIDED else -vote

    return compare


def victim_queue_order(ssn: Session, preemptor_queue: str) -> PolicyOrder:
    """gangreclaim: the victim queue order towards the reclaimer's queue, else the reversed queue order."""
    queues = ssn.queues
    mine = queues.get(preemptor_queue)

    def compare(left: Bundle, right: Bundle) -> int:
        lq, rq = queues.get(left.job.queue), queues.get(right.job.queue)
        if lq is None or rq is None or lq.uid == rq.uid:
            return 0
        if mine is not None:
            vote = ssn.victim_queue_order.vote(lq, rq, mine)
            if vote is not UNDECIDED:
                return vote
        order = ssn.queue_order.vote(lq, rq)
        return 0 if order is UNDECIDED else -order

    return compare


def sort_bundles(bundles: Iterable[Bundle], need: Resource, policy: PolicyOrder) -> list[Bundle]:
    """Safe before whole, then the policy, then efficiency (highest first), then the stable tie-breaks."""
    items = list(bundles)
    efficiency = {id(bundle): bundle.efficiency(need) for bundle in items}

    def compare(left: Bundle, right: Bundle) -> int:
        if left.kind != right.kind:
            return -1 if left.kind < right.kind else 1
        decided = policy(left, right)
        if decided:
            return decided
        le, re = efficiency[id(left)], efficiency[id(right)]
        if le != re:
            return -1 if le > re else 1
        lt, rt = left.sort_tie(), right.sort_tie()
        return -1 if lt < rt else (1 if lt > rt else 0)

    return sorted(items, key=cmp_to_key(compare))
