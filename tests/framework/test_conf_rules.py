"""Load-time rules of a conf that Volcano also enforces, or that fumarole adds on top: empty action
names, a plugin registered under a name its builder does not report, arguments in Volcano's spelling
only, fumarole's own ``voting`` configuration."""

from __future__ import annotations

import pytest
from fumarole.framework.conf import ConfError, parse_conf
from fumarole.framework.interface import NoArguments
from fumarole.framework.registry import Registry
from fumarole.framework.session import Session


def conf(actions: str = "allocate", plugins: str = "  - name: gang\n", extra: str = "") -> str:
    return f'actions: "{actions}"\ntiers:\n- plugins:\n{plugins}{extra}'


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param(
            conf("enqueue, allocate,"),
            "conf.yaml:1: actions: empty action name (item 3 of 'enqueue, allocate,')",
            id="trailing-comma",
        ),
        pytest.param(
            conf("enqueue,, allocate"),
            "conf.yaml:1: actions: empty action name (item 2 of 'enqueue,, allocate')",
            id="double-comma",
        ),
        pytest.param(conf(" , "), "conf.yaml:1: actions: no action is configured", id="only-blanks"),
    ],
)
def test_an_empty_action_name_is_a_load_error_as_in_volcano(text: str, message: str) -> None:
    """``UnmarshalSchedulerConf`` (pkg/scheduler/util.go) fails on a name ``GetAction`` cannot find,
    the empty one included."""
    with pytest.raises(ConfError) as info:
        parse_conf(text, "conf.yaml", Registry())
    assert str(info.value) == message


class _Reporter:
    """A plugin whose builder reports another name than the one it is registered under."""

    name = "spread"
    arguments_model = NoArguments

    def __init__(self, arguments: NoArguments) -> None:
        self.arguments = arguments

    def on_session_open(self, ssn: Session) -> None:
        return None

    def on_session_close(self, ssn: Session) -> None:
        return None


def test_a_builder_reporting_another_name_fails_at_load_naming_both() -> None:
    registry = Registry()
    registry.register_plugin("binpack-lite", _Reporter)
    with pytest.raises(ConfError) as info:
        parse_conf(conf(plugins="  - name: gang\n  - name: binpack-lite\n"), "conf.yaml", registry)
    assert str(info.value) == (
        "conf.yaml:5: tiers[0].plugins[1].name: plugin 'binpack-lite' builds a plugin named 'spread': a "
        "plugin's name must be its entry-point name 'binpack-lite' (its functions are registered under its "
        "conf name)"
    )


@pytest.mark.parametrize(
    ("plugin", "arguments", "message"),
    [
        pytest.param(
            "overcommit",
            "{overcommit_factor: 1.5}",
            "conf.yaml:6: tiers[0].plugins[1].arguments.overcommit_factor: unknown key",
            id="python-spelling-of-overcommit-factor",
        ),
        pytest.param(
            "nodeorder",
            "{least_requested: 7}",
            "conf.yaml:6: tiers[0].plugins[1].arguments.least_requested: unknown key",
            id="python-spelling-of-a-nodeorder-weight",
        ),
        pytest.param(
            "conformance",
            "{conformance.mode: strict}",
            "conf.yaml:6: tiers[0].plugins[1].arguments.conformance.mode: unknown key",
            id="conformance-takes-no-arguments",
        ),
        pytest.param(
            "priority",
            "{priority.weight: 2}",
            "conf.yaml:6: tiers[0].plugins[1].arguments.priority.weight: unknown key",
            id="priority-takes-no-arguments",
        ),
    ],
)
def test_arguments_are_read_in_volcanos_spelling_only(plugin: str, arguments: str, message: str) -> None:
    text = conf(plugins=f"  - name: gang\n  - name: {plugin}\n    arguments: {arguments}\n")
    with pytest.raises(ConfError) as info:
        parse_conf(text, "conf.yaml", Registry())
    assert str(info.value) == message


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        pytest.param("{}", "undecided", id="default-is-volcano"),
        pytest.param("{emptyIntersection: noVictims}", "noVictims", id="strict"),
        pytest.param("{emptyIntersection: undecided}", "undecided", id="explicit-volcano"),
    ],
)
def test_the_voting_configuration(arguments: str, expected: str) -> None:
    extra = f"configurations:\n- name: voting\n  arguments: {arguments}\n"
    assert parse_conf(conf(extra=extra), "conf.yaml", Registry()).voting.empty_intersection == expected


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        pytest.param(
            "{emptyIntersection: never}",
            "conf.yaml:7: configurations[0].arguments.emptyIntersection: Input should be 'undecided' or "
            "'noVictims' (got 'never')",
            id="unknown-value",
        ),
        pytest.param(
            "{empty_intersection: noVictims}",
            "conf.yaml:7: configurations[0].arguments.empty_intersection: unknown key",
            id="python-spelling",
        ),
    ],
)
def test_a_bad_voting_configuration_is_a_load_error(arguments: str, message: str) -> None:
    extra = f"configurations:\n- name: voting\n  arguments: {arguments}\n"
    with pytest.raises(ConfError) as info:
        parse_conf(conf(extra=extra), "conf.yaml", Registry())
    assert str(info.value) == message
