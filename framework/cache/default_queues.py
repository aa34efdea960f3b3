"""The queues every Volcano installation has, whether or not a snapshot lists them.

Volcano's scheduler creates them at start-up when they do not exist (``pkg/scheduler/cache/cache.go``
``newDefaultAndRootQueue``, issue11-reference §4):

* ``root``: weight 1, ``reclaimable: false`` — created by every release since v1.11.0, whether or
  not queue hierarchy is used;
* ``default`` (``--default-queue``): weight 1, ``reclaimable: true``.

A snapshot without them (a dump of pods and PodGroups only, a hand-written file) therefore still has
them: a job in queue ``default`` is scheduled, and the capacity plugin's hierarchy has its ``root``.
A queue the snapshot defines is used as it is.

Why ``root`` always, and not only "where hierarchy is enabled": Volcano always creates it, and no
decision depends on an empty ``root`` except where Volcano needs it. ``proportion`` and flat
``capacity`` build queue attributes only for queues with jobs and sum only ``guarantee`` over all
queues (``root`` has none); ``capacity`` with ``enableHierarchy`` requires a ``root`` queue in the
session and otherwise skips the hierarchy (``capacity.go`` ``buildHierarchicalQueueAttrs``), so
without an implicit ``root`` a snapshot that does not list it would not be scheduled as Volcano
schedules it (tests/framework/test_default_queues.py).
"""

from __future__ import annotations

from collections.abc import Mapping

from .objects import Queue

IMPLICIT_QUEUES: dict[str, bool] = {"root": False, "default": True}
"""Name -> ``spec.reclaimable`` of the queues Volcano's scheduler creates (weight 1 both)."""


def implicit_queue(name: str) -> Queue:
    """The queue ``name`` as Volcano's scheduler creates it (then Open, as the queue controller sets it)."""
    return Queue.model_validate(
        {
            "apiVersion": Queue.API_VERSION,
            "kind": "Queue",
            "metadata": {"name": name},
            "spec": {"weight": 1, "reclaimable": IMPLICIT_QUEUES[name]},
            "status": {"state": "Open"},
        }
    )


_IMPLICIT = {name: implicit_queue(name) for name in IMPLICIT_QUEUES}


def with_implicit_queues(queues: Mapping[str, Queue]) -> dict[str, Queue]:
    """The snapshot's queues, then each implicit queue it does not define."""
    out = dict(queues)
    for name, queue in _IMPLICIT.items():
        out.setdefault(name, queue)
    return out


def describe(name: str) -> str:
    """A sentence for the diagnostic when an implicit queue is used."""
    reclaimable = "true" if IMPLICIT_QUEUES[name] else "false"
    return (
        f"Queue {name} is not in the snapshot: it exists implicitly, as Volcano's scheduler creates it "
        f"(weight 1, reclaimable {reclaimable})"
    )
