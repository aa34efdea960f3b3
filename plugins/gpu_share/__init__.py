"""Per-device GPU sharing (the FGD paper's ``Open-Gpu-Share``): the device model and its plugin.

Weng et al., "Beware of Fragmentation: Scheduling GPU-Sharing Workloads with Fragmentation Gradient
Descent", USENIX ATC '23. See ``devices`` (what a node's devices hold, fit, device choice) and
``plugin`` (``gpu-share``: predicate, allocate / deallocate handlers, ``session_devices``).
"""

from .devices import (
    GPU_COUNT,
    GPU_INDEX,
    GPU_MILLI,
    GPU_MODEL,
    MILLI,
    GpuAnnotationError,
    GpuDevices,
    GpuRequest,
    gpu_request,
)
from .plugin import GpuSharePlugin, session_devices

__all__ = [
    "GPU_COUNT",
    "GPU_INDEX",
    "GPU_MILLI",
    "GPU_MODEL",
    "MILLI",
    "GpuAnnotationError",
    "GpuDevices",
    "GpuRequest",
    "GpuSharePlugin",
    "gpu_request",
    "session_devices",
]
