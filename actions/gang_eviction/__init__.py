"""Gang-aware eviction: the ``gangpreempt`` and ``gangreclaim`` actions (seed 002).

A starving gang evicts **bundles** of victim tasks — a victim job's surplus above its minimum
(breaks no gang) before its core (breaks the gang) — chosen per eviction domain (a hypernode) by
policy and efficiency, filtered once by the plugins' ``unified_evictable``, and kept only if a
placement simulation with allocate's own code says the gang then fits; the victim set is then
reduced to the fewest evictions that work, and the gang's tasks are nominated to the nodes and
hypernode the simulation used, for the next allocate to honour first.

Modules, in the order the action uses them:

* ``action.py``     — the loop over starving jobs and domains, the commit and the nominations;
* ``rules.py``      — what differs between gangpreempt and gangreclaim (victims, queues, order key);
* ``domains.py``    — the eviction domains of a job;
* ``bundles.py``    — a victim job's safe and whole bundles and their efficiency;
* ``victims.py``    — the candidates and bundles of a domain, kept between preemptors (rebuilt
  only for the nodes and jobs that changed);
* ``ordering.py``   — the bundle order (safe first, policy, efficiency, stable ties), by key when
  the policy is one;
* ``selection.py``  — bundles added until a simulation succeeds, then minimal eviction;
* ``simulation.py`` — the dry run of allocate's placement with the victims evicted;
* ``arguments.py``  — ``maxDomains``, ``allowWholeBundle``, ``jobLevelBundles``.

They replace preempt and reclaim: a conf may not list both kinds (``fumarole.framework.conf``).

Spec: seed 002 (``../shared/seeds/002_*``); upstream ``pkg/scheduler/actions/gangpreempt``,
``gangreclaim`` and ``actions/utils``; docs/gang-eviction.md.
"""

from .action import GangEvictionAction, GangPreemptAction, GangReclaimAction

__all__ = ["GangEvictionAction", "GangPreemptAction", "GangReclaimAction"]
