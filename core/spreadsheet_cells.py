"""Text cells that a spreadsheet must not run as formulas (CSV / formula injection), pure Python.

Following the OWASP "CSV Injection" guidance, a text cell whose first character is ``=``, ``+``,
``-``, ``@``, a tab or a carriage return is prefixed with a single quote ``'``: Excel, LibreOffice
Calc and Google Sheets then show the text instead of evaluating it (``=HYPERLINK(...)``,
``=cmd|'/c calc'!A1``). Decisions beyond the OWASP list, all erring on the safe side:

- the trigger is also looked for after leading whitespace (``" =1+1"``, ``"\\n@SUM(A1)"``), since
  Calc's "trim spaces" import option and some Excel versions drop it before parsing;
- the full-width forms ``＝ ＋ － ＠`` count too: Japanese spreadsheet input converts them to the
  ASCII operators, and this project's data is Japanese.

Everything else is returned unchanged, the empty string included. The prefix is visible to plain
text readers (``csv.reader`` reads ``'=1+1``): that is the price of a file that is safe to open.
The function is idempotent: a neutralised cell starts with ``'`` and is never prefixed again.
Quoting of separators, quotes and newlines inside a cell is the CSV writer's job, not this one's.
Apply it to text only: numbers (``-2`` as a number) are data, not formulas.
"""

from __future__ import annotations

import re

# Characters that start a formula when they lead a cell (ASCII and full-width forms).
FORMULA_TRIGGERS = frozenset("=+-@\uff1d\uff0b\uff0d\uff20")
# Characters that trigger even in the first position (OWASP): tab and carriage return.
LEADING_CONTROL_TRIGGERS = frozenset("\t\r")


def is_formula_like(value: str) -> bool:
    """Whether a spreadsheet could treat this text cell as a formula."""
    if value[:1] in LEADING_CONTROL_TRIGGERS:
        return True
    return value.lstrip()[:1] in FORMULA_TRIGGERS


def neutralise_formula(value: str) -> str:
    """``value`` with a leading ``'`` when a spreadsheet would read it as a formula, else unchanged."""
    return "'" + value if is_formula_like(value) else value


def column_letter(index: int) -> str:
    """The spreadsheet letter of the 0-based column ``index`` (0 → A, 25 → Z, 26 → AA)."""
    letters = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(ord("A") + rest) + letters
    return letters


# Characters an .xlsx cell cannot hold (XML 1.0 forbids them; openpyxl refuses them).
UNWRITABLE_CHARACTERS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def xlsx_string(value: str) -> str:
    """A text as an .xlsx string cell holds it, not neutralised: CR as LF (the file's XML reads CR back as LF).

    For a cell forced to the string type (never a formula, whatever it starts with), which then shows the
    text exactly, without a visible quote: the rating template's cells (``annotation.spreadsheets.template``).
    """
    if "\r" in value:
        return value.replace("\r\n", "\n").replace("\r", "\n")
    return value


def xlsx_cell_text(value: str) -> str:
    """A text as an .xlsx cell holds it: neutralised, and CR as LF (the file's XML reads CR back as LF)."""
    return xlsx_string(neutralise_formula(value))
