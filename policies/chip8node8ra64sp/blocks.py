"""The block sizes of a chip8node8ra64sp job, and why a job's blocks are invalid.

What it decides (upstream ``ValidNPUJob``, in its order):

* ``sp-block`` (NPUs per logical super pod; default the job's NPU total): positive; below 8 it is one
  node, else a multiple of 8 giving ``spBlock = sp-block / 8`` nodes; the job's pod count is a
  multiple of ``spBlock``;
* ``super-pod-size`` (init-params, default 48): in [1, 1024] and at least ``spBlock``;
* ``ra-block`` (NPUs per rack block; the old key ``tp-block`` is read when ``ra-block`` is absent;
  default 8): a power of two in [1, 64]; ``tpBlock = (ra-block + 7) / 8`` nodes, at most
  ``spBlock``, dividing the pod count and ``spBlock``;
* the job's NPU total: for one pod, 1..8 and equal to ``sp-block``; for several, a multiple of
  ``sp-block`` and of ``ra-block``, every pod asking for 8.

Spec: shared/reference/ascend-npu-plugin.md §2.7, §5; upstream ``chip8node8ra64sp/job.go``.
Deliberate difference: the UB-memory scene (``huawei.com/schedule_ubmemory``) is not supported: such
a job is refused with a reason.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

NODE_NPU = 8
RACK_NPU = 64
MAX_SUPER_POD_NPU = 8192
DEFAULT_SUPER_POD_SIZE = 48
SP_BLOCK = "sp-block"
RA_BLOCK = "ra-block"
TP_BLOCK = "tp-block"
SUPER_POD_SIZE = "super-pod-size"
UB_MEMORY = "huawei.com/schedule_ubmemory"


class BlockError(ValueError):
    """An invalid block configuration; the text names the annotation or parameter and its value."""


@dataclass(frozen=True)
class Blocks:
    pods: int
    sp_block: int
    tp_block: int
    super_pod_size: int


def _integer(name: str, raw: object) -> int:
    try:
        return int(str(raw))
    except ValueError:
        raise BlockError(f"{name} must be an integer, not {raw!r}") from None


def blocks_of(
    annotations: Mapping[str, str], requests: Sequence[int], settings: Mapping[str, object]
) -> Blocks:
    """The job's blocks in nodes from its annotations, its pods' NPU requests and init-params."""
    pods = len(requests)
    total = sum(requests)
    if annotations.get(UB_MEMORY) == "true":
        raise BlockError(f"annotation {UB_MEMORY}=true (UB-memory scene) is not supported by fumarole")
    sp_npu = _integer(f"annotation {SP_BLOCK}", annotations.get(SP_BLOCK, total))
    if sp_npu <= 0:
        raise BlockError(f"annotation {SP_BLOCK}={sp_npu} is invalid")
    if sp_npu < NODE_NPU:
        sp_block = 1
    elif sp_npu % NODE_NPU:
        raise BlockError(f"annotation {SP_BLOCK}={sp_npu} is not a multiple of the node's {NODE_NPU} NPUs")
    else:
        sp_block = sp_npu // NODE_NPU
    if pods % sp_block:
        raise BlockError(f"the job's {pods} pods are not a multiple of the sp-block size {sp_block} nodes")
    raw_size = settings.get(SUPER_POD_SIZE)
    size = (
        DEFAULT_SUPER_POD_SIZE
        if raw_size in (None, "")
        else _integer(f"init-params {SUPER_POD_SIZE}", raw_size)
    )
    if size <= 0 or size * NODE_NPU > MAX_SUPER_POD_NPU:
        raise BlockError(f"init-params {SUPER_POD_SIZE}={size} must be in [1,1024]")
    if sp_block > size:
        raise BlockError(f"sp-block {sp_npu}/8={sp_block} nodes is bigger than {SUPER_POD_SIZE}={size}")
    ra_npu = _integer(
        f"annotation {RA_BLOCK}", annotations.get(RA_BLOCK, annotations.get(TP_BLOCK, NODE_NPU))
    )
    if not 1 <= ra_npu <= RACK_NPU or ra_npu & (ra_npu - 1):
        raise BlockError(f"annotation {RA_BLOCK}={ra_npu} must be a power of 2 in [1,{RACK_NPU}]")
    tp_block = (ra_npu + NODE_NPU - 1) // NODE_NPU
    if tp_block > sp_block:
        raise BlockError(f"{RA_BLOCK} {ra_npu}/8 is bigger than {SP_BLOCK} {sp_npu}/8")
    if pods % tp_block:
        raise BlockError(
            f"the job's {pods} pods are not a multiple of the {tp_block} nodes of {RA_BLOCK} {ra_npu}"
        )
    if sp_block % tp_block:
        raise BlockError(f"{SP_BLOCK} {sp_npu}/8 is not a multiple of {RA_BLOCK} {ra_npu}/8")
    if pods == 1:
        if not 1 <= total <= NODE_NPU or total != sp_npu:
            raise BlockError(
                f"a one-pod job must ask for 1..8 NPUs equal to {SP_BLOCK} "
                f"({total} asked, {SP_BLOCK}={sp_npu})"
            )
    else:
        if total % sp_npu or total % ra_npu:
            raise BlockError(
                f"the job's {total} NPUs are not a multiple of {SP_BLOCK} {sp_npu} and {RA_BLOCK} {ra_npu}"
            )
        if any(request != NODE_NPU for request in requests):
            raise BlockError(f"every pod of a distributed job must ask for {NODE_NPU} NPUs")
    return Blocks(pods, sp_block, tp_block, size)
