"""How the answers of several plugins combine into one: the tier-voting rules.

Every extension point of the session names exactly one of these rules in its declaration
(``framework.extension_points``). Each rule is written once, in its own module, and cites the Go
functions that follow it (``pkg/scheduler/framework/session_plugins.go``). A rule takes the enabled
functions of a point grouped by tier and the point's arguments and returns the combined answer, or
``UNDECIDED`` when nobody decided, in which case the point's declared fallback answers.
docs/extension-points.md lists which point uses which rule.
"""

from typing import Any

from .all_must_pass import ALL_MUST_PASS, first_error
from .all_true import ALL_TRUE, all_true
from .any_true import ANY_TRUE, any_true
from .broadcast import BROADCAST, broadcast
from .first_failure import FIRST_FAILURE, first_failure
from .first_nonzero import FIRST_NONZERO, first_nonzero
from .first_not_none import FIRST_NOT_NONE, first_not_none
from .first_tier_decides import FIRST_TIER_DECIDES, first_tier_decides
from .rule import UNDECIDED, Tiers, Undecided, VotingRule
from .sum_of_scores import SUM_OF_SCORE_MAPS, SUM_OF_SCORES, sum_score_maps, sum_score_vectors, sum_scores
from .tier_intersection import (
    STRICT_TIER_INTERSECTION,
    TIER_INTERSECTION,
    strict_tier_intersection,
    tier_intersection,
)
from .tier_union import TIER_UNION, tier_union
from .tier_vote import TIER_VOTE, tier_vote
from .winner_takes_all import WINNER_TAKES_ALL, winner_takes_all

RULES: tuple[VotingRule[Any], ...] = (
    ALL_MUST_PASS,
    SUM_OF_SCORES,
    SUM_OF_SCORE_MAPS,
    FIRST_NONZERO,
    TIER_INTERSECTION,
    STRICT_TIER_INTERSECTION,
    TIER_VOTE,
    FIRST_TIER_DECIDES,
    ALL_TRUE,
    ANY_TRUE,
    FIRST_FAILURE,
    WINNER_TAKES_ALL,
    FIRST_NOT_NONE,
    TIER_UNION,
    BROADCAST,
)
"""Every rule, in the order docs/extension-points.md lists them."""

__all__ = [
    "ALL_MUST_PASS",
    "ALL_TRUE",
    "ANY_TRUE",
    "BROADCAST",
    "FIRST_FAILURE",
    "FIRST_NONZERO",
    "FIRST_NOT_NONE",
    "FIRST_TIER_DECIDES",
    "RULES",
    "STRICT_TIER_INTERSECTION",
    "SUM_OF_SCORES",
    "SUM_OF_SCORE_MAPS",
    "TIER_INTERSECTION",
    "TIER_UNION",
    "TIER_VOTE",
    "UNDECIDED",
    "WINNER_TAKES_ALL",
    "Tiers",
    "Undecided",
    "VotingRule",
    "all_true",
    "any_true",
    "broadcast",
    "first_error",
    "first_failure",
    "first_nonzero",
    "first_not_none",
    "first_tier_decides",
    "strict_tier_intersection",
    "sum_score_maps",
    "sum_score_vectors",
    "sum_scores",
    "tier_intersection",
    "tier_union",
    "tier_vote",
    "winner_takes_all",
]
