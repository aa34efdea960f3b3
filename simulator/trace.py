"""Alibaba openb GPU-cluster traces (cluster-trace-gpu-v2023) as a workload.

Weng et al., "Beware of Fragmentation: Scheduling GPU-Sharing Workloads with Fragmentation Gradient
Descent", USENIX ATC '23. Files: a node list (``sn,cpu_milli,memory_mib,gpu,model``) and a pod list
(``name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,
scheduled_time``); see shared/data/openb/README.md.

Mapping:

* each node becomes a Node with ``cpu``, ``memory``, ``pods: 110`` and, for GPU nodes, the scalar
  ``alibabacloud.com/gpu-milli`` = GPUs × 1000 (GPU sharing, as the FGD simulator models it) and the
  label ``alibabacloud.com/gpu-card-model``;
* each pod becomes a batch pod arriving at ``creation_time`` that asks for its CPU, memory and
  ``num_gpu × gpu_milli`` GPU milli-units (the pooled total: what every conf accounts for and what
  the GPU allocation ratio counts), and runs for ``deletion_time − scheduled_time`` once running
  (``deletion_time − creation_time`` when the trace never scheduled it); a pod still pending at its
  ``deletion_time`` is withdrawn, whether or not the trace ever ran it;
* a pod asking GPUs also carries its per-device request as the FGD artefact writes it: annotations
  ``alibabacloud.com/gpu-count`` (``num_gpu``), ``alibabacloud.com/gpu-milli`` (``gpu_milli``, on
  each device) and, with a ``gpu_spec``, ``alibabacloud.com/gpu-card-model`` (the models, ``A|B``).
  The ``gpu-share`` plugin reads them: with it in the conf a pod needs ``num_gpu`` devices with
  ``gpu_milli`` free each, on a node of an acceptable model (``plugins/gpu_share``);
* a ``gpu_spec`` naming exactly one model also becomes a node selector on the card-model label, so
  confs without ``gpu-share`` keep that constraint (a list of several models is enforced by
  ``gpu-share`` only: workload pods take one selector);
* one queue ``default``; pods use one zero-size image, so no image is ever pulled.

A row that cannot be used (a number that does not parse, a negative or out-of-range amount) is a
``WorkloadError`` naming the file, the line and the row's name; so is a file that is not UTF-8 text.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

from fumarole.framework.conf import format_validation_error
from fumarole.framework.util.input_text import InputTextError, decode
from pydantic import ValidationError

from .workload import BatchPodSpec, ClusterSpec, ImageSpec, NodeGroup, QueueSpec, Workload, WorkloadError

GPU_MILLI = "alibabacloud.com/gpu-milli"
CARD_MODEL = "alibabacloud.com/gpu-card-model"
GPU_COUNT = "alibabacloud.com/gpu-count"
TRACE_IMAGE = "trace"


def _read(path: Path, required: list[str]) -> list[dict[str, str]]:
    try:
        text = decode(path.read_bytes(), str(path))
    except OSError as exc:
        raise WorkloadError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    except InputTextError as exc:
        raise WorkloadError(str(exc)) from None
    reader = csv.DictReader(io.StringIO(text, newline=""))
    try:
        missing = [column for column in required if column not in (reader.fieldnames or [])]
        if missing:
            raise WorkloadError(f"{path}: missing columns {missing}")
        return list(reader)
    except csv.Error as exc:
        raise WorkloadError(f"{path}: line {reader.line_num}: not CSV: {exc}") from None


def _row(path: Path, line: int, row: dict[str, str], build: Any, **fields: Any) -> Any:
    """``build(**fields)``, a ``ValidationError`` said as a ``WorkloadError`` naming the row."""
    try:
        return build(**fields)
    except ValidationError as exc:
        raise WorkloadError(
            format_validation_error(
                f"{path}: line {line} ({row.get('name') or row.get('sn')})", exc, single_line=True
            )
        ) from None


def load_openb(
    pods_csv: str | Path,
    nodes_csv: str | Path,
    *,
    schedule_period: float = 60.0,
    seed: int = 0,
    horizon: float | None = None,
    conf: str | None = None,
) -> Workload:
    pods_path = Path(pods_csv)
    node_rows = _read(Path(nodes_csv), ["sn", "cpu_milli", "memory_mib", "gpu"])
    pod_rows = _read(pods_path, ["name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli"])
    groups: dict[tuple[str, str, str, str], list[str]] = {}
    for row in node_rows:
        key = (row["cpu_milli"], row["memory_mib"], row["gpu"], row.get("model", ""))
        groups.setdefault(key, []).append(row["sn"])
    node_groups = []
    nodes_path = Path(nodes_csv)
    lines = {row["sn"]: line for line, row in enumerate(node_rows, start=2)}
    for index, ((cpu, memory, gpus, model), names) in enumerate(groups.items()):
        first = {"sn": names[0]}
        resources: dict[str, str | int | float] = {"cpu": f"{cpu}m", "memory": f"{memory}Mi", "pods": "110"}
        labels = {}
        try:
            gpu_count = int(gpus or 0)
        except ValueError as exc:
            raise WorkloadError(f"{nodes_path}: line {lines[names[0]]} ({names[0]}): {exc}") from None
        if gpu_count:
            resources[GPU_MILLI] = str(gpu_count * 1000)
            labels[CARD_MODEL] = model
        group = {"name": f"group{index}", "count": len(names), "names": names}
        node_groups.append(
            _row(nodes_path, lines[names[0]], first, NodeGroup, **group, resources=resources, labels=labels)
        )
    batch = []
    end = 0.0
    for line, row in enumerate(pod_rows, start=2):
        try:
            created = float(row.get("creation_time") or 0)
            deleted = float(row.get("deletion_time") or created + 3600)
            scheduled = row.get("scheduled_time") or ""
            start = float(scheduled) if scheduled else created
            num_gpu = int(row["num_gpu"] or 0)
            per_gpu = int(row["gpu_milli"] or 0)
            gpu_milli = num_gpu * per_gpu
        except ValueError as exc:
            raise WorkloadError(f"{pods_path}: line {line} ({row.get('name')}): {exc}") from None
        extra: dict[str, str | int | float] = {GPU_MILLI: str(gpu_milli)} if gpu_milli else {}
        models = [model for model in (row.get("gpu_spec") or "").split("|") if model]
        selector = {CARD_MODEL: models[0]} if len(models) == 1 else {}
        annotations = {GPU_COUNT: str(num_gpu), GPU_MILLI: str(per_gpu)} if gpu_milli else {}
        if gpu_milli and models:
            annotations[CARD_MODEL] = "|".join(models)
        duration = max(deleted - start, 1.0)
        batch.append(
            _row(
                pods_path,
                line,
                row,
                BatchPodSpec,
                name=row["name"],
                arrival=created,
                duration=duration,
                withdraw_at=deleted,
                image=TRACE_IMAGE,
                cpu=f"{row['cpu_milli']}m",
                memory=f"{row['memory_mib']}Mi",
                extra_resources=extra,
                node_selector=selector,
                annotations=annotations,
            )
        )
        end = max(end, deleted)
    try:
        return Workload(
            seed=seed,
            horizon=horizon if horizon is not None else end + schedule_period,
            schedule_period=schedule_period,
            conf=conf,
            cluster=ClusterSpec(node_groups=node_groups, queues=[QueueSpec(name="default")]),
            images=[ImageSpec(name=TRACE_IMAGE, size_gb=0)],
            batch=batch,
        )
    except ValidationError as exc:
        message = format_validation_error(str(pods_path), exc, single_line=True)
        raise WorkloadError(message.replace(f"{pods_path}: <root>: ", f"{pods_path}: ")) from None
