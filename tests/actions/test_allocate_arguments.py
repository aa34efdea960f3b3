"""allocate (and backfill) arguments: ``predicateErrorCacheEnable`` / ``enablePredicateErrorCache`` read
as Volcano's ``Arguments.GetBool`` reads them (a YAML boolean or a ``strconv.ParseBool`` string), as the
preempt and reclaim actions do; anything else is rejected with the file and the key
(spec: pkg/scheduler/actions/allocate/allocate.go ``parseArguments``, framework/arguments.go ``GetBool``).
"""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from fumarole.actions.allocate import AllocateAction, AllocateArguments
from fumarole.framework.conf import (
    ConfError,
    Configuration,
    PluginOption,
    SchedulerConf,
    Tier,
    parse_conf,
)
from fumarole.framework.registry import Registry
from fumarole.testing import Harness, build_node, build_queue

GO_TRUE = ["1", "t", "T", "TRUE", "true", "True"]
GO_FALSE = ["0", "f", "F", "FALSE", "false", "False"]


def parse_action_arguments(action: str, arguments: dict[str, Any]) -> None:
    text = yaml.safe_dump(
        {
            "actions": action,
            "tiers": [{"plugins": [{"name": "priority"}]}],
            "configurations": [{"name": action, "arguments": arguments}],
        }
    )
    parse_conf(text, "conf.yaml", Registry())


@pytest.mark.parametrize(
    ("arguments", "error_cache"),
    [
        pytest.param({}, True, id="volcano-default"),
        pytest.param({"predicateErrorCacheEnable": True}, True, id="yaml-true"),
        pytest.param({"predicateErrorCacheEnable": False}, False, id="yaml-false"),
        *[pytest.param({"predicateErrorCacheEnable": text}, True, id=f"go-true-{text}") for text in GO_TRUE],
        *[
            pytest.param({"predicateErrorCacheEnable": text}, False, id=f"go-false-{text}")
            for text in GO_FALSE
        ],
        pytest.param({"enablePredicateErrorCache": "f"}, False, id="alias-go-string"),
        pytest.param({"enablePredicateErrorCache": None}, True, id="alias-null-is-unset"),
        pytest.param(
            {"predicateErrorCacheEnable": "false", "enablePredicateErrorCache": "1"}, True, id="alias-wins"
        ),
        pytest.param(
            {"predicateErrorCacheEnable": "true", "enablePredicateErrorCache": "0"},
            False,
            id="alias-wins-off",
        ),
    ],
)
@pytest.mark.parametrize("action", ["allocate", "backfill"])
def test_accepted_values(action: str, arguments: dict[str, Any], error_cache: bool) -> None:
    parse_action_arguments(action, arguments)
    assert AllocateArguments.model_validate(arguments).error_cache is error_cache


@pytest.mark.parametrize(
    ("arguments", "error"),
    [
        pytest.param(
            {"predicateErrorCacheEnable": "yes"},
            "conf.yaml:4: configurations[0].arguments.predicateErrorCacheEnable: "
            "expected a boolean, got 'yes'",
            id="yes-is-not-a-go-bool",
        ),
        pytest.param(
            {"predicateErrorCacheEnable": "tRuE"},
            "conf.yaml:4: configurations[0].arguments.predicateErrorCacheEnable: "
            "expected a boolean, got 'tRuE'",
            id="mixed-case",
        ),
        pytest.param(
            {"predicateErrorCacheEnable": " true"},
            "conf.yaml:4: configurations[0].arguments.predicateErrorCacheEnable: "
            "expected a boolean, got ' true'",
            id="surrounding-space",
        ),
        pytest.param(
            {"predicateErrorCacheEnable": ""},
            "conf.yaml:4: configurations[0].arguments.predicateErrorCacheEnable: expected a boolean, got ''",
            id="empty-string",
        ),
        pytest.param(
            {"predicateErrorCacheEnable": 1},
            "conf.yaml:4: configurations[0].arguments.predicateErrorCacheEnable: expected a boolean, got 1",
            id="yaml-integer",
        ),
        pytest.param(
            {"predicateErrorCacheEnable": None},
            "conf.yaml:4: configurations[0].arguments.predicateErrorCacheEnable: "
            "expected a boolean, got None",
            id="null",
        ),
        pytest.param(
            {"enablePredicateErrorCache": "maybe"},
            "conf.yaml:4: configurations[0].arguments.enablePredicateErrorCache: "
            "expected a boolean, got 'maybe'",
            id="alias-not-a-go-bool",
        ),
        pytest.param(
            {"enableTopologyAwarePreemption": True},
            "conf.yaml:4: configurations[0].arguments.enableTopologyAwarePreemption: unknown key",
            id="preempt-only-key",
        ),
    ],
)
@pytest.mark.parametrize("action", ["allocate", "backfill"])
def test_bad_values_are_rejected_with_file_and_key(
    action: str, arguments: dict[str, Any], error: str
) -> None:
    with pytest.raises(ConfError) as caught:
        parse_action_arguments(action, arguments)
    assert str(caught.value) == error


@pytest.mark.parametrize(
    ("arguments", "error_cache"),
    [
        pytest.param({}, True, id="default"),
        pytest.param({"predicateErrorCacheEnable": "F"}, False, id="go-false-string"),
        pytest.param({"enablePredicateErrorCache": "0", "predicateErrorCacheEnable": "t"}, False, id="alias"),
    ],
)
def test_the_action_reads_the_session_configuration(arguments: dict[str, Any], error_cache: bool) -> None:
    conf = SchedulerConf(
        actions="allocate",
        tiers=[Tier(plugins=[PluginOption(name="priority")])],
        configurations=[Configuration(name="allocate", arguments=arguments)],
    )
    harness = Harness([build_queue("default"), build_node("n1", {"cpu": "1", "memory": "1Gi"})], conf)
    action = AllocateAction()
    action.execute(harness.open_session())
    assert action.error_cache is error_cache
