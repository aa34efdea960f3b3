"""The distribution ships every sub-package, and every entry point resolves."""

from __future__ import annotations

import tomllib
from importlib import metadata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TOP = {
    "fumarole": "fumarole",
    "framework": "fumarole.framework",
    "actions": "fumarole.actions",
    "plugins": "fumarole.plugins",
    "policies": "fumarole.policies",
    "simulator": "fumarole.simulator",
    "testing": "fumarole.testing",
}


def declared_packages() -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return set(project["tool"]["setuptools"]["packages"])


def source_packages() -> set[str]:
    found = set()
    for folder, package in TOP.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            relative = init.parent.relative_to(ROOT / folder)
            found.add(".".join([package, *relative.parts]) if relative.parts else package)
    return found


def test_every_source_package_is_in_pyproject() -> None:
    if not (ROOT / "pyproject.toml").exists():
        pytest.fail("run the tests from a checkout")
    assert source_packages() - declared_packages() == set()
    assert declared_packages() - source_packages() == set()


@pytest.mark.parametrize("group", ["fumarole.actions", "fumarole.plugins", "fumarole.policies"])
def test_every_entry_point_loads(group: str) -> None:
    entry_points = list(metadata.entry_points(group=group))
    assert entry_points, group
    for entry_point in entry_points:
        loaded = entry_point.load()
        assert callable(loaded), entry_point.name
