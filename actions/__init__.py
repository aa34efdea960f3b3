"""Volcano's actions: enqueue, allocate, backfill, preempt, reclaim (gangpreempt and gangreclaim, the
gang-aware eviction of seed 002, are not built yet).

Each action is a module (or a package when it has several parts) registered as an entry point in
the ``fumarole.actions`` group under Volcano's name.
"""
