"""Batch names (annotation and Layer3): one rule and one message wherever a name comes in.

A name is what a researcher types and reads everywhere: in commands (``--batch``), URLs' query
strings, file names of exports and the pages. So it must be printable text of a bounded length,
without control or format characters (newlines, tabs, NUL, bidirectional overrides, lone surrogates)
and without ``/`` or ``\\`` (a name shows in file names; ``..`` alone is no name either). Pure Python:
``batch_name_problem`` returns the English template (a msgid) and its parameters, or None.
"""

from __future__ import annotations

import unicodedata

from core.spreadsheet_cells import FORMULA_TRIGGERS


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


# --- ids (a dialogue's id, an annotator id) -------------------------------------------------------------------
#
# An id is stored as given and shown everywhere: in pages, exports, spreadsheets and logs. The exports
# neutralise a formula-like text (core.spreadsheet_cells), but every other tool a file goes through would
# not; so an id that a spreadsheet would run as a formula, or that breaks lines, cells and logs, is refused
# where it comes in. The formula triggers are those of core.spreadsheet_cells (= + - @ and their full-width
# forms, also after leading spaces); the control characters are every C0 and C1 control and DEL
# (Unicode category Cc: tab, CR and LF among them).

FORMULA_ID = gettext_noop(
    "%(value)s begins with %(char)s (%(codepoint)s), which a spreadsheet runs as a formula (formula "
    "injection); an id may not begin with = + - @ or their full-width forms ＝ ＋ － ＠"
)
CONTROL_ID = gettext_noop(
    "%(value)s holds the control character %(codepoint)s (%(name_text)s) at character %(position)s; an id may "
    "not hold control characters (tab, line breaks or any other C0/C1 control): they break lines, cells and logs"
)
CONTROL_NAMES = {
    "\t": gettext_noop("tab"),
    "\n": gettext_noop("line feed"),
    "\r": gettext_noop("carriage return"),
}
OTHER_CONTROL = gettext_noop("a control character")
SHOWN_ID_LENGTH = 60


def _shown_id(value: str) -> str:
    """The id as a problem shows it: ``repr`` (controls as escapes), cut to a readable length."""
    return repr(value if len(value) <= SHOWN_ID_LENGTH else value[:SHOWN_ID_LENGTH] + "…")


def id_problem(value: str) -> tuple[str, dict] | None:
    """Why ``value`` cannot be an id (template, parameters), or None when it can.

    A control character anywhere is named first (it is also what makes a leading one formula-like).
    """
    for position, char in enumerate(value, start=1):
        if char < " " or "\x7f" <= char <= "\x9f":
            name = CONTROL_NAMES.get(char, OTHER_CONTROL)
            return CONTROL_ID, {"value": _shown_id(value), "codepoint": f"U+{ord(char):04X}", "name_text": name,
                                "position": position}  # fmt: skip
    first = value.lstrip()[:1]
    if first and first in FORMULA_TRIGGERS:
        return FORMULA_ID, {"value": _shown_id(value), "char": repr(first), "codepoint": f"U+{ord(first):04X}"}
    return None
