"""Export formats of a batch's Layer3 results (seed 002 §5, ``GET .../layer3-export?format=``), pure Python.

The formatters are generators of ``str`` chunks, meant for a streaming HTTP response:

- ``iter_json(document, trials=None)``: the results document, with the raw trials when given;
- ``iter_ndjson(trials)``: one trial per line with its metrics (the API's ``export/trials.jsonl``);
- ``iter_csv(trials, bom=True, widget_types=None)``: one row per trial, columns ``CSV_COLUMNS`` (with the
  judge of each judged block, ``gv_judge`` and ``w2wrSemantic_judge``, the trial's
  ``diversity_availableWidgetCount`` and ``diversity_outOfCatalogue``, and the batch's |W| and types
  outside its catalogue, ``batch_availableWidgetCount`` and ``batch_outOfCatalogue``);
- ``iter_markdown(document)`` and ``iter_latex(document)``: the per-model and statistics tables
  for a paper, with the judge of every judged figure in a footnote, the cluster-bootstrap interval
  beside each two-proportion test and the multiple-comparison family under the statistics.

A judged block without judged items has null averages and rates in the JSON trials and empty cells
in the CSV, also where an older stored trial holds 0 there: "no items" never reads as a measured 0.

``document`` is the results document (camelCase keys, a public contract): ``batchId``,
``experimentId``, ``evaluatedAt``, ``overall``, ``byModel``, ``statistics`` and ``widgetTypes``; trials are read
once, one by one. ``export_filename`` names the download, ``MEDIA_TYPES`` gives its content type.
"""

from __future__ import annotations

import re

from layer3.exports.json_csv import CSV_COLUMNS, iter_csv, iter_json, iter_ndjson
from layer3.exports.latex import iter_latex
from layer3.exports.markdown import iter_markdown

FORMATS = ("json", "csv", "markdown", "latex")
FILE_EXTENSIONS = {"json": ".json", "csv": ".csv", "markdown": ".md", "latex": ".tex"}
MEDIA_TYPES = {
    "json": "application/json",
    "csv": "text/csv; charset=utf-8",
    "markdown": "text/markdown; charset=utf-8",
    "latex": "application/x-tex",
}
MAX_NAME_CHARS = 100
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")

__all__ = [
    "CSV_COLUMNS",
    "FILE_EXTENSIONS",
    "FORMATS",
    "MEDIA_TYPES",
    "export_filename",
    "iter_csv",
    "iter_json",
    "iter_latex",
    "iter_markdown",
    "iter_ndjson",
    "trials_filename",
]


def _safe(name: str) -> str:
    return _UNSAFE.sub("_", name)[:MAX_NAME_CHARS] or "_"


def export_filename(batch_id: str, fmt: str, model_config: str | None = None) -> str:
    """``layer3-<batch>[-<model config>].<ext>``: ASCII letters, digits, ``.``, ``-`` and ``_`` only.

    Any other character (a space, a slash, Japanese text) becomes ``_``, one for one; each name part
    is cut at ``MAX_NAME_CHARS`` characters. Raises ``ValueError`` for a format not in ``FORMATS``.
    """
    if fmt not in FILE_EXTENSIONS:
        raise ValueError(f"unknown export format {fmt!r}; accepted: {', '.join(FORMATS)}")
    return _stem(batch_id, model_config) + FILE_EXTENSIONS[fmt]


def trials_filename(batch_id: str, extension: str, model_config: str | None = None) -> str:
    """The per-trial files' names: ``layer3-<batch>[-<model config>].csv`` (the name ``export_filename`` gives the
    CSV export, the same file) and ``.jsonl`` for the NDJSON one; ``extension`` is ``.csv`` or ``.jsonl``."""
    if extension not in (".csv", ".jsonl"):
        raise ValueError(f"unknown trials file extension {extension!r}; accepted: .csv, .jsonl")
    return _stem(batch_id, model_config) + extension


def _stem(batch_id: str, model_config: str | None) -> str:
    name = "layer3-" + _safe(batch_id)
    if model_config is not None:
        name += "-" + _safe(model_config)
    return name
