"""Card policies of the ``huawei-npu`` plugin: per-node chip topology rules for Ascend cards.

Each policy decides, for a task of a job dispatched to it, which nodes can hold the task (free
healthy chips in the topology the card needs), how the nodes rank, and which chips the task gets.
All policies derive from ``base.CardPolicy``, meet ``contract.CardPolicyContract`` and are entry
points of the ``fumarole.policies`` group; the ``huawei-npu`` plugin picks a job's policy by the
upstream handler name the policy class declares (``handler_name``):

=======================  ==============================================  ======================
entry point              policy                                          upstream handler
=======================  ==============================================  ======================
ascend910b-module-x8     ``module910bx8.Module910bx8Policy``             module-910b-8
ascend910-module-x8      ``module910x8.Module910x8Policy`` (910 A)       module910x8
ascend910b-module-x16    ``module910bx16.Module910bx16Policy``           module910bx16
ascend310p               ``ascend310p.Ascend310PPolicy``                 base (Ascend310P)
=======================  ==============================================  ======================

Extension points: derive from ``base.CardPolicy``, declare ``name`` (the entry-point name) and the
upstream ``handler_name`` the policy schedules (e.g. ``huawei.com/Ascend910module-a3-16``), and
register the class in the ``fumarole.policies`` group.

Spec: upstream ``component/ascend-for-volcano/internal/npu/``; shared/reference/ascend-npu-plugin.md §2.
"""

from .ascend310p import Ascend310PPolicy
from .base import CardPolicy
from .module910bx8 import Module910bx8Policy
from .module910bx16 import Module910bx16Policy
from .module910x8 import Module910x8Policy

__all__ = ["Ascend310PPolicy", "CardPolicy", "Module910bx8Policy", "Module910bx16Policy", "Module910x8Policy"]
