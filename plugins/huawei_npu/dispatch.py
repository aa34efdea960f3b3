"""Which card policy schedules a job: upstream's selection rules, mapped onto fumarole's policies.

For ``huawei.com/Ascend910`` (and ``huawei.com/npu``) requests, in this order:

1. the PodGroup (or first pod) annotation ``huawei.com/schedule_policy``: ``chip8-node8`` is the
   910B x8 module, ``chip8-node16`` the 910B x16 module, other known values name upstream policies
   (A3, super pods, 4p/1p meshes, soft sharing, multilevel); an unknown value is ignored;
2. a ``huawei.com/npu`` request without a schedule policy has no policy;
3. an ``sp-block`` annotation: the A3 super-pod policy (x8 when the pods' node selector says
   ``accelerator-type: module-a3-8-super-pod``, else x16);
4. the pods' node selector ``accelerator-type``: absent -> the 910 (A) x8 module; a value containing
   ``card`` -> the 910 card policy; otherwise ``huawei.com/Ascend910<value>``, e.g.
   ``module-910b-8`` -> 910B x8, ``module-910b-16`` -> 910B x16, ``module`` -> 910 x8.

``huawei.com/Ascend310P``: label ``duo: "true"`` selects upstream's duo policies
(``npu-310-strategy`` chip / card); anything else is the 310P base policy. ``huawei.com/Ascend310``
and virtual NPUs (``huawei.com/npu-core``, ``huawei.com/Ascend910-<n>c``) name upstream policies
fumarole does not have.

The result is upstream's handler name; the policy whose class declares that ``handler_name``
schedules the job (``policy_index``), so a third party provides, say, the A3 policy by registering a
policy class that declares ``huawei.com/Ascend910module-a3-16``. A job whose handler no policy
declares fails validation (``NotSupportPolicy``).

Spec: upstream ``internal/npu/factory.go`` (``InitPolicyHandler``, ``get910CardHandlerName``,
``init310PCardPolicyHandler``), ``common/util/constants.go``; shared/reference/ascend-npu-plugin.md §2.0.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from fumarole.policies.chips import ASCEND_310, ASCEND_310P, ASCEND_910, NPU

SCHEDULE_POLICY_KEY = "huawei.com/schedule_policy"
SP_BLOCK_KEY = "sp-block"
ACCELERATOR_TYPE = "accelerator-type"
DUO_LABEL = "duo"
STRATEGY_310_LABEL = "npu-310-strategy"
NPU_CORE = "huawei.com/npu-core"
A3_X8_SUPER_POD = "module-a3-8-super-pod"
A3_X16_SUPER_POD = "module-a3-16-super-pod"

MODULE_910 = ASCEND_910 + "module"
MODULE_910B_X8 = ASCEND_910 + "module-910b-8"
MODULE_910B_X16 = ASCEND_910 + "module-910b-16"
CARD_910 = ASCEND_910 + "card"

SCHEDULE_POLICIES: dict[str, str] = {
    "module-a3-16": ASCEND_910 + "module-a3-16",
    "chip1-node2": CARD_910,
    "chip4-node4": ASCEND_910 + "half",
    "chip8-node8": MODULE_910B_X8,
    "chip8-node16": MODULE_910B_X16,
    "chip2-node16": ASCEND_910 + "module-a3-16",
    "chip2-node16-sp": ASCEND_910 + A3_X16_SUPER_POD,
    "chip2-node8": ASCEND_910 + "module-a3-16",
    "chip2-node8-sp": ASCEND_910 + A3_X8_SUPER_POD,
    "chip4-node8": "4p-8",
    "chip4-node16": "4p-16",
    "chip1-node8": "1p-8",
    "chip1-node16": "1p-16",
    "chip8-node8-sp": "8p-8-sp",
    "chip8-node8-ra64-sp": "8p-8-ra64-sp",
    "chip1-softShareDev": "softsharedev",
    "multilevel": "multilevel",
}
"""``huawei.com/schedule_policy`` value -> upstream handler name (``policy910HandlerMap``)."""

_VIRTUAL = re.compile(r"huawei\.com/Ascend(910|310P)-\d+c.*")


def handler_name(
    resource: str, annotations: Mapping[str, str], selector: Mapping[str, str], labels: Mapping[str, str]
) -> str:
    """Upstream's handler name for a job ("" when upstream has none)."""
    if resource == NPU_CORE or _VIRTUAL.fullmatch(resource):
        return "vnpu:" + resource
    if resource in (ASCEND_910, NPU):
        policy = annotations.get(SCHEDULE_POLICY_KEY)
        if resource == NPU and policy is None:
            return ""
        if policy is not None and policy in SCHEDULE_POLICIES:
            return SCHEDULE_POLICIES[policy]
        if SP_BLOCK_KEY in annotations:
            if selector.get(ACCELERATOR_TYPE) == A3_X8_SUPER_POD:
                return ASCEND_910 + A3_X8_SUPER_POD
            return ASCEND_910 + A3_X16_SUPER_POD
        accelerator = selector.get(ACCELERATOR_TYPE)
        if accelerator is None:
            return MODULE_910
        if "card" in accelerator:
            return CARD_910
        return ASCEND_910 + accelerator
    if resource == ASCEND_310P:
        duo = DUO_LABEL if labels.get(DUO_LABEL) == "true" else labels.get(DUO_LABEL, "")
        strategy = labels.get(STRATEGY_310_LABEL, "chip")
        name = resource + duo + strategy
        if name in (ASCEND_310P + "duochip", ASCEND_310P + "duocard"):
            return name
        return ASCEND_310P
    if resource == ASCEND_310:
        return resource + labels.get(STRATEGY_310_LABEL, "chip")
    return ""
