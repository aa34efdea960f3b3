"""nodeorder: scores nodes with Kubernetes' score plugins, weighted (``plugins/nodeorder/nodeorder.go``).

Registers NodeOrderFn (ImageLocality, node by node) and BatchNodeOrderFn (LeastAllocated,
MostAllocated, BalancedAllocation, NodeAffinity, InterPodAffinity, TaintToleration, columnar over
the candidate rows), both gated by ``enableNodeOrder``. One module per scorer; ``state`` holds the
columnar Kubernetes node view they read, ``plugin`` the plugin and its arguments.
"""

from .plugin import NodeOrderArguments, NodeOrderPlugin, PriorityWeight

__all__ = ["NodeOrderArguments", "NodeOrderPlugin", "PriorityWeight"]
