"""``util.ValidateVictims``: would evicting these victims make room for the preemptor?"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from fumarole.framework.api.resource import ZERO

if TYPE_CHECKING:
    from fumarole.framework.api.node_info import NodeInfo
    from fumarole.framework.api.task_info import TaskInfo


def validate_victims(preemptor: TaskInfo, node: NodeInfo, victims: Sequence[TaskInfo]) -> str | None:
    """None when future-idle plus the victims' requests covers the preemptor's request, else the reason."""
    future_idle = node.future_idle()
    for victim in victims:
        future_idle.add(victim.resreq)
    if not preemptor.init_resreq.less_equal(future_idle, ZERO):
        return f"not enough resources: requested <{preemptor.init_resreq}>, but future idle <{future_idle}>"
    return None
