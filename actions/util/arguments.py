"""Pydantic pieces of the actions' arguments, read as Volcano's ``Arguments`` getters read them
(``pkg/scheduler/framework/arguments.go``); booleans are ``fumarole.framework.api.go_bool.GoBool``.

* ``PredicateErrorCacheArguments``: ``predicateErrorCacheEnable`` (default true) and its alias
  ``enablePredicateErrorCache`` (which wins when given), the arguments allocate, backfill, preempt
  and reclaim all read (``conf.EnablePredicateErrCacheKey``); each action's model extends it.

Deliberate difference: upstream logs and ignores a value ``GetBool`` cannot read; fumarole rejects
it, so the conf loader names the file and the key (``expected a boolean, got 'yes'``).
"""

from __future__ import annotations

from fumarole.framework.api.go_bool import GoBool, go_bool
from pydantic import BaseModel, ConfigDict, Field

__all__ = ["GoBool", "PredicateErrorCacheArguments", "go_bool"]


class PredicateErrorCacheArguments(BaseModel):
    """The predicate error cache switch every node-searching action reads; unknown keys rejected."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    predicate_error_cache_enable: GoBool = Field(True, alias="predicateErrorCacheEnable")
    enable_predicate_error_cache: GoBool | None = Field(None, alias="enablePredicateErrorCache")

    @property
    def error_cache(self) -> bool:
        """``enablePredicateErrorCache`` when given, else ``predicateErrorCacheEnable``."""
        if self.enable_predicate_error_cache is not None:
            return self.enable_predicate_error_cache
        return self.predicate_error_cache_enable
