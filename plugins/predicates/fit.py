"""The batch answer of the predicates plugin: every status upstream would give a node, in order.

Upstream's ``Predicate`` may return several statuses for one node (the pod count check does not
stop the filters; NodePorts' Unschedulable does not stop InterPodAffinity). ``PredicateFit``
keeps them all in ``failures`` in upstream order; ``statuses_for`` returns them per row.

The session records every status of a failed row (``statuses_for``), as upstream's FitError does.
``reason_for`` (the single-status view of ``BatchFit``) returns the first status whose code ends the
predicate (UnschedulableAndUnresolvable, Error, Wait, Skip) if there is one, else the first status.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from fumarole.framework.api.batch_fit import BatchFit
from fumarole.framework.api.fit_errors import Code

Failure = tuple[np.ndarray, Code, str]
"""A boolean mask over the asked rows, the status code and the reason of those rows."""

ABORTING_CODES = frozenset({Code.UNSCHEDULABLE_AND_UNRESOLVABLE, Code.ERROR, Code.WAIT, Code.SKIP})
"""Codes for which upstream stops running further filters (``util.ShouldAbort``)."""


@dataclass
class PredicateFit(BatchFit):
    """``BatchFit`` whose rows may carry several statuses (see the module docstring)."""

    def statuses_for(self, position: int) -> list[tuple[Code, str]]:
        """Every status of the row at ``position``, in upstream order (empty when it passed)."""
        return [(code, reason) for mask, code, reason in self.failures if mask[position]]

    def reason_for(self, position: int) -> tuple[Code, str]:
        statuses = self.statuses_for(position)
        for code, reason in statuses:
            if code in ABORTING_CODES:
                return code, reason
        if statuses:
            return statuses[0]
        return self.default_code, self.default_reason
