"""The parts of Kubernetes that create pods: one controller per kind of workload.

A controller creates its pods (and PodGroups) through the simulation, is told when one of its pods
has started (``pod_running``: Running and, with ``startup`` settings, its framework up; the kubelet
decides) and when one is gone (``pod_gone``: evicted, failed, deleted), and
decides what happens next. Pods keep their owner UID and rank across re-creations, so the Ascend
affinity cache can send them back to their node. ``Manifests`` hands Kubernetes / Volcano objects to
the cluster's own controllers (``framework/cache/controllers``), as ``fumarole schedule`` does.
"""

from .base import Controller
from .batch import BatchPod
from .inference import InferenceService
from .manifests import Manifests
from .training import TrainingJob

__all__ = ["BatchPod", "Controller", "InferenceService", "Manifests", "TrainingJob"]
