"""Builders of GPU-sharing nodes and pods as the FGD artefact annotates them (tests of gpu-share and
the GPU policies)."""

from __future__ import annotations

from typing import Any

from fumarole.testing import build_node, build_pod, build_pod_group, build_queue

GPU_SHARE_CONF = """
actions: allocate
tiers:
- plugins:
  - name: gang
  - name: predicates
  - name: gpu-share
    arguments: {{gpu-share.gpuSelMethod: {selection}}}
{extra}"""


def conf(selection: str = "best", extra: str = "") -> str:
    return GPU_SHARE_CONF.format(selection=selection, extra=extra)


def gpu_node(name: str, gpus: int, model: str = "G2", cpu: str = "32", count_label: bool = True) -> Any:
    resources = {"cpu": cpu, "memory": "256Gi", "pods": "110", "alibabacloud.com/gpu-milli": str(gpus * 1000)}
    if count_label:
        resources["alibabacloud.com/gpu-count"] = str(gpus)
    labels = {"alibabacloud.com/gpu-card-model": model} if model else {}
    return build_node(name, resources, labels=labels)


def gpu_pod(
    name: str,
    milli: int,
    count: int = 1,
    *,
    node: str = "",
    index: str | None = None,
    models: str = "",
    cpu: str = "1",
) -> list[Any]:
    """A one-pod PodGroup and its pod (Running on ``node`` when given)."""
    annotations = {}
    if milli:
        annotations = {"alibabacloud.com/gpu-milli": str(milli), "alibabacloud.com/gpu-count": str(count)}
    if models:
        annotations["alibabacloud.com/gpu-card-model"] = models
    if index is not None:
        annotations["alibabacloud.com/gpu-index"] = index
    return [
        build_pod_group("ns", name, min_member=1),
        build_pod(
            "ns",
            name,
            group=name,
            requests={"cpu": cpu, "memory": "1Gi"},
            annotations=annotations,
            node=node,
            phase="Running" if node else "Pending",
        ),
    ]


def objects(*parts: Any) -> list[Any]:
    out: list[Any] = [build_queue("default")]
    for part in parts:
        if isinstance(part, list):
            out.extend(part)
        else:
            out.append(part)
    return out
