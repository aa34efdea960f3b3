"""When Python's cyclic garbage collector runs while fumarole loads a cluster and schedules it.

Loading a snapshot builds millions of small objects (dicts, strings, models) that hold no reference
cycles: the cyclic collector cannot free any of them, but each of its runs walks them, and a full
run walks all of them; at 5,000 nodes and 50,000 pods it took more than half of a load. So:

* ``collector_paused()`` pauses the collector around a bulk build (the library does this itself
  while reading a file: ``cache.codec.parse_text``) and restores the state it found; reference
  counting still frees everything as usual.
* ``freeze()`` and ``tune_for_cycles()`` are for programs, never for a library (they change the
  process's collector for good). ``freeze()`` moves every object to the collector's permanent
  generation (``gc.freeze``): later collections walk only what is created after it, not the whole
  cluster; loading leaves no garbage in cycles, so nothing is collected first.
  ``tune_for_cycles()`` raises the youngest generation's threshold from 700 to 10,000 allocations:
  a cycle allocates hundreds of thousands of objects that live as long as its session, and with the
  default each of them was walked by several young collections (at 1,000 nodes / 10,000 pods the
  collector took 28 % of a cycle's CPU, about 10 % with this threshold).
  ``fumarole schedule`` and ``fumarole simulate`` load with the collector paused, then freeze and
  tune; ``fumarole schedule`` also has the cache build its jobs and nodes before freezing
  (``ClusterCache.prepare``), else the first snapshot builds them after the freeze and every full
  collection walks them (at 10,000 nodes and 100,000 pods, 1.2-1.8 s in one cycle of eight).

Nothing here runs at import: importing fumarole never changes the collector's settings.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the cyclic collector for the block (it was paused already: leave it so)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def freeze() -> None:
    """Move every object the collector tracks to its permanent generation; for programs only."""
    gc.freeze()


CYCLE_THRESHOLDS = (10_000, 10, 10)
"""``gc.set_threshold`` while cycles run: youngest generation 10,000 allocations (Python's default
700); the older generations keep their defaults."""


def tune_for_cycles() -> None:
    """Set the collector's thresholds for scheduling cycles (``CYCLE_THRESHOLDS``); programs only."""
    gc.set_threshold(*CYCLE_THRESHOLDS)
