"""Helpers shared by actions and plugins: the priority queue."""

from .priority_queue import PriorityQueue

__all__ = ["PriorityQueue"]
