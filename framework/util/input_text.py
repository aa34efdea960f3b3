"""The text of an input file, and what is wrong with it said in one line.

Every file a user hands fumarole (a conf, a snapshot, a changes file, a workload) is read as UTF-8
text with ``decode``: bytes that are not UTF-8 and binary content (a NUL byte) are one error naming the
file, the line and the byte offset, before any YAML is parsed. ``yaml_problem`` turns a YAML error into
one line with the line number (a ``ReaderError`` for a control character carries only an offset:
its line is counted in the text). ``one_line`` escapes the line breaks and other control characters
that input (a quoted key, a name) can smuggle into a message, so that every message stays one line;
``short_repr`` shows a bad value without quoting a whole document.
"""

from __future__ import annotations

import yaml

BOMS = {b"\xff\xfe": "UTF-16", b"\xfe\xff": "UTF-16"}

SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""libyaml's safe loader when PyYAML was built with it (much faster), else the pure-Python one."""


RESOURCE_ERROR = "resource_quantity"
"""The pydantic error type of a bad entry in a resource list; its ``ctx["resource"]`` names the entry,
which error messages append to the location (``requests`` + ``cpu``)."""


class InputTextError(ValueError):
    """A file whose content is not UTF-8 text; each loader re-raises it as its own error."""


def decode(data: bytes, source: str) -> str:
    """``data`` as text, or ``InputTextError``: ``<source>:<line>: not UTF-8 text (byte 0xff at offset 45)``
    or ``<source>:<line>: binary content (a NUL byte at offset 45)``."""
    if data[:2] in BOMS:
        raise InputTextError(
            f"{source}:1: not UTF-8 text (byte {data[0]:#04x} at offset 0; the file is {BOMS[data[:2]]}: "
            "save it as UTF-8)"
        )
    nul = data.find(b"\x00")
    if nul >= 0:
        line = data.count(b"\n", 0, nul) + 1
        raise InputTextError(f"{source}:{line}: binary content (a NUL byte at offset {nul})")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputTextError(
            f"{source}:{line}: not UTF-8 text (byte {data[exc.start]:#04x} at offset {exc.start})"
        ) from None


_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def one_line(text: str) -> str:
    """``text`` with line breaks and other control characters escaped (``\\n``, ``\\x07``)."""
    if text.isprintable():
        return text
    return "".join(
        char
        if char.isprintable() or char == " "
        else _ESCAPES.get(char) or (f"\\x{ord(char):02x}" if ord(char) < 0x100 else f"\\u{ord(char):04x}")
        for char in text
    )


def short_repr(value: object, limit: int = 60) -> str:
    """``repr(value)`` cut to ``limit`` characters (``…`` marks the cut)."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def yaml_problem(source: str, error: yaml.YAMLError, offset: int = 0, text: str | None = None) -> str:
    """A YAML syntax error on one line, Volcano's ``yaml: line N: <problem>`` in fumarole's shape:
    ``<source>:<line>: not valid YAML: <problem> (<context> at line <n>)``. ``offset`` shifts the lines
    (a document embedded in another); ``text`` lets a ``ReaderError`` (a character YAML does not allow)
    be placed on its line."""
    if isinstance(error, yaml.reader.ReaderError):
        where = source
        if text is not None and 0 <= error.position <= len(text):
            where = f"{source}:{text.count(chr(10), 0, error.position) + 1 + offset}"
        character = error.character
        shown = f"#x{character:04x}" if isinstance(character, int) else repr(character)
        at = f"at character offset {error.position}"
        return f"{where}: not valid YAML: character {shown} is not allowed ({at})"
    problem_mark = getattr(error, "problem_mark", None)
    context_mark = getattr(error, "context_mark", None)
    mark = problem_mark or context_mark
    where = f"{source}:{mark.line + 1 + offset}" if mark is not None else source
    problem = getattr(error, "problem", None) or getattr(error, "context", None)
    problem = problem.removeprefix("but ") if isinstance(problem, str) else problem
    if not problem:
        return one_line(f"{where}: not valid YAML: {' '.join(str(error).split())}")
    context = getattr(error, "context", None) if problem_mark is not None else None
    detail = f" ({context} at line {context_mark.line + 1 + offset})" if context and context_mark else ""
    return one_line(f"{where}: not valid YAML: {problem}{detail}")
