"""What the super-pod selection needs to know of a job and of the conf: its ``JobShape``.

What it decides: nothing; it carries one job's numbers through the selection modules (``sp_block``
in nodes, the number of NPU tasks, how many are being scheduled, the conf's ``super-pod-size`` and
``reserve-nodes``, the ``super-pod-affinity: soft`` label) and the two rules where the A3 and
chip8node8sp policies differ (``strict_block``, ``cap_super_pod_size``).

Spec: upstream ``superpod/type.go`` and ``chip8node8sp/type.go``;
shared/reference/ascend-npu-plugin.md §2.5–2.6.
"""

from __future__ import annotations

from dataclasses import dataclass

SelectedPods = dict[str, list[str]]
"""vSuperPod ID ("0", "1", ...) -> its nodes in local-rank order (upstream ``job.SuperPods``)."""

FreePods = dict[int, list[str]]
"""Physical super-pod ID -> its still-free candidate nodes, name order."""


@dataclass(frozen=True)
class JobShape:
    sp_block: int
    npu_task_num: int
    super_pod_size: int
    reserve: int
    soft: bool = False
    scheduling_task_num: int = 0
    task_count: int = 0
    strict_block: bool = False
    """chip8node8sp: a super pod smaller than sp-block gives no node unless the affinity is soft."""
    cap_super_pod_size: bool = False
    """chip8node8sp: a super pod with more candidates than ``super-pod-size`` is a configuration error."""

    @property
    def v_super_pods(self) -> int:
        return self.npu_task_num // self.sp_block if self.sp_block else 0

    @property
    def super_pod_rescheduling(self) -> bool:
        """Part of the job, more than one task, is being scheduled (upstream's super-pod level)."""
        return 1 < self.scheduling_task_num < self.task_count
