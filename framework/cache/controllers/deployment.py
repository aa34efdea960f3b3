"""The Deployment controller: a Deployment's ReplicaSet.

Upstream: kubernetes ``pkg/controller/deployment/sync.go`` (``getNewReplicaSet``) and
``util/deployment_util.go`` (``SetNewReplicaSetAnnotations``, ``copyDeploymentAnnotationsToReplicaSet``).

A Deployment that controls no ReplicaSet gets one (its pods come from the ReplicaSet controller,
``replicaset.py``):

* name ``<deployment>-<pod-template-hash>``; the hash is deterministic here but not Kubernetes'
  value (``naming.template_hash``);
* the template gets the label ``pod-template-hash``, the selector ``matchLabels`` too; the
  ReplicaSet's labels are the template's;
* the Deployment's annotations are copied, except ``kubectl.kubernetes.io/last-applied-configuration``
  and ``deployment.kubernetes.io/*``, plus ``deployment.kubernetes.io/revision: "1"`` — so
  ``scheduling.volcano.sh/group-min-member`` on a Deployment reaches the PodGroup controller through
  its ReplicaSet, as in a cluster;
* ``spec.replicas`` = the Deployment's.

A Deployment that already controls a ReplicaSet (a ``kubectl get all`` dump) is left as it is:
rollouts (a new ReplicaSet when the template changes), scaling of old ReplicaSets and the
strategy are not modelled.
"""

from __future__ import annotations

from ..objects import Deployment, LabelSelectorModel, ReplicaSet, WorkloadSpec
from .base import ControllerContext, child_meta
from .naming import template_hash

POD_TEMPLATE_HASH = "pod-template-hash"
REVISION_ANNOTATION = "deployment.kubernetes.io/revision"
_NOT_COPIED = ("kubectl.kubernetes.io/last-applied-configuration",)


def _copied(annotations: dict[str, str]) -> dict[str, str]:
    return {
        key: value
        for key, value in annotations.items()
        if key not in _NOT_COPIED and not key.startswith("deployment.kubernetes.io/")
    }


def new_replica_set(deployment: Deployment) -> ReplicaSet:
    spec = deployment.spec
    template_raw = spec.template.model_dump(mode="json", by_alias=True, exclude_defaults=True)
    hash_value = template_hash(template_raw)
    labels = {**spec.template.metadata.labels, POD_TEMPLATE_HASH: hash_value}
    template = spec.template.model_copy(
        update={"metadata": spec.template.metadata.model_copy(update={"labels": labels})}
    )
    if spec.selector is not None:
        match_labels = {**spec.selector.match_labels, POD_TEMPLATE_HASH: hash_value}
        selector = spec.selector.model_copy(update={"match_labels": match_labels})
    else:
        selector = LabelSelectorModel(matchLabels={POD_TEMPLATE_HASH: hash_value})
    meta = child_meta(
        deployment,
        f"{deployment.metadata.name}-{hash_value}",
        0,
        labels=labels,
        annotations={**_copied(deployment.metadata.annotations), REVISION_ANNOTATION: "1"},
    )
    return ReplicaSet(
        apiVersion=ReplicaSet.API_VERSION,
        kind="ReplicaSet",
        metadata=meta,
        spec=WorkloadSpec(replicas=spec.replicas, selector=selector, template=template),
    )


def reconcile(ctx: ControllerContext) -> None:
    for deployment in ctx.objects(Deployment):
        if deployment.metadata.deletion_timestamp is not None:
            continue
        if ctx.owned(deployment, "ReplicaSet"):
            continue
        ctx.create(new_replica_set(deployment), deployment)
