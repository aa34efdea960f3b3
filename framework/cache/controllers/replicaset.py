"""The ReplicaSet controller: a ReplicaSet's missing pods, from its template.

Upstream: kubernetes ``pkg/controller/replicaset/replica_set.go`` (``manageReplicas``,
``getPodsToCreate``), pods built by ``pkg/controller/controller_utils.go``
(``GetPodFromTemplate``: the template's labels, annotations and spec, a controller reference to the
ReplicaSet, ``generateName: <replicaset>-``).

* active pods = the pods it controls (controller reference with its UID) that are not Succeeded,
  Failed or being deleted; ``spec.replicas`` (default 1) minus their number are created;
* a pod is named ``<replicaset>-<five characters>`` — random in Kubernetes, drawn from the
  ReplicaSet's UID and a counter here (``naming.generated_suffix``): the first name not taken, so a
  pod deleted and re-created gets its old name back (Kubernetes draws a new one);
* the pod gets the API server's defaults (``schedulerName: default-scheduler`` when the template
  has none) and is admitted (``cache/admission``).

Not modelled: scale-down (extra pods are kept), ``minReadySeconds``, the slow-start batches (all
missing pods are created in one sync), ``status``.
"""

from __future__ import annotations

from ...diagnostics import Code
from ..objects import Deployment, KubeObject, Pod, PodTemplateSpec, ReplicaSet
from .base import DEFAULT_SCHEDULER, ControllerContext, child_meta
from .naming import generated_suffix


def pod_from_template(
    template: PodTemplateSpec,
    owner: KubeObject,
    name: str,
    position: int,
    *,
    labels: dict[str, str] | None = None,
    annotations: dict[str, str] | None = None,
) -> Pod:
    """``GetPodFromTemplate``: a Pod named ``name`` from ``template``, controlled by ``owner``."""
    spec = template.spec  # shared with the template and its other pods: never changed in place
    if not spec.scheduler_name:
        spec = spec.model_copy(update={"scheduler_name": DEFAULT_SCHEDULER})
    meta = child_meta(
        owner,
        name,
        position,
        labels={**template.metadata.labels, **(labels or {})},
        annotations={**template.metadata.annotations, **(annotations or {})},
    )
    return Pod(apiVersion=Pod.API_VERSION, kind="Pod", metadata=meta, spec=spec)


def is_active(pod: Pod) -> bool:
    """``controller.IsPodActive``: not Succeeded, not Failed, not being deleted."""
    return pod.status.phase not in ("Succeeded", "Failed") and pod.metadata.deletion_timestamp is None


def warn_if_not_ours(ctx: ControllerContext, workload: KubeObject, template: PodTemplateSpec) -> None:
    """A workload whose pods go to another scheduler: say so (they would vanish from the output)."""
    name = template.spec.scheduler_name or DEFAULT_SCHEDULER
    if not ctx.settings.owns(name):
        why = " (its pod template sets none)" if not template.spec.scheduler_name else ""
        ctx.diagnostics.add(
            Code.POD_LEFT_OUT,
            workload.display,
            f"{workload.display}: its pods have schedulerName {name}{why}, so Volcano does not schedule "
            "them; set spec.template.spec.schedulerName: volcano",
        )


def reconcile(ctx: ControllerContext) -> None:
    for rs in ctx.objects(ReplicaSet):
        if rs.metadata.deletion_timestamp is not None:
            continue
        active = [pod for pod in ctx.owned(rs, "Pod") if is_active(pod)]
        missing = rs.spec.replicas - len(active)
        if missing <= 0:
            continue
        ref = rs.metadata.controller_owner()
        deployment = ctx.get(Deployment, f"{rs.metadata.namespace}/{ref.name}") if ref is not None else None
        warn_if_not_ours(ctx, deployment if deployment is not None else rs, rs.spec.template)
        pods = ctx.stores["Pod"]
        namespace = rs.metadata.namespace
        position = 0
        while missing > 0:
            name = f"{rs.metadata.name}-{generated_suffix(f'{rs.metadata.uid}/{position}')}"
            if f"{namespace}/{name}" not in pods:
                ctx.create(pod_from_template(rs.spec.template, rs, name, position), rs)
                missing -= 1
            position += 1
