"""Volcano's plugins and the Ascend NPU plugin, one module or package each, registered as entry
points in the ``fumarole.plugins`` group under Volcano's names."""
