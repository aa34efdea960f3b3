"""Ascend NPU policies used by the ``huawei-npu`` plugin.

Modules: ``affinity_cache`` (owner UID -> rank -> node, seed 000 §3.1.10), ``fault`` (node health,
fault records, score penalties), ``card`` (the card policies: 910B x8, 910 A x8, 910B x16, 310P),
``chips`` (chip lists and chip masks).

What they decide and where their spec is: each module's docstring. Extension points: card policies
are entry points of the ``fumarole.policies`` group; the ``huawei-npu`` plugin finds the policy of a
job through the upstream handler name the policy class declares (``handler_name``) and checks every
policy against ``card.contract.CardPolicyContract``, so third parties add policies by registering
classes derived from ``card.base.CardPolicy``.
"""
