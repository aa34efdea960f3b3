"""chip8node8ra64sp (``huawei.com/schedule_policy: chip8-node8-ra64-sp``, "950-SuperPod-Atlas-8"): jobs of
8-NPU nodes placed in sp-blocks inside physical super pods, each sp-block made of tpBlock-aligned
windows taken inside single racks, with the two-level return-to-origin preference of seed 000
§3.1.4.

Modules, one idea each:

* ``blocks``: sp-block / ra-block / super-pod-size validation, the block sizes in nodes;
* ``topology``: super pods and racks from the nodes (device-info ``SuperPodID`` / ``RackID``), the
  super-pod table the strategies search;
* ``strategies``: Rack, SuperPod and MulSuperPods selection (``selectOneSpBlock``) and their chain;
* ``preference``: preferOriginSuperPods (level 1) and the tpBlock window filling (level 2);
* ``policy``: the card policy and its job placement.

Spec: seed 000 §2.4.1, §3.1.4, §3.1.9, §3.1.11; shared/reference/ascend-npu-plugin.md §2.7, §5;
upstream ``component/ascend-for-volcano/internal/npu/policy/chip8node8ra64sp/``.
"""
