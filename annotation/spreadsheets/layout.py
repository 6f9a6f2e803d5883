"""The rating spreadsheet's layout, shared by the template writer and the reader (pure Python, no Django).

One sheet to fill (``RATINGS_SHEET``): a header row, then one row per dialogue with the locked texts
(id, context, user utterance, response), the four scores (1–5), the four confidences (0–1) and a
free comment. The same columns, with the same header texts, make the CSV form. A hidden sheet
(``META_SHEET``) holds the batch, the annotator, the template version and checksums of the locked
texts, overall and per row, so an edited id or text is found and named by its row.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from annotation.axes import AXES, AXIS_LABELS_JA
from core.spreadsheet_cells import (
    UNWRITABLE_CHARACTERS,
    column_letter,  # noqa: F401  (the sheet modules use it from here)
    xlsx_string,
)

TEMPLATE_VERSION = "1"
RATINGS_SHEET = "評価"  # the sheet annotators fill
GUIDE_SHEET = "説明"  # axis definitions and levels (Japanese)
META_SHEET = "_meta"  # hidden: what the sheet was made for
DEFAULT_CONFIDENCE = 1.0


@dataclass(frozen=True)
class Column:
    key: str  # the field it holds: id, context, user, response, <axis>, <axis>_confidence, comment
    header: str  # the header cell's text; the reader matches it exactly
    width: float  # in Excel's character units, wide enough for Japanese text
    locked: bool  # a text the annotator must not change (checked by checksum)


COLUMNS: tuple[Column, ...] = (
    Column("id", "id", 16, True),
    Column("context", "文脈 (context)", 40, True),
    Column("user", "ユーザー発話 (user)", 45, True),
    Column("response", "AI応答 (response)", 60, True),
    *(Column(axis, f"{AXIS_LABELS_JA[axis]} ({axis}) 1-5", 14, False) for axis in AXES),
    *(Column(f"{axis}_confidence", f"確信度 {axis} (0-1)", 14, False) for axis in AXES),
    Column("comment", "コメント (comment)", 30, False),
)
HEADERS: tuple[str, ...] = tuple(column.header for column in COLUMNS)
KEYS: tuple[str, ...] = tuple(column.key for column in COLUMNS)
LOCKED_KEYS: tuple[str, ...] = tuple(column.key for column in COLUMNS if column.locked)
SCORE_KEYS: tuple[str, ...] = AXES
CONFIDENCE_KEYS: tuple[str, ...] = tuple(f"{axis}_confidence" for axis in AXES)

# The hidden sheet: key/value rows from A1, then a table of per-row digests under ROW_DIGESTS_HEADER.
META_KEYS = ("template_version", "batch_id", "batch", "annotator", "rows", "checksum")
ROW_DIGESTS_HEADER = ("row", "id", "digest")


def context_text(context: Sequence[dict]) -> str:
    """The context turns as the sheet shows them, one per line: ``[-1] user: text``, in turn order."""
    turns = sorted(context, key=lambda turn: turn["turn"])
    return "\n".join(f"[{turn['turn']:+d}] {turn['speaker']}: {turn['text']}" for turn in turns)


def row_digest(dialogue_id: str, context: str, user: str, response: str) -> str:
    """SHA-256 of one row's locked texts as written in the sheet (the context as ``context_text`` made it)."""
    data = "\x1f".join((dialogue_id, context, user, response)).encode("utf-8")
    return hashlib.sha256(data).hexdigest()


def sheet_checksum(digests: Iterable[str]) -> str:
    """One checksum over every row's digest, in row order."""
    return hashlib.sha256("\n".join(digests).encode("ascii")).hexdigest()


MAX_CELL_CHARS = 32_767  # Excel's limit for one cell, counted in UTF-16 code units as Excel counts
# UNWRITABLE_CHARACTERS: what the file's XML cannot hold (openpyxl's illegal characters, lone surrogates,
# U+FFFE/U+FFFF). ``cell_text`` is here, not in the template writer, so the sheet reader and importer do not
# import openpyxl's writer at Django start-up (issue 31).


def cell_text(value: str, where: str) -> str:
    """``value`` as its cell holds it (exactly, but CR as LF); ``where`` names it in the errors."""
    if not isinstance(value, str):
        raise TypeError(f"{where}: expected a text, not {type(value).__name__}")
    text = xlsx_string(value)
    if (bad := UNWRITABLE_CHARACTERS.search(text)) is not None:
        raise ValueError(f"{where}: the character U+{ord(bad.group()):04X} cannot be written into a spreadsheet cell")
    if len(text) > MAX_CELL_CHARS // 2 and (length := len(text.encode("utf-16-le")) // 2) > MAX_CELL_CHARS:
        raise ValueError(f"{where}: {length} characters, more than a spreadsheet cell holds ({MAX_CELL_CHARS})")
    return text


# What the template writer takes, here so that building it imports no openpyxl (issue 31).
@dataclass(frozen=True)
class TemplateItem:
    id: str
    context: list[dict]  # [{"turn": -1, "speaker": "user"|"ai", "text": str}, ...]
    user: str
    response: str
    scores: dict[str, int] | None = None  # prefilled when the annotator rated it already
    confidence: dict[str, float] | None = None
    comment: str = ""


@dataclass(frozen=True)
class Guide:
    """The instructions sheet's content, already in Japanese (the caller translates)."""

    title: str
    paragraphs: list[str]  # how to fill the sheet
    axes: list[tuple[str, str, list[tuple[int, str, str]]]]  # (axis name, definition, [(level, label, description)])
