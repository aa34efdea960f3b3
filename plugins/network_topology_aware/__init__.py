"""network-topology-aware: keeps a job's tasks under one hypernode of the network topology.

Spec: ``pkg/scheduler/plugins/network-topology-aware/network_topology_aware.go``. For a job (or
sub-job) with a *hard* network topology (soft ones are turned into hard at the cluster-top tier at
session open) it answers which hypernodes to search, nearest first, and how to rank hypernodes and
nodes. Registers:

* ``hyper_node_gradient_for_job`` / ``hyper_node_gradient_for_sub_job`` (``enabledHyperNodeGradient``):
  ``gradients.py`` — for ``SearchPurpose.ALLOCATE`` the eligible hypernodes by ascending tier, for
  ``SearchPurpose.EVICT`` the same reversed and capped; a job without hard topology gets ``[[hypernode]]``;
* ``hyper_node_order`` (``enabledHyperNodeOrder``): binpack across hypernodes (``scoring.py``);
* batch ``node_order`` (``enableNodeOrder``): nodes near the job's allocated hypernode first, or the
  hypernode-level binpack of pods without network topology;
* an event handler keeping each hypernode's used resources (``resource_cache.py``).

Arguments: see ``arguments.py``. When allocate keeps a ``TopologyExplanation`` on the job, the
job gradient records the hypernodes it leaves out for lack of resources (for the pending reasons).
"""

from .arguments import NetworkTopologyAwareArguments
from .plugin import PLUGIN_NAME, NetworkTopologyAwarePlugin

__all__ = ["PLUGIN_NAME", "NetworkTopologyAwareArguments", "NetworkTopologyAwarePlugin"]
