"""``huawei-npu``: the Huawei Ascend NPU plugin (upstream ``volcano-npu_<version>``).

Modules: ``plugin`` (the Volcano plugin: registrations), ``handler`` (the ``ScheduleHandler`` kept
across sessions: affinity cache, fault records, input caches), ``npu_session`` (one session's
extension-point functions), ``inputs`` (nodes, device-info ConfigMaps, pods), ``node_state`` (chips
of every node, vectorised), ``jobs`` (a job's NPU view), ``dispatch`` (which policy schedules a
job), ``scoring`` (the previous-node preference), ``arguments`` (init-params and the plugin's own
arguments). Policies live in ``fumarole.policies``. See docs/ascend-npu.md.
"""

from .plugin import PLUGIN_NAME, HuaweiNpuPlugin

__all__ = ["PLUGIN_NAME", "HuaweiNpuPlugin"]
