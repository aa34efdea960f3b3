"""How the answers of several plugins combine into one: the tier-voting rules.

Each rule is written once, in its own module, and cites the Go functions that follow it
(``pkg/scheduler/framework/session_plugins.go``). Every extension point names its rule in its
declaration (``framework.extension_points.specs``); docs/extension-points.md lists which point uses
which rule.
"""

from typing import Any

from .all_must_pass import ALL_MUST_PASS as ALL_MUST_PASS
from .all_true import ALL_TRUE as ALL_TRUE
from .any_true import ANY_TRUE as ANY_TRUE
from .broadcast import BROADCAST as BROADCAST
from .first_failure import FIRST_FAILURE as FIRST_FAILURE
from .first_nonzero import FIRST_NONZERO as FIRST_NONZERO
from .first_not_none import FIRST_NOT_NONE as FIRST_NOT_NONE
from .first_tier_decides import FIRST_TIER_DECIDES as FIRST_TIER_DECIDES
from .key_tuple import KEY_TUPLE as KEY_TUPLE
from .rule import UNDECIDED as UNDECIDED
from .rule import Tiers as Tiers
from .rule import Undecided as Undecided
from .rule import VotingRule as VotingRule
from .sum_of_scores import SUM_OF_SCORES as SUM_OF_SCORES
from .tier_intersection import STRICT_TIER_INTERSECTION as STRICT_TIER_INTERSECTION
from .tier_intersection import TIER_INTERSECTION as TIER_INTERSECTION
from .tier_union import TIER_UNION as TIER_UNION
from .tier_vote import TIER_VOTE as TIER_VOTE
from .winner_takes_all import WINNER_TAKES_ALL as WINNER_TAKES_ALL

RULES: tuple[VotingRule[Any], ...] = tuple(
    rule for rule in list(globals().values()) if isinstance(rule, VotingRule)
)
"""Every rule."""
