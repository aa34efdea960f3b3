"""Every shipped conf has its tox env (``conf-<stem>``: load and validate it, run its golden
scenarios, simulate with it), and tox names no conf that is not shipped."""

from __future__ import annotations

import configparser
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PREFIX = "conf-"
SCENARIOS = ROOT / "tests" / "scenarios" / "confs"


def tox() -> configparser.ConfigParser:
    if not (ROOT / "tox.ini").exists():
        pytest.fail("run the tests from a checkout")
    parser = configparser.ConfigParser(interpolation=None)
    parser.read(ROOT / "tox.ini", encoding="utf-8")
    return parser


def shipped() -> set[str]:
    return {path.stem for path in (ROOT / "conf").glob("*.yaml")}


def envlist(parser: configparser.ConfigParser) -> set[str]:
    return {name for name in parser["tox"]["envlist"].replace(",", "\n").split() if name.startswith(PREFIX)}


def sections(parser: configparser.ConfigParser) -> dict[str, configparser.SectionProxy]:
    return {
        name.removeprefix("testenv:"): parser[name]
        for name in parser.sections()
        if name.startswith(f"testenv:{PREFIX}")
    }


def test_every_shipped_conf_has_a_tox_env() -> None:
    parser = tox()
    expected = {PREFIX + stem for stem in shipped()}
    assert expected, "no conf/*.yaml"
    assert expected - set(sections(parser)) == set(), "add a [testenv:conf-<stem>] section to tox.ini"
    assert expected - envlist(parser) == set(), "add the env to tox.ini's envlist"


def test_tox_names_no_conf_that_does_not_exist() -> None:
    parser = tox()
    named = set(sections(parser)) | envlist(parser)
    assert {env.removeprefix(PREFIX) for env in named} - shipped() == set()


def test_each_conf_env_runs_its_own_conf() -> None:
    for env, section in sections(tox()).items():
        assert section.get("set_env", "").split() == ["CONF", "=", env.removeprefix(PREFIX)], env
        assert section.get("commands", "").strip() == "{[conf]commands}", env


def test_each_conf_has_its_scenarios_folder() -> None:
    assert SCENARIOS.is_dir(), f"{SCENARIOS.relative_to(ROOT)} is missing"
    folders = {
        path.name for path in SCENARIOS.iterdir() if path.is_dir() and not path.name.startswith(("_", "."))
    }
    assert shipped() - folders == set(), "add tests/scenarios/confs/<stem>/ with the conf's golden scenarios"
    assert folders - shipped() == set(), "a scenarios folder names a conf that is not shipped"
