"""The export of a batch's Layer3 results as a file (``manage.py export_layer3``, and the API's download).

A read: the stored figures (``results_document``) and the stored per-trial metrics, streamed; no
metric is computed again here. One place, so the command and the API serve the same bytes.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from layer3.exports.formats import FORMATS, MEDIA_TYPES, export_filename, iter_csv, iter_json, iter_latex, iter_markdown
from layer3.models import Batch, TrialLog
from layer3.selectors import results_document, trials_for_export, widget_types_document
from layer3.statistics import CORRECTIONS, DEFAULT_FAMILY


class ExportError(ValueError):
    pass


@dataclass
class ExportFile:
    filename: str
    media_type: str
    chunks: Iterator[str]


def export_file(
    batch: Batch,
    *,
    fmt: str,
    include_raw: bool = False,
    model_config: str | None = None,
    correction: str = "bonferroni",
    family: str | int = DEFAULT_FAMILY,
) -> ExportFile:
    """What ``export_layer3`` writes; ``ExportError`` names the bad argument and what is accepted."""
    if fmt not in FORMATS:
        raise ExportError(f"format {fmt!r}: accepted {', '.join(FORMATS)}")
    if correction not in CORRECTIONS:
        raise ExportError(f"correction {correction!r}: accepted {', '.join(CORRECTIONS)}")
    if batch.layer3_results is None:
        raise ExportError(
            f"batch {batch.name} has no Layer3 results yet: run `python manage.py evaluate_layer3 {batch.name}` first"
        )
    if model_config is not None:
        known = sorted(set(TrialLog.objects.filter(batch=batch).values_list("model_config", flat=True)))
        if model_config not in known:
            raise ExportError(f"model config {model_config!r}: batch {batch.name} has {', '.join(known)}")
    if fmt == "csv":
        trials = trials_for_export(batch, model_config=model_config)
        chunks = iter_csv(trials, widget_types=widget_types_document(batch))
    else:
        try:
            document = results_document(batch, model_config=model_config, correction=correction, family=family)
        except ValueError as exc:  # a family smaller than the tests performed
            raise ExportError(f"family: {exc}") from None
        if fmt == "json":
            trials = trials_for_export(batch, model_config=model_config) if include_raw else None
            chunks = iter_json(document, trials)
        elif fmt == "markdown":
            chunks = iter_markdown(document)
        else:
            chunks = iter_latex(document)
    return ExportFile(export_filename(batch.name, fmt, model_config), MEDIA_TYPES[fmt], chunks)
