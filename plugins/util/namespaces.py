"""The labels of a namespace, as the plugins see it.

fumarole reads no Namespace objects: every namespace is taken to exist and to carry only the label
``kubernetes.io/metadata.name: <name>``, which Kubernetes sets on every namespace. A term's
``namespaceSelector`` (pod affinity in ``predicates``, preferred pod affinity in ``nodeorder``) is
evaluated against these labels, so ``matchLabels: {kubernetes.io/metadata.name: a}`` selects
namespace ``a`` and ``{}`` selects every namespace.
"""

from __future__ import annotations

NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name"


def namespace_labels(namespace: str) -> dict[str, str]:
    """The labels fumarole assumes a namespace has."""
    return {NAMESPACE_NAME_LABEL: namespace}
