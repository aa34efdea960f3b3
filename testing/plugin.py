"""The pytest plugin of ``fumarole.testing`` (entry point ``pytest11: fumarole``), loaded by pytest in
every project where fumarole is installed (``-p no:fumarole`` turns it off).

Fixtures:

``fumarole_harness``
    A factory: ``fumarole_harness(objects, conf, **kwargs) -> Harness`` (the arguments of
    ``Harness``). Each call builds a fresh cluster and scheduler.
``fumarole_logs``
    The messages fumarole's loguru logger emits during the test (DEBUG and above), as a list of
    strings; the library keeps its logger disabled otherwise.

fumarole itself is imported only when a fixture is used, so loading the plugin costs nothing and
coverage measured by pytest-cov includes every fumarole module.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from .harness import Harness


@pytest.fixture
def fumarole_harness() -> Callable[..., Harness]:
    """``fumarole_harness(objects, conf, **kwargs)``: a ``fumarole.testing.Harness``."""
    from .harness import Harness

    def build(objects: Any, conf: Any, **kwargs: Any) -> Harness:
        return Harness(objects, conf, **kwargs)

    return build


@pytest.fixture
def fumarole_logs() -> Iterator[list[str]]:
    """The messages fumarole logs during the test (DEBUG and above)."""
    from loguru import logger

    messages: list[str] = []
    sink = logger.add(lambda message: messages.append(message.record["message"]), level="DEBUG")
    logger.enable("fumarole")
    try:
        yield messages
    finally:
        logger.disable("fumarole")
        logger.remove(sink)
