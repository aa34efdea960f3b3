"""Super-pod policies of the ``huawei-npu`` plugin: Atlas 900 A3 super pods and the 850 super pod
(``chip8-node8-sp``), with the two-level return-to-origin preference of seed 000.

A super-pod job is split into logical super pods (vSuperPods) of ``sp-block`` nodes; each vSuperPod
must sit inside one physical super pod (the ``SuperPodID`` the device info reports). One idea per
module:

=================  ==========================================================================
module             decides
=================  ==========================================================================
policies           per-node rules and job validation of the three policies (entry points)
topology           sp-block in nodes; physical super pods from the nodes' SuperPodID
shape              the numbers of one job the selection carries (``JobShape``)
selection          the order of the whole choice (``selectSuperPodForJob``)
fault_job          keep a fault job's vSuperPods in place / in their super pod / per pod
preference         the two-level preference: vSuperPod -> its super pod, rank -> its node
classify           classification by remainder and the greedy fill (the normal path)
infer_service      inference-service affinity (``inferserviceid``)
ranks              rank -> node and the ready-job scores (1e8; 1e8 − rank in batch mode)
=================  ==========================================================================

Spec: seed 000 §2.4.1, §3.1.1, §3.1.3, §3.1.5, §3.1.9–3.1.11; upstream
``internal/npu/ascend910/ascend910a3/superpod/`` and ``internal/npu/policy/chip8node8sp/``;
shared/reference/ascend-npu-plugin.md §2.5, §2.6, §4, §5, §6.3.
"""

from .policies import A3SuperPodX8Policy, A3SuperPodX16Policy, Chip8Node8SpPolicy, SuperPodPolicy

__all__ = ["A3SuperPodX8Policy", "A3SuperPodX16Policy", "Chip8Node8SpPolicy", "SuperPodPolicy"]
