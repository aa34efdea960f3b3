"""All must pass; the first error stops."""

from .rule import UNDECIDED, Tiers, Undecided, VotingRule


def all_must_pass(tiers: Tiers, *args: object) -> BaseException | Undecided:
    """Every enabled plugin is asked in tier order; the first error (returned or raised) is the answer."""
    for tier in tiers:
        for fn in tier:
            try:
                error = fn(*args)
            except Exception as exc:  # a plugin may raise its FitError instead of returning it
                return exc
            if error is not None:
                return error if isinstance(error, BaseException) else RuntimeError(str(error))
    return UNDECIDED


ALL_MUST_PASS = VotingRule(
    all_must_pass, "PredicateFn, PrePredicateFn, SimulatePredicateFn, SimulateAddTaskFn, SimulateRemoveTaskFn"
)
