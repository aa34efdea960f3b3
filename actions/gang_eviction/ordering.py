"""The order in which victim bundles are taken: one comparator family for both passes and both actions.

Seed 002 (评分与排序策略): safe bundles before whole ones; then the action's policy — gangpreempt is
priority-driven (the victim job the plugins would schedule last goes first: ``job_order`` reversed),
gangreclaim fairness-driven (the victim queue order, ``victim_queue_order``, whose fallback is the
reversed queue order); then efficiency, highest first; then the job UID, the first task's UID and the
number of tasks. The policy key uses the plugins' vote only (``.vote``), without the creation-time and
UID fallbacks of the full orders, so that, as the seed says, efficiency decides the remaining ties
(upstream's ``!JobOrderFn`` is a total order and efficiency never decides between two jobs).

The same comparator sorts the raw bundles (before the eviction filter) and the filtered ones.

**Sort keys instead of comparisons** (``sort_bundles_by_key``). Sorting every victim bundle of a
1,000-node cluster with the plugins' votes, once per preemptor, cost most of a gangpreempt cycle. When
every plugin that ``job_order`` consults also gives its order as a number (``job_order_key``: its
vote is the sign of the keys' difference), the vote between two jobs is the comparison of their key
tuples, and the comparator above is the lexicographic order of ``(kind, negated job key,
-efficiency, job UID, first task UID, tasks)``: a strict total order (two bundles of one kind never
share a job), so the sort by that key gives exactly the comparator's order. Keys are asked once per
job and kept until the job's tasks change (``JobInfo.version``; the key contract), efficiencies once
per bundle and need. When a plugin gives no key (huawei-npu's job order, whose pairs may be equal
without being transitive), a key is not a number or is NaN, or an efficiency is NaN, the bundles are
sorted with the comparator, exactly as before; gangreclaim's queue policy always is.

Spec: seed 002; upstream ``SortBundlesForPreempt`` / ``SortBundlesForReclaim`` (``actions/utils/bundle.go``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from functools import cmp_to_key
from typing import TYPE_CHECKING

from fumarole.framework.voting import UNDECIDED
from fumarole.framework.voting.key_tuple import all_sortable

from .bundles import Bundle, NeedKey, need_key

if TYPE_CHECKING:
    from fumarole.framework.api.job_info import JobInfo
    from fumarole.framework.api.resource import Resource
    from fumarole.framework.session import Session

PolicyOrder = Callable[[Bundle, Bundle], int]
"""< 0: the left bundle is evicted first; 0: the policy has no preference."""

PolicyKey = Callable[["JobInfo"], "tuple[float, ...] | None"]
"""The policy as a key of the victim job: a smaller key is evicted first (None: no usable key)."""


class VictimJobKeys:
    """gangpreempt's policy as a key: the negated ``job_order_key`` tuple, asked once per job and kept
    while the job's tasks do not change (``JobInfo.version``), for one run of the action."""

    def __init__(self, ssn: Session) -> None:
        self.ssn = ssn
        self._kept: dict[str, tuple[JobInfo, int, tuple[float, ...] | None]] = {}

    def usable(self) -> bool:
        """Whether every plugin ``job_order`` consults gives a key (the same plugins, same order)."""
        return self.ssn.job_order_key.plugins() == self.ssn.job_order.plugins()

    def __call__(self, job: JobInfo) -> tuple[float, ...] | None:
        kept = self._kept.get(job.uid)
        if kept is not None and kept[0] is job and kept[1] == job.version:
            return kept[2]
        keys = self.ssn.job_order_key(job)
        negated: tuple[float, ...] | None = None
        if all_sortable(keys):
            negated = tuple(-key for key in keys)
        self._kept[job.uid] = (job, job.version, negated)
        return negated


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
    wanted = need_key(need)
    efficiency = {id(bundle): bundle.efficiency(need, wanted) for bundle in items}

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


SortKey = tuple[int, tuple[float, ...], float, tuple[str, str, int]]
"""A bundle's place in the order: kind, policy key, negated efficiency, tie-breaks."""


def bundle_sort_key(bundle: Bundle, need: Resource, wanted: NeedKey, policy: PolicyKey) -> SortKey | None:
    """The bundle's sort key (``wanted``: ``need_key(need)``); None when its job has no usable key
    or its efficiency is NaN."""
    job_key = policy(bundle.job)
    if job_key is None:
        return None
    efficiency = bundle.efficiency(need, wanted)
    if math.isnan(efficiency):
        return None
    return (int(bundle.kind), job_key, -efficiency, bundle.sort_tie())


def sort_bundles_by_key(bundles: Iterable[Bundle], need: Resource, policy: PolicyKey) -> list[Bundle] | None:
    """``sort_bundles``' order from keys (see the module docstring); None when a key is missing or an
    efficiency is NaN (then only the comparator gives today's order)."""
    wanted = need_key(need)
    keyed = []
    for bundle in bundles:
        key = bundle_sort_key(bundle, need, wanted, policy)
        if key is None:
            return None
        keyed.append((key, bundle))
    keyed.sort(key=lambda pair: pair[0])
    return [bundle for _, bundle in keyed]
