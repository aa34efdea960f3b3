"""Ascend NPU policies used by the ``huawei-npu`` plugin (affinity cache, fault handling, card and
super-pod policies), registered as entry points in the ``fumarole.policies`` group."""
