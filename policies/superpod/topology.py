"""The super-pod topology of a job and of the cluster: a job's ``sp-block`` in nodes, and the
physical super pods (nodes grouped by the ``SuperPodID`` their device info reports).

What it decides:

* ``sp_block_nodes``: how many nodes one logical super pod (a vSuperPod) of the job spans, from the
  ``sp-block`` annotation (NPUs; default: the job's whole request), or why the value is invalid.
  A3 (``Base910A3`` super pod): below the per-node chip count it must equal the job's request and
  means one node; otherwise a multiple of the per-node chip count. chip8node8sp: below 8 it means
  one node (upstream warns and goes on); otherwise a multiple of 8. Both: at most ``super-pod-size``;
* ``physical_super_pods``: physical super-pod ID -> its candidate nodes, in name order (upstream
  iterates a Go map; fumarole orders by node name). Nodes with a negative ID (``-1``: the device
  plugin's "not a super-pod node") are left out.

Spec: upstream ``internal/npu/ascend910/ascend910a3/superpod/frame.go`` (``checkSpBlock``,
``getSuperPodTop``), ``internal/npu/policy/chip8node8sp/frame.go`` (``checkSpBlock``);
shared/reference/ascend-npu-plugin.md §2.5, §2.6 and §5; seed 000 §3.1.3.

Extension points: none (pure functions).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

INVALID_ARGUMENT = "InvalidArgument"
INVALID_RESOURCE_REQUEST = "InvalidResourceRequest"
SP_BLOCK_INVALID = "sp-block is invalid"


def sp_block_nodes(
    sp_block_npu: int, request: int, node_npu: int, super_pod_size: int, small_means_one_node: bool
) -> tuple[int, str, str]:
    """``(nodes, reason, message)``: the sp-block in nodes, or 0 with the validation reason and text.

    ``small_means_one_node``: chip8node8sp's rule (an sp-block below ``node_npu`` is one node);
    without it (A3), such an sp-block must equal the job's request.
    """
    reason = SP_BLOCK_INVALID if small_means_one_node else INVALID_ARGUMENT
    if sp_block_npu <= 0:
        return 0, reason, f"sp-block({sp_block_npu}) is invalid"
    if sp_block_npu < node_npu:
        if not small_means_one_node and sp_block_npu != request:
            return 0, reason, f"sp-block({sp_block_npu}) is not mutiple of node npu ({node_npu})"
        nodes = 1
    else:
        if sp_block_npu % node_npu:
            return 0, reason, f"sp-block({sp_block_npu}) is not mutiple of node npu ({node_npu})"
        nodes = sp_block_npu // node_npu
    if nodes > super_pod_size:
        too_big = SP_BLOCK_INVALID if small_means_one_node else INVALID_RESOURCE_REQUEST
        return (
            0,
            too_big,
            f"sp-block({sp_block_npu}/{node_npu}={nodes}) is bigger than size of super-pod({super_pod_size})",
        )
    return nodes, "", ""


def physical_super_pods(nodes: Iterable[str], super_pod_of: Mapping[str, int]) -> dict[int, list[str]]:
    """Super-pod ID -> its nodes among ``nodes`` (name order); IDs in ascending order."""
    pods: dict[int, list[str]] = {}
    for name in sorted(nodes):
        pod = super_pod_of.get(name, -1)
        if pod < 0:
            continue
        pods.setdefault(pod, []).append(name)
    return dict(sorted(pods.items()))
