"""Transfers sharing links: max-min fair bandwidth for image layers and checkpoint loads.

A *flow* moves a number of bits over one or more *links* (the registry's egress, a node's downlink, a
peer's uplink, the shared storage). At every moment the flows in flight get max-min fair rates
(progressive filling: the most constrained link is shared equally among its flows, those flows are
fixed at that share, the rest of every link goes to the others, and so on), so ``n`` flows through a
registry of ``R`` Gbit/s and otherwise idle nodes each run at ``R / n``. Rates change only when a flow
starts or ends; between those moments each flow advances linearly, and the next end is one timeout.

A finished flow's ``done`` event fires ahead of the other events of that instant (SimPy's URGENT
priority), so a process waiting on it resumes exactly where a plain ``timeout`` of the same length
would have resumed it: with one flow on an unlimited registry the order of events is that of the
simple ``size / bandwidth`` model.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import simpy
from simpy.events import URGENT


@dataclass(eq=False)
class Link:
    name: str
    capacity: float
    """bits per second (``math.inf``: no limit)."""
    flows: int = 0


class _Done(simpy.Event):
    def succeed_first(self) -> None:
        """Trigger now, ahead of the instant's ordinary events (see the module docstring)."""
        self._ok = True
        self._value = None
        self.env.schedule(self, URGENT)


@dataclass(eq=False)
class Flow:
    index: int
    bits: float
    """bits left to move as of ``since``."""
    links: tuple[Link, ...]
    done: simpy.Event
    total: float = 0.0
    rate: float = 0.0
    since: float = 0.0
    token: int = 0
    """Bumped at every new rate: a wake-up planned for an older rate is ignored."""


class Network:
    def __init__(self, env: simpy.Environment) -> None:
        self.env = env
        self._flows: list[Flow] = []
        self._counter = 0

    @property
    def active(self) -> int:
        return len(self._flows)

    def start(self, bits: float, links: tuple[Link, ...]) -> Flow:
        """Start moving ``bits`` over ``links``; ``flow.done`` fires when they have arrived."""
        self._counter += 1
        flow = Flow(self._counter, float(bits), links, _Done(self.env), total=float(bits), since=self.env.now)
        for link in links:
            link.flows += 1
        self._flows.append(flow)
        self._settle([])
        return flow

    def _share(self) -> dict[int, float]:
        """Max-min fair rates by progressive filling (flows in start order, so ties are stable)."""
        rates: dict[int, float] = {}
        left = {id(link): link.capacity for flow in self._flows for link in flow.links}
        unfixed = list(self._flows)
        while unfixed:
            counts: dict[int, int] = {}
            for flow in unfixed:
                for link in flow.links:
                    counts[id(link)] = counts.get(id(link), 0) + 1
            share = min((left[key] / count for key, count in counts.items()), default=math.inf)
            if share == math.inf:
                for flow in unfixed:
                    rates[flow.index] = math.inf
                break
            bottlenecks = {key for key, count in counts.items() if left[key] / count == share}
            still = []
            for flow in unfixed:
                if any(id(link) in bottlenecks for link in flow.links):
                    rates[flow.index] = share
                    for link in flow.links:
                        left[id(link)] = max(0.0, left[id(link)] - share)
                else:
                    still.append(flow)
            unfixed = still
        return rates

    def _settle(self, ended: list[Flow]) -> None:
        """New rates after flows started or ended; a flow whose rate is unchanged keeps its planned
        end (so that a lone flow ends at exactly ``start + bits / rate``); flows with nothing left end
        now, with ``ended``, whose ``done`` events fire in start order."""
        now = self.env.now
        changed: list[Flow] = []
        while True:
            for flow in ended:
                if flow in self._flows:
                    self._flows.remove(flow)
                    for link in flow.links:
                        link.flows -= 1
            rates = self._share()
            drained = []
            for flow in self._flows:
                rate = rates[flow.index]
                if rate == flow.rate:
                    continue
                flow.bits -= flow.rate * (now - flow.since)
                flow.since = now
                flow.rate = rate
                changed.append(flow)
                if flow.bits <= flow.total * 1e-12 or rate == math.inf:
                    drained.append(flow)
            if not drained:
                break
            ended = ended + drained
        for flow in self._flows:
            if flow in changed and flow.rate > 0:
                flow.token += 1
                token = flow.token
                wake = self.env.timeout(flow.bits / flow.rate)
                wake.callbacks.append(lambda _event, flow=flow, token=token: self._wake(flow, token))
        for flow in sorted(set(ended), key=lambda flow: flow.index):
            flow.bits = 0.0
            done = flow.done
            assert isinstance(done, _Done)
            done.succeed_first()

    def _wake(self, flow: Flow, token: int) -> None:
        if token != flow.token or flow not in self._flows:
            return  # its rate changed since this wake-up was planned
        self._settle([flow])
