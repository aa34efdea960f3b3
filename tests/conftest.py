"""Shared by every test of the project.

The fixtures for plugin authors (``fumarole_harness``, ``fumarole_logs``) come from fumarole's own
pytest plugin, ``fumarole.testing.plugin``, loaded through its ``pytest11`` entry point; the helpers
(builders, ``Harness``, readers such as ``task`` and ``names``, ``NoopAction``, ``fake_plugin``)
are imported from ``fumarole.testing``. This file only adds what the project's tests need besides:
pytester, to test that plugin in a fresh pytest.
"""

pytest_plugins = ["pytester"]
