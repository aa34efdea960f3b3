"""The machinery of an extension point: its declaration, and its registry inside one session.

An ``ExtensionPoint`` is made by the ``extension_point`` decorator from a declaration in
``specs.ExtensionPointSpecs``: the declared method's signature is the plugin function's type, its
docstring is the contract. On a session (a subclass of the specs) the point is a descriptor whose
bound form, ``BoundPoint``, is both the registry and the combined answer::

    ssn.job_ready.register(fn)    # in a plugin's on_session_open: under the plugin's conf name
    ssn.job_ready(job)            # the combined answer: the rule over the enabled functions, by tier,
                                  # or the declared fallback when no plugin decided
    ssn.job_ready.vote(job)       # the rule's answer without the fallback (may be UNDECIDED)

A point may have a batch variant (``@point.batch``): the same function over many rows of the
session's node table. A plugin registers the scalar form, the batch form or both (then they must
agree); the session uses whichever fits the question and adapts the other, so both forms of every
plugin combine through the one rule.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Concatenate, Generic, ParamSpec, Protocol, TypeVar, overload

from ..voting import STRICT_TIER_INTERSECTION, TIER_INTERSECTION, UNDECIDED, Undecided, VotingRule
from .flags import Flag

if TYPE_CHECKING:
    from ..conf import Tier

P = ParamSpec("P")
BP = ParamSpec("BP")
R = TypeVar("R")
A = TypeVar("A")
BR = TypeVar("BR")
BA = TypeVar("BA")

Fallback = Callable[..., A]
"""``fallback(session, *args)``: the answer when no plugin decided."""

Adapter = Callable[[Any, Callable[..., Any]], Callable[..., Any]]
"""``adapter(session, fn)``: one form of a plugin function turned into the other."""


class RegistrationError(RuntimeError):
    """A function registered outside a plugin's ``on_session_open`` without naming its plugin."""


class PointHost(Protocol):
    """What a bound point needs from its session."""

    tiers: list[Tier]
    opening_plugin: str | None
    strict_eviction_voting: bool
    __dict__: dict[str, Any]


class ExtensionPoint(Generic[P, R, A]):
    """One extension point: function type, flag(s), voting rule, fallback and contract."""

    def __init__(
        self,
        declaration: Callable[..., Any],
        *,
        go: str,
        flags: tuple[Flag, ...],
        rule: VotingRule[Any],
        fallback: Fallback[A],
        accumulates: bool = False,
    ) -> None:
        self.name: str = declaration.__name__
        self.accumulates = accumulates
        """A plugin may register several functions (Volcano's ``AddEventHandler`` appends)."""
        self.go = go
        self.flags = flags
        self.rule = rule
        self.fallback = fallback
        self.doc = inspect.cleandoc(declaration.__doc__ or "")
        self.signature = _signature(declaration)
        self.batch_variant: BatchVariant[Any, Any, Any] | None = None

    def batch(
        self,
        *,
        combine: Callable[..., BA],
        to_batch: Adapter,
        to_scalar: Adapter,
    ) -> Callable[[Callable[Concatenate[Any, BP], BR]], BatchVariant[BP, BR, BA]]:
        """Declare the batch variant of this point (decorator, like the point itself).

        ``combine(session, tiers, *args)`` applies the point's rule to batch answers; ``to_batch`` and
        ``to_scalar`` turn a plugin's one form into the other.
        """

        def declare(declaration: Callable[Concatenate[Any, BP], BR]) -> BatchVariant[BP, BR, BA]:
            variant: BatchVariant[BP, BR, BA] = BatchVariant(
                declaration, self, combine=combine, to_batch=to_batch, to_scalar=to_scalar
            )
            self.batch_variant = variant
            return variant

        return declare

    def enabled_in(self, option_flags: Callable[[Flag], bool]) -> bool:
        """Whether a plugin whose flags answer ``option_flags`` is consulted for this point."""
        return not self.flags or any(option_flags(flag) for flag in self.flags)

    @overload
    def __get__(self, host: None, owner: type) -> ExtensionPoint[P, R, A]: ...

    @overload
    def __get__(self, host: PointHost, owner: type) -> BoundPoint[P, R, A]: ...

    def __get__(self, host: PointHost | None, owner: type) -> ExtensionPoint[P, R, A] | BoundPoint[P, R, A]:
        if host is None:
            return self
        bound: BoundPoint[P, R, A] = BoundPoint(self, host)
        host.__dict__[self.name] = bound  # later lookups find the bound point directly
        return bound

    def __repr__(self) -> str:
        return f"<extension point {self.name}>"


class BoundPoint(Generic[P, R, A]):
    """An extension point inside one session: what plugins registered, and the combined answer."""

    def __init__(self, spec: ExtensionPoint[P, R, A], host: PointHost) -> None:
        self.spec = spec
        self.host = host
        self.scalar: dict[str, Callable[P, R]] = {}
        self.more: dict[str, list[Callable[P, R]]] = {}
        self.batch: dict[str, Callable[..., Any]] = {}
        self._resolved: list[list[Callable[P, R]]] | None = None
        self._rule = spec.rule
        if spec.rule is TIER_INTERSECTION and host.strict_eviction_voting:
            self._rule = STRICT_TIER_INTERSECTION

    # ------------------------------------------------------------------ registration
    def register(self, fn: Callable[P, R], *, plugin: str | None = None) -> None:
        """Register ``fn`` for the plugin being opened (or ``plugin``); a second call replaces the first,
        except on a point that accumulates, where it adds."""
        owner = self._owner(plugin)
        if self.spec.accumulates and owner in self.scalar:
            self.more.setdefault(owner, []).append(fn)
        else:
            self.scalar[owner] = fn
        self._changed()

    def _owner(self, plugin: str | None) -> str:
        owner = plugin if plugin is not None else self.host.opening_plugin
        if owner is None:
            raise RegistrationError(
                f"{self.spec.name}: register outside on_session_open must name the plugin (plugin=...)"
            )
        return owner

    def _changed(self) -> None:
        self._resolved = None
        variant = self.spec.batch_variant
        if variant is not None:
            self.host.__dict__.pop(variant.name, None)

    # ------------------------------------------------------------------ what is consulted
    def plugins(self) -> list[list[str]]:
        """Names of the plugins consulted, by tier: registered (either form) and flag on."""
        flags = self.spec.enabled_in
        return [
            [
                option.name
                for option in tier.plugins
                if (option.name in self.scalar or option.name in self.batch) and flags(option.is_enabled)
            ]
            for tier in self.host.tiers
        ]

    def enabled(self) -> list[list[Callable[P, R]]]:
        """The scalar functions consulted, by tier (batch-only plugins adapted)."""
        if self._resolved is None:
            variant = self.spec.batch_variant
            self._resolved = [
                [
                    self.scalar[name]
                    if name in self.scalar
                    else variant.to_scalar(self.host, self.batch[name])
                    for name in tier
                ]
                if variant is not None
                else [fn for name in tier for fn in (self.scalar[name], *self.more.get(name, ()))]
                for tier in self.plugins()
            ]
        return self._resolved

    def __bool__(self) -> bool:
        """Whether any plugin is consulted."""
        return any(self.plugins())

    # ------------------------------------------------------------------ answers
    def vote(self, *args: P.args, **kwargs: P.kwargs) -> A | Undecided:
        """The rule's answer, ``UNDECIDED`` when no plugin decided (no fallback)."""
        answer: A | Undecided = self._rule.combine(self.enabled(), *args, **kwargs)
        return answer

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> A:
        """The combined answer: the rule's, or the declared fallback when no plugin decided."""
        answer = self._rule.combine(self.enabled(), *args, **kwargs)
        if answer is UNDECIDED:
            fallback: A = self.spec.fallback(self.host, *args, **kwargs)
            return fallback
        result: A = answer
        return result

    def __repr__(self) -> str:
        return f"<{self.spec.name}: {self.plugins()}>"


class BatchVariant(Generic[BP, BR, BA]):
    """The batch form of a point: registered and consulted alongside its scalar form."""

    def __init__(
        self,
        declaration: Callable[..., Any],
        base: ExtensionPoint[Any, Any, Any],
        *,
        combine: Callable[..., Any],
        to_batch: Adapter,
        to_scalar: Adapter,
    ) -> None:
        self.name: str = declaration.__name__
        self.base = base
        self.combine = combine
        self.to_batch = to_batch
        self.to_scalar = to_scalar
        self.doc = inspect.cleandoc(declaration.__doc__ or "")
        self.signature = _signature(declaration)

    @overload
    def __get__(self, host: None, owner: type) -> BatchVariant[BP, BR, BA]: ...

    @overload
    def __get__(self, host: PointHost, owner: type) -> BoundBatch[BP, BR, BA]: ...

    def __get__(
        self, host: PointHost | None, owner: type
    ) -> BatchVariant[BP, BR, BA] | BoundBatch[BP, BR, BA]:
        if host is None:
            return self
        base: BoundPoint[Any, Any, Any] = getattr(host, self.base.name)
        bound: BoundBatch[BP, BR, BA] = BoundBatch(self, base)
        host.__dict__[self.name] = bound
        return bound


class BoundBatch(Generic[BP, BR, BA]):
    """The batch form of a point inside one session."""

    def __init__(self, spec: BatchVariant[BP, BR, BA], base: BoundPoint[Any, Any, Any]) -> None:
        self.spec = spec
        self.base = base
        host = base.host
        self._resolved: list[list[Callable[BP, BR]]] = [
            [
                base.batch[name] if name in base.batch else spec.to_batch(host, base.scalar[name])
                for name in tier
            ]
            for tier in base.plugins()
        ]

    def register(self, fn: Callable[BP, BR], *, plugin: str | None = None) -> None:
        """Register the batch form of the plugin's function (see ``BoundPoint.register``)."""
        self.base.batch[self.base._owner(plugin)] = fn
        self.base._changed()

    def enabled(self) -> list[list[Callable[BP, BR]]]:
        """The batch functions consulted, by tier (scalar-only plugins adapted)."""
        return self._resolved

    def __bool__(self) -> bool:
        return bool(self.base)

    def __call__(self, *args: BP.args, **kwargs: BP.kwargs) -> BA:
        """The combined batch answer (the base point's rule, row by row)."""
        answer: BA = self.spec.combine(self.base.host, self._resolved, *args, **kwargs)
        return answer


def extension_point(
    *,
    go: str,
    flag: Flag | tuple[Flag, ...] | None,
    rule: VotingRule[Any],
    fallback: Fallback[A],
    accumulates: bool = False,
) -> Callable[[Callable[Concatenate[Any, P], R]], ExtensionPoint[P, R, A]]:
    """Declare an extension point from a method whose signature and docstring are its contract."""
    flags = () if flag is None else (flag,) if isinstance(flag, Flag) else flag

    def declare(declaration: Callable[Concatenate[Any, P], R]) -> ExtensionPoint[P, R, A]:
        return ExtensionPoint(
            declaration, go=go, flags=flags, rule=rule, fallback=fallback, accumulates=accumulates
        )

    return declare


def constant(value: A) -> Fallback[A]:
    """A fallback that always answers ``value``."""

    def answer(_host: object, *_args: object) -> A:
        return value

    answer.__doc__ = repr(value)
    return answer


def _signature(declaration: Callable[..., Any]) -> str:
    """``(task: TaskInfo, node: NodeInfo) -> FitError | None``, without ``self``."""
    text = str(inspect.signature(declaration)).replace("'", "").replace(", /)", ")")
    return "(" + text.removeprefix("(self, ").removeprefix("(self")


def declared_points(owner: type) -> Sequence[ExtensionPoint[..., Any, Any]]:
    """The extension points a class declares, in declaration order."""
    return [value for value in vars(owner).values() if isinstance(value, ExtensionPoint)]
