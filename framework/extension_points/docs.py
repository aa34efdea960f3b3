"""docs/extension-points.md, rendered from the declarations.

``python -m fumarole.framework.extension_points.docs`` writes it; a test fails when it is stale.
"""

from __future__ import annotations

import inspect
import sys
from pathlib import Path
from typing import Any

from ..voting import RULES
from .flags import FLAGS
from .point import ExtensionPoint
from .specs import ExtensionPointSpecs

HEADER = """\
# Extension points

Generated from `framework/extension_points/specs.py` by
`python -m fumarole.framework.extension_points.docs`; do not edit by hand.

A plugin registers its functions in `on_session_open`, under the name the conf gives it:
`ssn.<point>.register(fn)` (batch forms: `ssn.<batch point>.register(fn)`). An action asks the
combined answer: `ssn.<point>(...)`; `ssn.<point>.vote(...)` gives the plugins' answer alone
(`UNDECIDED` when none decided). Plugins are consulted tier by tier, in conf order inside a tier,
and only when they registered the point and its enable flag is on; a point without a flag is always
consulted. When no plugin decides, the point's fallback answers.
"""


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _fallback(point: ExtensionPoint[Any, Any, Any]) -> str:
    return _one_line(inspect.getdoc(point.fallback) or "")


def render() -> str:
    points = [value for value in vars(ExtensionPointSpecs).values() if isinstance(value, ExtensionPoint)]
    out = [HEADER]
    out.append("## Points\n")
    out.append("| point | flag | rule | fallback | Volcano |")
    out.append("| --- | --- | --- | --- | --- |")
    for point in points:
        flags = " or ".join(f"`{flag.key}`" for flag in point.flags) or "(none)"
        name = f"[`{point.name}`](#{point.name})"
        if point.batch_variant is not None:
            name += f" / `{point.batch_variant.name}`"
        out.append(f"| {name} | {flags} | {point.rule.name} | {_fallback(point)} | `{point.go}` |")
    out.append("")
    for point in points:
        out.append(f"### {point.name}\n")
        out.append(f"`{point.name}{point.signature}`\n")
        out.append(_one_line(point.doc) + "\n")
        if point.batch_variant is not None:
            variant = point.batch_variant
            out.append(f"Batch form `{variant.name}{variant.signature}`: {_one_line(variant.doc)}\n")
        if point.accumulates:
            out.append("A plugin may register several functions; each is called.\n")
    out.append("## Voting rules\n")
    out.append("Each rule lives in its own module of `framework/voting/`.\n")
    out.append("| rule | how answers combine | Volcano |")
    out.append("| --- | --- | --- |")
    for rule in RULES:
        out.append(f"| {rule.name} | {_one_line(rule.summary)} | {rule.go} |")
    out.append("")
    out.append("## Enable flags\n")
    out.append(
        "A conf file leaves a flag unset: Volcano's defaulting turns it on, except the two marked "
        "*not defaulted*. A conf built in code keeps unset flags off, as Volcano's unit tests do.\n"
    )
    out.append("| YAML key | Python spelling | defaulted | gates |")
    out.append("| --- | --- | --- | --- |")
    for flag in FLAGS:
        gated = ", ".join(f"`{point.name}`" for point in points if flag in point.flags) or "(plugin-specific)"
        defaulted = "yes" if flag.defaulted else "*not defaulted*"
        out.append(f"| `{flag.key}` | `{flag.field}` | {defaulted} | {gated} |")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    target = Path(args[0]) if args else Path("docs/extension-points.md")
    target.write_text(render(), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
