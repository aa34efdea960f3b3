"""Arguments of gangpreempt and gangreclaim (``configurations: [{name: gangpreempt, arguments: {...}}]``).

=================  =======  ===================================================================
key                default  meaning
=================  =======  ===================================================================
maxDomains         8        at most this many hypernodes (eviction domains) are tried per job;
                            ``<= 0`` means the default, as upstream (with a warning)
allowWholeBundle   true     whole bundles (evictions that break a victim's gang) may be chosen;
                            false: only surplus tasks above minAvailable are ever evicted
jobLevelBundles    false    every victim job is one whole bundle (the seed's first-rollout
                            job-level mode; upstream has no such switch)
=================  =======  ===================================================================

The predicate error cache switch is read from the ``allocate`` action's configuration, as upstream
(the simulation runs allocate's placement code). Booleans follow Volcano's ``Arguments.GetBool``;
``maxDomains`` must be a YAML integer.
"""

from __future__ import annotations

from loguru import logger
from pydantic import BaseModel, ConfigDict, Field, StrictInt, field_validator

from ..util.arguments import GoBool

DEFAULT_MAX_DOMAINS = 8


class GangEvictionArguments(BaseModel):
    """The gang eviction actions' arguments; unknown keys rejected."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    max_domains: StrictInt = Field(DEFAULT_MAX_DOMAINS, alias="maxDomains")
    allow_whole_bundle: GoBool = Field(True, alias="allowWholeBundle")
    job_level_bundles: GoBool = Field(False, alias="jobLevelBundles")

    @field_validator("max_domains")
    @classmethod
    def _default_when_not_positive(cls, value: int) -> int:
        if value <= 0:
            logger.warning(
                "invalid maxDomains value {} for a gang eviction action, falling back to default {}",
                value,
                DEFAULT_MAX_DOMAINS,
            )
            return DEFAULT_MAX_DOMAINS
        return value
