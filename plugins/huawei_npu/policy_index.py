"""Which card policy schedules a job: the policy whose class declares the job's upstream handler name.

Every policy of the registry (the ``fumarole.policies`` entry points and in-process registrations) is
instantiated once, checked against ``policies.card.contract.CardPolicyContract`` and indexed by its
``handler_name``. A policy that breaks the contract, reports a ``name`` other than its entry-point
name, or declares a handler another policy already declares, is an error naming both; there is no
second table mapping handler names to policies.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fumarole.framework.registry import RegistryError
from fumarole.policies.card.contract import REQUIRED, CardPolicyContract

if TYPE_CHECKING:
    from fumarole.framework.registry import Registry


def index_policies(registry: Registry) -> dict[str, CardPolicyContract]:
    """Upstream handler name -> the policy that declares it."""
    index: dict[str, CardPolicyContract] = {}
    owner: dict[str, str] = {}
    for entry_point, found in registry.policies().items():
        instance: Any = found() if isinstance(found, type) else found
        if not isinstance(instance, CardPolicyContract):
            missing = ", ".join(member for member in REQUIRED if not hasattr(instance, member))
            raise RegistryError(
                f"fumarole.policies: {entry_point!r} is not a card policy (missing {missing})"
            )
        if instance.name != entry_point:
            raise RegistryError(
                f"fumarole.policies: {entry_point!r} reports the name {instance.name!r}: a policy's name "
                "must be its entry-point name"
            )
        handler = instance.handler_name
        if handler in index:
            first = owner[handler]
            raise RegistryError(
                f"fumarole.policies: {entry_point!r} and {first!r} both declare the handler {handler!r}"
            )
        index[handler] = instance
        owner[handler] = entry_point
    return index
