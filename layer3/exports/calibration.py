"""A judge audit's calibration report as JSON, Markdown and booktabs LaTeX, beside the Layer3 exports (pure Python).

The report is annotation's (issue 18, shape in ``core.judge_audits``); its JSON export is the report
itself. The Markdown (``calibration_markdown``) and the LaTeX (``calibration_latex``) show the same
tables, with the figures of ``calibration_tables``: the judges and the offline baseline (a floor)
against the human consensus and against every human rating, the agreement between people, each
judge against each annotator, the 3×3 confusion matrix, the judge's bias per model configuration,
the rate correction and the items where the judge disagrees with every annotator (with its
reasoning, for prompt revision).

Every text from the report is escaped by the renderer: a model name such as ``gpt|4_o%`` or
reasoning with ``<script>`` prints as written and cannot end a cell or run a command.
"""

from __future__ import annotations

import json
import re

from layer3.exports.calibration_latex import calibration_latex
from layer3.exports.calibration_markdown import calibration_markdown
from layer3.exports.formats import FILE_EXTENSIONS, MAX_NAME_CHARS

CALIBRATION_FORMATS = ("json", "markdown", "latex")
FORMAT_NAMES = {"json": "JSON", "markdown": "Markdown", "latex": "LaTeX"}
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")

__all__ = [
    "CALIBRATION_FORMATS",
    "FORMAT_NAMES",
    "calibration_filename",
    "calibration_json",
    "calibration_latex",
    "calibration_markdown",
]


def calibration_filename(batch: str, fmt: str, audit: object = None) -> str:
    """``layer3-<batch>-calibration[-<audit id>].<ext>``, ASCII letters, digits, ``.``, ``-`` and ``_`` only."""
    if fmt not in CALIBRATION_FORMATS:
        raise ValueError(f"unknown calibration format {fmt!r}; accepted: {', '.join(CALIBRATION_FORMATS)}")
    name = "layer3-" + (_UNSAFE.sub("_", str(batch))[:MAX_NAME_CHARS] or "_") + "-calibration"
    if audit is not None:
        name += "-" + (_UNSAFE.sub("_", str(audit))[:MAX_NAME_CHARS] or "_")
    return name + FILE_EXTENSIONS[fmt]


def calibration_json(report: dict) -> str:
    """The report itself, as indented UTF-8 JSON (NaN refused: the report writes null)."""
    return json.dumps(report, ensure_ascii=False, indent=2, allow_nan=False) + "\n"
