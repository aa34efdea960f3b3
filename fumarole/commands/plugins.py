"""``fumarole plugins list [--format table|json]``: what is installed (``inventory``).

One row per entry point of ``fumarole.plugins``, ``fumarole.actions``, ``fumarole.policies`` and
``fumarole.observers``: name, kind, the distribution and version providing it, for plugins the
extension points they register (measured on an empty cluster, flags defaulted as Volcano does), for
plugins and actions the arguments they accept (key, type, default). An entry point that cannot be
loaded or opened is listed with its error. A table when standard output is a terminal (or with
``--format table``), else JSON: a list sorted by kind, then name.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from fumarole.commands import EXIT_OK
from fumarole.commands.inventory import Argument, Extension, inventory
from fumarole.framework.settings import Settings
from fumarole.report import stdout_console

TITLES = {"plugin": "Plugins", "action": "Actions", "policy": "Policies", "observer": "Observers"}
"""The tables, in this order."""
POINTS_CAPTION = (
    "extension points: those a plugin registers in a session on an empty cluster, "
    "with its default arguments and Volcano's flag defaulting"
)


def register(commands: Any) -> None:
    parser = commands.add_parser("plugins", help="the installed plugins, actions, policies and observers")
    plugin_commands = parser.add_subparsers(dest="command", required=True)
    listing = plugin_commands.add_parser(
        "list",
        help="list every installed entry point: distribution, extension points, arguments",
        description="List every installed plugin, action, policy and observer: the distribution that "
        "provides it, the extension points a plugin registers (measured in a session on an empty "
        "cluster, with Volcano's flag defaulting and default arguments) and the arguments accepted.",
    )
    listing.add_argument(
        "--format", choices=("table", "json"), help="output (default: table on a terminal, else json)"
    )
    listing.set_defaults(run=run)


def run(args: argparse.Namespace, settings: Settings) -> int:
    extensions = inventory(settings)
    output_format = args.format or ("table" if sys.stdout.isatty() else "json")
    if output_format == "json":
        json.dump([extension.to_json() for extension in extensions], sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        print_tables(extensions, stdout_console())
    return EXIT_OK


# ---------------------------------------------------------------------------------------- table
def _default(argument: Argument) -> str:
    if argument.required:
        return "required"
    if argument.default is None:
        return "unset"
    return json.dumps(argument.default)


def _arguments(extension: Extension) -> str:
    return "\n".join(f"{a.key}: {a.type} = {_default(a)}" for a in extension.arguments or [])


def _provider(extension: Extension) -> str:
    if extension.distribution is None:
        return "?"
    return f"{extension.distribution} {extension.version}" if extension.version else extension.distribution


def print_tables(extensions: list[Extension], console: Console) -> None:
    """One table per kind that has entry points."""
    for kind, title in TITLES.items():
        rows = [extension for extension in extensions if extension.kind == kind]
        if not rows:
            continue
        caption = POINTS_CAPTION if kind == "plugin" else None
        table = Table(
            title=title,
            title_justify="left",
            caption=caption,
            caption_justify="left",
            show_lines=True,
            expand=kind == "plugin",
        )
        table.add_column("name", no_wrap=True)
        table.add_column("from", overflow="fold")
        if kind == "plugin":
            table.add_column("extension points", overflow="fold", ratio=2)
        if kind in ("plugin", "action"):
            table.add_column("arguments (key: type = default)", overflow="fold", ratio=3)
        else:
            table.add_column("entry point", overflow="fold")
        for extension in rows:
            table.add_row(Text(extension.name), Text(_provider(extension)), *_details(extension))
        console.print(table)


def _details(extension: Extension) -> list[Text]:
    """The kind's own cells (plain text, never rich markup); the error, if any, in the first of them."""
    error = Text(f"error: {extension.error}", style="red") if extension.error else None
    if extension.kind == "plugin":
        points = Text(", ".join(extension.extension_points or []))
        return [error or points, Text(_arguments(extension))]
    if extension.kind == "action":
        return [error or Text(_arguments(extension))]
    return [Text(extension.entry_point) + "\n" + error if error else Text(extension.entry_point)]
