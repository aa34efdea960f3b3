"""fumarole-example-plugins: what a third-party fumarole package looks like.

* ``prefer-labelled-nodes`` (plugin, ``fumarole.plugins``): scores nodes that carry a label;
* ``drain-cordoned`` (action, ``fumarole.actions``): evicts our running pods from cordoned nodes;
* ``bind-counter`` (observer, ``fumarole.observers``): counts binds per action.

Nothing here is special to fumarole's own plugins: the entry points in ``pyproject.toml`` are the
whole registration, and the tests use only ``fumarole.testing``.
"""
