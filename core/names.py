"""Batch names (annotation and Layer3): one rule and one message wherever a name comes in.

A name is what a researcher types and reads everywhere: in commands (``--batch``), URLs' query
strings, file names of exports and the pages. So it must be printable text of a bounded length,
without control or format characters (newlines, tabs, NUL, bidirectional overrides, lone surrogates)
and without ``/`` or ``\\`` (a name shows in file names; ``..`` alone is no name either). Pure Python:
``batch_name_problem`` returns the English template (a msgid) and its parameters, or None.
"""

from __future__ import annotations

import unicodedata


def gettext_noop(message: str) -> str:
    return message


EMPTY = gettext_noop("the batch name is empty; give a name")
TOO_LONG = gettext_noop("the batch name has %(length)s characters; at most %(limit)s fit")
CONTROL = gettext_noop(
    "the batch name contains the control character %(codepoint)s at character %(position)s; "
    "use letters, digits, spaces and punctuation"
)
SEPARATOR = gettext_noop(
    "the batch name contains %(char)s, which names folders in paths; use another character (e.g. - or _)"
)
DOTS = gettext_noop("the batch name may not be only dots; give a name with a letter or digit in it")
DIGITS = gettext_noop(
    "the batch name %(name)s is only digits, which URLs and commands read as a batch id; "
    "give a name with a letter in it (e.g. batch-%(name)s)"
)


def batch_name_problem(name: object, *, limit: int, digits_allowed: bool = True) -> tuple[str, dict] | None:
    """Why ``name`` cannot be a batch name (template, parameters), or None when it can (after ``strip()``)."""
    text = name.strip() if isinstance(name, str) else ""
    if not text:
        return EMPTY, {}
    if len(text) > limit:
        return TOO_LONG, {"length": len(text), "limit": limit}
    for position, char in enumerate(text, start=1):
        if unicodedata.category(char)[0] == "C" or unicodedata.category(char) in ("Zl", "Zp"):
            return CONTROL, {"codepoint": f"U+{ord(char):04X}", "position": position}
    for char in "/\\":
        if char in text:
            return SEPARATOR, {"char": char}
    if set(text) == {"."}:
        return DOTS, {}
    if not digits_allowed and text.isascii() and text.isdigit():
        return DIGITS, {"name": text}
    return None
