"""A batch's files as the agreement dashboard and the API serve them: one place, so both send the same bytes.

Ratings as JSONL (``export_annotations``) and CSV (``export_annotations --format csv``); consensus and
rejected items (``export_consensus`` defaults, adjudications applied) as JSONL and CSV. The text comes in
chunks for a streaming response: ratings are read from the database in chunks and written a block of
lines at a time (never all at once); the consensus is merged in memory first (the merge needs every
rating of an item), then written a block at a time. The file names are the dashboard's
(``<batch>-ratings.jsonl``, ``<batch>-consensus-with-llm.csv``, ...); ``include_llm`` reads the
``?include_llm=0|1`` of both.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator

from annotation.io import sheets
from annotation.io.exports import annotation_lines
from annotation.models import Batch
from annotation.review.selectors import batch_consensus
from annotation.selectors import annotation_sheet_rows

JSONL_CONTENT_TYPE = "application/x-ndjson; charset=utf-8"
CSV_CONTENT_TYPE = sheets.CSV_CONTENT_TYPE
BLOCK_LINES = 1_000  # lines joined into one chunk of the response
PARTS = ("consensus", "rejected")
_encode = json.JSONEncoder(ensure_ascii=False, allow_nan=False).encode


class BadQuery(ValueError):
    """A query parameter of a download that is not accepted; the message names it and what is."""

    def __init__(self, name: str, message: str) -> None:
        self.name = name
        super().__init__(message)


def include_llm(value: str | None) -> bool:
    """``?include_llm=1``: the LLM raters' ratings count in the consensus, as ``export_consensus --include-llm``."""
    value = "0" if value is None else value
    if value not in ("0", "1"):
        raise BadQuery(
            "include_llm", f"include_llm={value!r}: accepted 0 (people only, the default) or 1 (with the LLM raters)"
        )
    return value == "1"


def filename(batch: Batch, what: str, extension: str) -> str:
    """``<batch>-<what><extension>``, every character but letters, digits, ``.``, ``-`` and ``_`` as ``_``."""
    return re.sub(r"[^\w.-]", "_", f"{batch.name}-{what}") + extension


def merged_name(part: str, with_llm: bool) -> str:
    return f"{part}-with-llm" if with_llm else part


def _blocks(lines: Iterable[str], size: int = BLOCK_LINES) -> Iterator[str]:
    block: list[str] = []
    for line in lines:
        block.append(line)
        if len(block) >= size:
            yield "".join(block)
            block.clear()
    if block:
        yield "".join(block)


def ratings_jsonl(batch: Batch) -> Iterator[str]:
    """The batch's ratings, one seed A.3 output line each (``export_annotations --batch``)."""
    return _blocks(line if line.endswith("\n") else line + "\n" for line in annotation_lines(batch_name=batch.name))


def ratings_csv(batch: Batch) -> Iterator[str]:
    """The batch's ratings as ``export_annotations --format csv`` writes them (BOM, formulas neutralised)."""
    return sheets.iter_ratings_csv(annotation_sheet_rows(batch_name=batch.name))


def merged(batch: Batch, with_llm: bool = False):
    """The batch's ``MergeResult`` (consensus and rejected lines) with the export defaults; None without ratings."""
    found = batch_consensus(batch, include_llm=with_llm)
    return None if found is None else found[0]


def merged_jsonl(result, part: str) -> Iterator[str]:
    """``part`` ("consensus" or "rejected") of a ``MergeResult`` as JSONL."""
    rows = result.consensus if part == "consensus" else result.rejected
    return _blocks(_encode(row) + "\n" for row in rows)


def merged_csv(result, part: str) -> Iterator[str]:
    """``part`` of a ``MergeResult`` as the CSV of ``export_consensus --format csv`` (consensus.csv, rejected.csv)."""
    if part == "consensus":
        return sheets.iter_consensus_csv(result.consensus)
    return sheets.iter_rejected_csv(result.rejected)
