"""preempt: starving jobs evict lower-priority tasks of their own queue (between jobs, then within a job).

Spec: seed 004 and ``pkg/scheduler/actions/preempt/preempt.go``. ``preempt.py`` holds the phases,
``normal.py`` the default node-by-node eviction, ``topology_aware.py`` the dry-run with reprieve and
candidate scoring, ``arguments.py`` the configuration keys.
"""

from .arguments import PreemptArguments
from .preempt import PreemptAction

__all__ = ["PreemptAction", "PreemptArguments"]
