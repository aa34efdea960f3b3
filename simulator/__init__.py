"""Discrete-event simulation (SimPy) of a cluster driven by the real scheduler."""
