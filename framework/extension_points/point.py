"""The machinery of an extension point: its declaration, and its registry inside one session.

``point(...)`` turns a declaration in ``specs`` into an ``ExtensionPoint``: the declared method's
signature is the plugin function's type, its docstring the contract. On a session the point is a
descriptor whose bound form is both the registry and the combined answer::

    ssn.job_ready.register(fn)    # in a plugin's on_session_open: under the plugin's conf name
    ssn.job_ready(job)            # the rule over the enabled functions, by tier; the declared
                                  # fallback when no plugin decided
    ssn.job_ready.vote(job)       # the rule's answer alone (UNDECIDED when no plugin decided)

A point may have a batch variant (``@point.batch``): the same function over many rows of the node
table. A plugin registers the scalar form, the batch form or both (then they must agree); the
session adapts whichever is missing, so both forms of every plugin combine through the one rule.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
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

Adapter = Callable[[Any, Callable[..., Any]], Callable[..., Any]]
"""``adapter(session, fn)``: a plugin's function in one form turned into the other form."""


class RegistrationError(RuntimeError):
    """A function registered outside a plugin's ``on_session_open`` without naming its plugin."""


class PointHost(Protocol):
    """What a bound point needs from its session."""

    tiers: list[Tier]
    opening_plugin: str | None
    strict_eviction_voting: bool
    __dict__: dict[str, Any]


def _doc(declaration: Callable[..., Any]) -> tuple[str, str, str]:
    signature = str(inspect.signature(declaration)).replace("'", "").replace(", /)", ")")
    signature = "(" + signature.removeprefix("(self, ").removeprefix("(self")
    return declaration.__name__, inspect.cleandoc(declaration.__doc__ or ""), signature


class ExtensionPoint(Generic[P, R, A]):
    """One extension point: function type, flag(s), voting rule, fallback and contract."""

    def __init__(
        self,
        declaration: Callable[..., Any],
        go: str,
        flags: tuple[Flag, ...],
        rule: VotingRule[Any],
        fallback: Callable[..., A],
        accumulates: bool,
    ) -> None:
        self.name, self.doc, self.signature = _doc(declaration)
        self.go, self.flags, self.rule, self.fallback = go, flags, rule, fallback
        self.accumulates = accumulates
        """A plugin may register several functions (Volcano's ``AddEventHandler`` appends)."""
        self.batch_variant: BatchVariant[Any, Any, Any] | None = None

    def batch(
        self, combine: Callable[..., BA], to_batch: Adapter, to_scalar: Adapter
    ) -> Callable[[Callable[Concatenate[Any, BP], BR]], BatchVariant[BP, BR, BA]]:
        """Declare the batch variant: ``combine(session, tiers, *args)`` applies the rule to batch
        answers; ``to_batch`` / ``to_scalar`` turn a plugin's one form into the other."""

        def declare(declaration: Callable[Concatenate[Any, BP], BR]) -> BatchVariant[BP, BR, BA]:
            self.batch_variant = BatchVariant(declaration, self, combine, to_batch, to_scalar)
            return self.batch_variant

        return declare

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


class BoundPoint(Generic[P, R, A]):
    """An extension point inside one session: what plugins registered, and the combined answer."""

    def __init__(self, spec: ExtensionPoint[P, R, A], host: PointHost) -> None:
        self.spec, self.host = spec, host
        self.scalar: dict[str, Callable[P, R]] = {}
        self.more: dict[str, list[Callable[P, R]]] = {}
        self.batch: dict[str, Callable[..., Any]] = {}
        self._resolved: list[list[Callable[P, R]]] | None = None
        self._plugins: list[list[str]] | None = None
        strict = spec.rule is TIER_INTERSECTION and host.strict_eviction_voting
        self._rule: VotingRule[Any] = STRICT_TIER_INTERSECTION if strict else spec.rule
        # the hot path's lookups done once (``__call__`` runs a few hundred thousand times a cycle)
        self._combine: Callable[..., Any] = self._rule.combine
        self._fallback: Callable[..., A] = spec.fallback

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
        self._resolved = self._plugins = None
        if self.spec.batch_variant is not None:
            self.host.__dict__.pop(self.spec.batch_variant.name, None)

    def plugins(self) -> list[list[str]]:
        """Names of the plugins consulted, by tier: registered (either form) and flag on (worked out
        again after a registration only: the tiers and their flags are the session's, fixed; the list is
        shared, read it only)."""
        if self._plugins is None:
            flags = self.spec.flags
            self._plugins = [
                [
                    option.name
                    for option in tier.plugins
                    if (option.name in self.scalar or option.name in self.batch)
                    and (not flags or any(option.is_enabled(flag) for flag in flags))
                ]
                for tier in self.host.tiers
            ]
        return self._plugins

    def enabled(self) -> list[list[Callable[P, R]]]:
        """The scalar functions consulted, by tier (batch-only plugins adapted)."""
        if self._resolved is None:
            variant = self.spec.batch_variant
            self._resolved = [
                [
                    fn
                    for name in tier
                    for fn in (
                        [self.scalar[name], *self.more.get(name, ())]
                        if name in self.scalar
                        else [variant.to_scalar(self.host, self.batch[name])]  # type: ignore[union-attr]
                    )
                ]
                for tier in self.plugins()
            ]
        return self._resolved

    def __bool__(self) -> bool:
        """Whether any plugin is consulted."""
        return any(self.plugins())

    def vote(self, *args: P.args, **kwargs: P.kwargs) -> A | Undecided:
        """The rule's answer, ``UNDECIDED`` when no plugin decided (no fallback)."""
        answer: A | Undecided = self._rule.combine(self.enabled(), *args, **kwargs)
        return answer

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> A:
        """The combined answer: the rule's, or the declared fallback when no plugin decided."""
        tiers = self._resolved
        if tiers is None:
            tiers = self.enabled()
        answer = self._combine(tiers, *args, **kwargs)
        result: A = self._fallback(self.host, *args, **kwargs) if answer is UNDECIDED else answer
        return result

    def __repr__(self) -> str:
        return f"<{self.spec.name}: {self.plugins()}>"


class BatchVariant(Generic[BP, BR, BA]):
    """The batch form of a point: registered and consulted alongside its scalar form."""

    def __init__(
        self,
        declaration: Callable[..., Any],
        base: ExtensionPoint[Any, Any, Any],
        combine: Callable[..., BA],
        to_batch: Adapter,
        to_scalar: Adapter,
    ) -> None:
        self.name, self.doc, self.signature = _doc(declaration)
        self.base, self.combine, self.to_batch, self.to_scalar = base, combine, to_batch, to_scalar

    @overload
    def __get__(self, host: None, owner: type) -> BatchVariant[BP, BR, BA]: ...

    @overload
    def __get__(self, host: PointHost, owner: type) -> BoundBatch[BP, BR, BA]: ...

    def __get__(
        self, host: PointHost | None, owner: type
    ) -> BatchVariant[BP, BR, BA] | BoundBatch[BP, BR, BA]:
        if host is None:
            return self
        bound: BoundBatch[BP, BR, BA] = BoundBatch(self, getattr(host, self.base.name))
        host.__dict__[self.name] = bound
        return bound


class BoundBatch(Generic[BP, BR, BA]):
    """The batch form of a point inside one session."""

    def __init__(self, spec: BatchVariant[BP, BR, BA], base: BoundPoint[Any, Any, Any]) -> None:
        self.spec, self.base = spec, base
        self._resolved: list[list[Callable[BP, BR]]] = [
            [
                base.batch[name] if name in base.batch else spec.to_batch(base.host, base.scalar[name])
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


Declaration = Callable[Concatenate[Any, P], R]
Flags = Flag | tuple[Flag, ...] | None


@overload
def point(
    go: str, flag: Flags, rule: VotingRule[Any], fallback: Callable[..., A], *, accumulates: bool = False
) -> Callable[[Declaration[P, R]], ExtensionPoint[P, R, A]]: ...


@overload
def point(
    go: str, flag: Flags, rule: VotingRule[Any], *, accumulates: bool = False
) -> Callable[[Declaration[P, R]], ExtensionPoint[P, R, R]]: ...


def point(
    go: str,
    flag: Flags,
    rule: VotingRule[Any],
    fallback: Callable[..., Any] | None = None,
    *,
    accumulates: bool = False,
) -> Callable[[Declaration[P, R]], ExtensionPoint[P, R, Any]]:
    """Declare an extension point from a method whose signature and docstring are its contract: ``go``
    is Volcano's function, ``flag`` the enable flag(s) (any of them enables; None: always consulted),
    ``fallback(session, *args)`` the answer when no plugin decides (None when omitted: the combined
    answer then has the plugin function's type)."""
    flags = () if flag is None else (flag,) if isinstance(flag, Flag) else flag
    answer: Callable[..., Any] = fallback if fallback is not None else _none

    def declare(declaration: Declaration[P, R]) -> ExtensionPoint[P, R, Any]:
        return ExtensionPoint(declaration, go, flags, rule, answer, accumulates)

    return declare


def _none(_host: object, *_args: object) -> None:
    """None."""
