"""allocate: place pending tasks, a job at a time, committing a job only when it is ready.

Spec: ``pkg/scheduler/actions/allocate/allocate.go``; see ``allocate.py`` for the algorithm.
"""

from .allocate import AllocateAction, AllocateArguments

__all__ = ["AllocateAction", "AllocateArguments"]
