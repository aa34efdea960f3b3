"""The StatefulSet controller: a StatefulSet's missing pods ``<statefulset>-<ordinal>``.

Upstream: kubernetes ``pkg/controller/statefulset/stateful_set_control.go`` (``updateStatefulSet``:
the ordinals ``0 … replicas-1``) and ``stateful_set_utils.go`` (``newStatefulSetPod``: name
``<set>-<ordinal>``, labels ``statefulset.kubernetes.io/pod-name``, ``apps.kubernetes.io/pod-index``
and ``controller-revision-hash``).

* ``podManagementPolicy: OrderedReady`` (the default): pods are created one at a time, in ordinal
  order; ordinal ``i`` waits until every lower ordinal is Running and Ready. In a snapshot with none
  of its pods, only ``<set>-0`` is created; ``fumarole schedule --cycles N`` then creates the next
  one each cycle after the previous one runs. This is why Volcano's documentation asks for
  ``Parallel`` with gang scheduling (a PodGroup with ``minMember`` > 1 would never be complete);
* ``Parallel``: every missing ordinal at once;
* the revision hash is deterministic here (``naming.template_hash``), not Kubernetes' value.

Not modelled: scale-down, updates, ``persistentVolumeClaimTemplates``, hostname / subdomain.
"""

from __future__ import annotations

from ...diagnostics import Code
from ..objects import Pod, StatefulSet
from .base import ControllerContext, is_running_and_ready
from .naming import template_hash
from .replicaset import pod_from_template, warn_if_not_ours

POD_NAME_LABEL = "statefulset.kubernetes.io/pod-name"
POD_INDEX_LABEL = "apps.kubernetes.io/pod-index"
REVISION_LABEL = "controller-revision-hash"


def _ordinals(first: int, last: int, verb: str) -> str:
    """``ordinal 2 waits`` / ``ordinals 1..2 wait``."""
    if first == last:
        return f"ordinal {first} {verb}s"
    return f"ordinals {first}..{last} {verb}"


def reconcile(ctx: ControllerContext) -> None:
    for sts in ctx.objects(StatefulSet):
        if sts.metadata.deletion_timestamp is not None:
            continue
        ordered = sts.spec.pod_management_policy == "OrderedReady"
        revision = None
        namespace = sts.metadata.namespace
        for ordinal in range(sts.spec.replicas):
            name = f"{sts.metadata.name}-{ordinal}"
            existing = ctx.get(Pod, f"{namespace}/{name}")
            if existing is not None:
                if ordered and not is_running_and_ready(existing):
                    if ordinal + 1 < sts.spec.replicas:
                        ctx.diagnostics.add(
                            Code.DEFAULTED,
                            sts.display,
                            f"{sts.display}: podManagementPolicy OrderedReady: pod {name} is not Running "
                            f"and Ready yet: {_ordinals(ordinal + 1, sts.spec.replicas - 1, 'wait')} "
                            "(podManagementPolicy: Parallel creates them at once)",
                        )
                    break
                continue
            if revision is None:
                warn_if_not_ours(ctx, sts, sts.spec.template)
                raw = sts.spec.template.model_dump(mode="json", by_alias=True, exclude_defaults=True)
                revision = f"{sts.metadata.name}-{template_hash(raw)}"
            labels = {POD_NAME_LABEL: name, POD_INDEX_LABEL: str(ordinal), REVISION_LABEL: revision}
            ctx.create(pod_from_template(sts.spec.template, sts, name, ordinal, labels=labels), sts)
            if ordered:
                if ordinal + 1 < sts.spec.replicas:
                    ctx.diagnostics.add(
                        Code.DEFAULTED,
                        sts.display,
                        f"{sts.display}: podManagementPolicy OrderedReady: pod {name} is created; "
                        f"{_ordinals(ordinal + 1, sts.spec.replicas - 1, 'follow')}, each once the pod "
                        "before it is Running and Ready (podManagementPolicy: Parallel creates them at once)",
                    )
                break
