"""Sums of resources per group (a queue, the cluster) kept between sessions, equal to the bit to
the sums a session computes from scratch (issue 13: a session open that costs what changed).

The queue-quota plugins (proportion, capacity, overcommit) add every job's (or node's) contribution
into per-queue figures at session open, in the order of ``ssn.jobs`` (``ssn.nodes``). Only the
members that changed since the last session can change those sums, so ``RunningSums`` (kept in a
scheduler-owned object, ``ssn.persistent``) remembers each member's last contribution in integer
form and, at open (``collect``), subtracts the old and adds the new contribution of the members
whose key changed, that appeared or that went away.

Keys. A member's contribution is named by a *key* object, compared by identity: the contribution
itself as the cluster cache's base objects hand it out (``JobInfo.derived`` returns the same object
while the cache's job is unchanged and computes a fresh one otherwise; a frozen node's ``used``
belongs to the cache's node, which is replaced when the node changes). Whatever the key, the sums
are those of the contributions the keys name, so a key that is a fresh object every session only
costs a recomputation. A record holds its key, so the key's identity cannot be reused.

Exactness. A float64 sum depends on the order of its terms, and decisions compare shares. A term
whose amounts are all integers of magnitude <= 2**53 (milli-CPU, bytes, milli-GPU) is kept as
Python ints; while the sum of the absolute values of a group's terms in a dimension is <= 2**53,
every partial sum in any order is an integer float64 represents exactly, so ``float(Σ)`` equals the
sum in session order, bit for bit. A group holding a term that is not such an integer (a quantity
like ``100u`` gives fractions; infinities), or whose absolute sum in some dimension exceeds 2**53,
is *inexact*: ``Totals.resources`` answers None and the caller recomputes that group from scratch,
in session order (tests/plugins/test_running_sums.py pins both).

The scalar names of a sum come in the order ``Resource.add`` gives them (first appearance over the
members in session order, each member's names in its own order); ``max_task_num`` stays 0, as
``Resource.add`` leaves it.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from itertools import chain, compress, count, repeat
from operator import attrgetter, is_not, ne, or_

from fumarole.framework.api.resource import Resource

EXACT_LIMIT = 2**53
"""Integers of at most this magnitude are exact in float64, and so is every sum of them whose
absolute sum stays at most this."""

# one field of a term in integer form: cpu, memory, scalars in order; None when not integral
_Ints = tuple[int, int, tuple[tuple[str, int], ...]]
# a member's contribution from its key
_Fields = Callable[[object], Sequence[Resource]]


def _as_int(value: float) -> int | None:
    """``value`` as an int when it is an integer of magnitude <= 2**53, else None."""
    if isinstance(value, float) and not value.is_integer():  # fractions, inf, nan
        return None
    whole = int(value)
    return whole if -EXACT_LIMIT <= whole <= EXACT_LIMIT else None


def _integral(resource: Resource) -> _Ints | None:
    cpu = _as_int(resource.milli_cpu)
    memory = _as_int(resource.memory)
    if cpu is None or memory is None:
        return None
    scalars: list[tuple[str, int]] = []
    for name, amount in (resource.scalars or {}).items():
        whole = _as_int(amount)
        if whole is None:
            return None
        scalars.append((name, whole))
    return cpu, memory, tuple(scalars)


class _Term:
    """A member's last contribution: its key, its groups, its integer form (None when a field is
    not integral) and its scalar names per field (None when no field has any)."""

    __slots__ = ("groups", "ints", "key", "names")

    def __init__(self, key: object, groups: tuple[Hashable, ...], fields: Sequence[Resource]) -> None:
        self.key = key
        self.groups = groups
        ints: list[_Ints] = []
        exact = True
        for resource in fields:
            found = _integral(resource)
            if found is None:
                exact = False
                break
            ints.append(found)
        self.ints: tuple[_Ints, ...] | None = tuple(ints) if exact else None
        names = tuple(tuple(resource.scalars) if resource.scalars else () for resource in fields)
        self.names: tuple[tuple[str, ...], ...] | None = names if any(names) else None


_NO_TERM = _Term(object(), (), ())
"""The term ``collect`` compares a new member's key and groups with (its key is no one's)."""
_key_of = attrgetter("key")
_groups_of = attrgetter("groups")


class _FieldSum:
    """One field of a group: the integer sums and absolute sums of its exact terms."""

    __slots__ = ("cpu", "cpu_abs", "memory", "memory_abs", "scalars")

    def __init__(self) -> None:
        self.cpu = 0
        self.cpu_abs = 0
        self.memory = 0
        self.memory_abs = 0
        self.scalars: dict[str, list[int]] = {}
        """name -> [sum, absolute sum]"""

    def change(self, ints: _Ints, sign: int) -> None:
        cpu, memory, scalars = ints
        self.cpu += sign * cpu
        self.cpu_abs += sign * abs(cpu)
        self.memory += sign * memory
        self.memory_abs += sign * abs(memory)
        sums = self.scalars
        for name, amount in scalars:
            pair = sums.get(name)
            if pair is None:
                pair = sums[name] = [0, 0]
            pair[0] += sign * amount
            pair[1] += sign * abs(amount)


class _GroupSum:
    """A group's field sums, how many terms it has, how many of them are not integral, and per
    field how many terms name each scalar (names no term has are dropped)."""

    __slots__ = ("fields", "inexact", "members", "names")

    def __init__(self, width: int) -> None:
        self.fields = [_FieldSum() for _ in range(width)]
        self.names: list[dict[str, int]] = [{} for _ in range(width)]
        self.inexact = 0
        self.members = 0

    def change(self, term: _Term, sign: int) -> None:
        self.members += sign
        if term.names is not None:
            for counts, names in zip(self.names, term.names, strict=True):
                for name in names:
                    count = counts.get(name, 0) + sign
                    if count:
                        counts[name] = count
                    else:
                        del counts[name]
        if term.ints is None:
            self.inexact += sign
            return
        for field, ints in zip(self.fields, term.ints, strict=True):
            field.change(ints, sign)

    def ordered(self) -> bool:
        """Whether every field names at most one scalar (its order needs no pass over members)."""
        return all(len(counts) <= 1 for counts in self.names)


class Totals:
    """What one ``collect`` found: the groups in order of first appearance and their sums (read it
    before the next ``collect``)."""

    __slots__ = ("_groups", "_orders", "_sums", "_width")

    def __init__(
        self,
        groups: dict[Hashable, None],
        orders: dict[Hashable, list[dict[str, None]]],
        sums: dict[Hashable, _GroupSum],
        width: int,
    ) -> None:
        self._groups = groups
        self._orders = orders
        self._sums = sums
        self._width = width

    @property
    def groups(self) -> list[Hashable]:
        """The groups holding a member, in order of their first member."""
        return list(self._groups)

    def resources(self, group: Hashable) -> list[Resource] | None:
        """Fresh ``Resource``s (one per field) equal, bit for bit and in scalar order, to adding the
        group's members' contributions in session order to ``Resource()``; None when the group is
        inexact (recompute it). A group without members sums to ``Resource()``s."""
        found = self._sums.get(group)
        if group not in self._groups or found is None:
            return [Resource() for _ in range(self._width)]
        if found.inexact:
            return None
        orders = self._orders.get(group)
        out: list[Resource] = []
        for index, field in enumerate(found.fields):
            if field.cpu_abs > EXACT_LIMIT or field.memory_abs > EXACT_LIMIT:
                return None
            resource = Resource()
            resource.milli_cpu = float(field.cpu)
            resource.memory = float(field.memory)
            names = orders[index] if orders is not None else found.names[index]
            if names:
                scalars: dict[str, float] = {}
                for name in names:
                    amount, absolute = field.scalars[name]
                    if absolute > EXACT_LIMIT:
                        return None
                    scalars[name] = float(amount)
                resource.scalars = scalars
            out.append(resource)
        return out


class RunningSums:
    """Per-group sums of ``width`` resource fields over members, kept between sessions."""

    def __init__(self, width: int) -> None:
        self.width = width
        self._terms: dict[Hashable, _Term] = {}
        self._sums: dict[Hashable, _GroupSum] = {}
        self._last: tuple[Sequence[Hashable], Sequence[object], Sequence[tuple[Hashable, ...]]] = ([], [], [])
        """The last ``collect``'s members, keys and groups (the next one compares its lists with
        these, in C, before looking at any member)."""
        self.last_changed = 0
        """How many members the last ``collect`` (re)computed or dropped (tests, profiling)."""
        self._groups_seen: dict[Hashable, None] | None = None
        """The groups of the last ``collect``'s members in order (the same while its groups are)."""
        self._orders: dict[Hashable, list[dict[str, None]]] | None = None
        """The last ``collect``'s scalar orders (None: none kept): the next one takes them over when its
        members and groups are the same and no changed member's scalar names changed."""
        self._interned: dict[tuple[Hashable, ...], tuple[Hashable, ...]] = {}
        self.generation = 0
        """For a caller that sums per-job terms: the snapshot generation of the session whose jobs the
        last ``collect`` had (the caller sets it; ``Session.job_changes_since`` then tells what
        changed since, for ``collect_changes``)."""

    def interned(self, groups: tuple[Hashable, ...]) -> tuple[Hashable, ...]:
        """The one tuple equal to ``groups`` these sums hand out: give every member of the same groups
        that tuple (no tuple allocated per member and session, and the lists compare by identity)."""
        return self._interned.setdefault(groups, groups)

    def inexact(self, group: Hashable) -> bool:
        """Whether the group holds a member whose contribution is not an exact integer."""
        found = self._sums.get(group)
        return found is not None and found.inexact > 0

    def _apply(self, term: _Term, sign: int) -> None:
        for group in term.groups:
            found = self._sums.get(group)
            if found is None:
                found = self._sums[group] = _GroupSum(self.width)
            found.change(term, sign)
            if not found.members:
                del self._sums[group]

    def _drop(self, member: Hashable) -> bool:
        """Take the member's term out of its groups' sums; whether it had one."""
        term = self._terms.pop(member, None)
        if term is None:
            return False
        self._apply(term, -1)
        return True

    def _replace(self, member: Hashable, key: object, groups: tuple[Hashable, ...], fields: _Fields) -> bool:
        """Put the member's new term in place of its old one; whether its scalar names stayed."""
        old = self._terms.get(member)
        if old is not None:
            self._apply(old, -1)
        term = self._terms[member] = _Term(key, groups, fields(key))
        self._apply(term, +1)
        return old is not None and old.names == term.names

    def collect(
        self,
        members: Sequence[Hashable],
        keys: Sequence[object],
        groups: Sequence[tuple[Hashable, ...]],
        fields: _Fields,
    ) -> Totals:
        """Bring the sums up to date with this session's members, in session order.

        ``members[i]`` (each once) has the key ``keys[i]`` and belongs to the groups ``groups[i]``
        (lists the caller does not change afterwards);
        ``fields(key)`` is its contribution (``width`` resources, read only when the key is new). A
        member whose key (by identity) or groups changed is subtracted and added again, a member
        no longer listed is subtracted. When the members and groups are those of the last call, only
        the keys are compared (``operator.is_not`` mapped in C). A group with two scalar names or
        more in a field takes a pass over its members for the order of its names."""
        last_members, last_keys, last_groups = self._last
        changed = 0
        same_names = False
        same_groups = groups == last_groups
        if same_groups and members == last_members:
            same_names = True
            for index in compress(count(), map(is_not, keys, last_keys)):
                changed += 1
                if not self._replace(members[index], keys[index], groups[index], fields):
                    same_names = False
        else:
            if not len(members) == len(keys) == len(groups):
                raise ValueError("collect: members, keys and groups differ in length")
            terms = self._terms
            # each member's last term (a stand-in for a new one), compared in C: key by identity,
            # groups by equality
            found = list(map(terms.get, members, repeat(_NO_TERM)))
            differs = map(
                or_,
                map(is_not, keys, map(_key_of, found)),
                map(ne, groups, map(_groups_of, found)),
            )
            for index in compress(count(), differs):
                changed += 1
                self._replace(members[index], keys[index], groups[index], fields)
            if len(terms) != len(members):
                gone = set(terms).difference(members)
                changed += sum(map(self._drop, list(filter(gone.__contains__, terms))))
        self._last = (members, keys, groups)
        self.last_changed = changed
        return self._totals(members, groups, same_groups, same_names)

    def collect_changes(
        self,
        members: Sequence[Hashable],
        keys: Sequence[object],
        groups: Sequence[tuple[Hashable, ...]],
        fields: _Fields,
        changed: Iterable[tuple[Hashable, object, tuple[Hashable, ...]]],
        dropped: Iterable[Hashable],
    ) -> Totals:
        """``collect`` when the caller knows what may differ from the last call's members: ``changed``
        (member, key, groups: each a member of ``members``) and ``dropped`` (members of the last call
        that are not members now); every other member has the key (by identity) and the groups it
        had in the last call. Costs the changed members, but for the groups' order of appearance
        (``dict.fromkeys`` over ``groups``, in C) and the scalar orders of groups naming several."""
        terms = self._terms
        count = 0
        for member, key, where in changed:
            term = terms.get(member)
            if term is not None and term.key is key and term.groups == where:
                continue
            count += 1
            self._replace(member, key, where, fields)
        count += sum(map(self._drop, dropped))
        self._last = (members, keys, groups)
        self.last_changed = count
        return self._totals(members, groups, False, False)

    def _totals(
        self,
        members: Sequence[Hashable],
        groups: Sequence[tuple[Hashable, ...]],
        same_groups: bool,
        same_names: bool,
    ) -> Totals:
        """The totals of the members now summed: the groups in order of appearance (kept when
        ``same_groups``) and the scalar orders (kept when ``same_names``)."""
        if not same_groups or self._groups_seen is None:
            self._groups_seen = dict.fromkeys(chain.from_iterable(groups))
        groups_seen = self._groups_seen
        if same_names and self._orders is not None:
            # the same members in the same groups with the same scalar names in the same order: the
            # first appearance of each name is where it was
            return Totals(groups_seen, self._orders, self._sums, self.width)
        orders: dict[Hashable, list[dict[str, None]]] = {
            group: [{} for _ in range(self.width)] for group in groups_seen if not self._sums[group].ordered()
        }
        self._orders = orders
        if orders:
            # names still to place: the pass stops once every name of every such group is placed
            missing = sum(len(counts) for group in orders for counts in self._sums[group].names)
            terms = self._terms
            for member, where in zip(members, groups, strict=True):
                names = terms[member].names
                if names is None:
                    continue
                for group in where:
                    order = orders.get(group)
                    if order is None:
                        continue
                    for field_order, field_names in zip(order, names, strict=True):
                        for name in field_names:
                            if name not in field_order:
                                field_order[name] = None
                                missing -= 1
                if not missing:
                    break
        return Totals(groups_seen, orders, self._sums, self.width)
