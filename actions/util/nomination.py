"""A task's nominated node as the actions see it in this session (``fumarole.framework.nominations``)."""

from fumarole.framework.nominations import nominated_node_name, set_nominated_node_name

__all__ = ["nominated_node_name", "set_nominated_node_name"]
