"""Multi-level scheduling (``huawei.com/schedule_policy: multilevel``): a job's pods placed on a tree of
network levels (topo tree -> levelK ... level1 -> node), with the two-level return-to-origin
preference of seed 000 §3.1.6.

Modules, one idea each:

* ``levels``: the resource levels (``resource-level-config``) and the task levels
  (``huawei.com/affinity-config``);
* ``trees``: the resource tree built from the nodes' labels, the task tree and rank <-> node;
* ``preference``: which subtrees hold a preferred node, and the positional placement of the free
  sub-tasks (``sortFreeTasksByPreferredRank``);
* ``scheduling``: ``Schedule`` / ``ScheduleWithPreference`` (``traverseSiblings``,
  ``compareSmallerTreeNodes``, the reserved nodes);
* ``rescheduling``: ``Reschedule`` of the largest fault sub-task;
* ``selection``: the job-level decision (``tryScheduleTaskInSingleTree``): reuse, reschedule or
  schedule over every topo tree, with the affinity cache's preferences;
* ``policy``: the card policy the ``huawei-npu`` plugin dispatches ``multilevel`` jobs to.

Spec: seed 000 §2.4.2, §3.1.6, §3.1.9–3.1.11; shared/reference/ascend-npu-plugin.md §2.8, §6.4;
upstream ``component/ascend-for-volcano/internal/npu/policy/multilevelscheduling/`` and
``plugin/supernode.go``.
"""
