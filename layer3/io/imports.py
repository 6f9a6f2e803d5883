"""Importing trial logs (``manage.py import_trials``): every line checked, any problem stores nothing.

Re-importing a file stores nothing new: a trial whose id the batch already has is compared with the
stored one; the same content is counted as unchanged, other content is a problem (stored logs are
evidence; a different run goes into a batch of its own).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_noop

from core.bulk import bulk_insert, values_in
from core.jsonl import (
    Problem,
    ProblemLog,
    check_batch_name,
    load_records_with_unique_ids,
    readable_paths,
    report_files_without_records,
)
from layer3.io.trials import TrialRecord, parse_trial
from layer3.metrics.catalogue import CatalogueError, parse_catalogue
from layer3.models import Batch, TrialLog

_STORED = ("model_config", "stage", "input_text", "generated_data")


@dataclass
class TrialImportSummary:
    created: int = 0
    unchanged: int = 0
    dry_run: bool = False
    # Widget types this import adds to the batch's denominator |W| (layer3.metrics.diversity), and how many
    # stored trials' figures were recomputed because of them (would be, in a dry run).
    widget_types_added: tuple[str, ...] = ()
    recomputed: int = 0

    def __str__(self) -> str:
        return f"{self.created} new, {self.unchanged} unchanged"


def read_catalogue(path: str | Path, log: ProblemLog) -> tuple[str, ...] | None:
    """The widget types of a catalogue file (``layer3.metrics.catalogue``), or None with the problem logged."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        log.add(Problem(str(path), None, "$", f"cannot read the widget catalogue: {exc}"))
        return None
    try:
        return parse_catalogue(text)
    except CatalogueError as exc:
        log.add(Problem(str(path), None, "$", f"widget catalogue: {exc}"))
        return None


def _check_experiment_id(experiment_id: str | None, log: ProblemLog, *, limit: int) -> None:
    """An experiment id is printable text that fits its column (it shows in exports and the panel)."""
    if experiment_id is None:
        return
    if len(experiment_id) > limit or not experiment_id.isprintable():
        template = gettext_noop(
            "the experiment id must be at most %(limit)s printable characters (no control characters)"
        )
        log.add(Problem.of("--experiment", None, "experimentId", template, limit=limit))


def trials_import(
    *,
    paths: Sequence[str | Path],
    batch_name: str,
    experiment_id: str | None = None,
    dry_run: bool = False,
    catalogue_path: str | Path | None = None,
) -> TrialImportSummary:
    """Check every trial of ``paths`` and store the new ones in batch ``batch_name`` (created if needed).

    ``catalogue_path``: the widget types the trials' generator could choose from (default: the
    ``LAYER3_WIDGET_CATALOGUE`` setting); a new batch records it, an existing one must match it.
    """
    log = ProblemLog()
    catalogue = read_catalogue(catalogue_path, log) if catalogue_path is not None else None
    before = len(log.problems)
    check_batch_name(batch_name, log, limit=Batch._meta.get_field("name").max_length, digits_only=False)
    named = len(log.problems) == before  # a refused name is never looked up (a NUL would fail the query)
    _check_experiment_id(experiment_id, log, limit=Batch._meta.get_field("experiment_id").max_length)
    readable = readable_paths(paths, log)
    records: list[TrialRecord] = load_records_with_unique_ids(readable, parse_trial, log=log)
    report_files_without_records(
        readable, records, log, empty=gettext_noop("no trials in this file (it is empty or has only blank lines)")
    )
    batch = Batch.objects.filter(name=batch_name).first() if named else None
    if batch is not None and experiment_id is not None and batch.experiment_id != experiment_id:
        log.add(
            Problem(
                "--experiment",
                None,
                "$",
                f"batch {batch_name!r} belongs to experiment {batch.experiment_id!r}, not {experiment_id!r}",
            )
        )
    if batch is not None and catalogue is not None and tuple(batch.widget_catalogue) != catalogue:
        log.add(
            Problem(
                str(catalogue_path),
                None,
                "$",
                f"batch {batch_name!r} was imported with another widget catalogue ({len(batch.widget_catalogue)} "
                f"types: {', '.join(batch.widget_catalogue[:5])}{', ...' if len(batch.widget_catalogue) > 5 else ''}); "
                "trials generated from another catalogue go into a batch of their own",
            )
        )
    log.raise_if_any()

    stored: dict[str, tuple] = {}
    if batch is not None and records:
        rows = values_in(
            TrialLog, ("external_id", *_STORED), {"external_id": [r.id for r in records], "batch": [batch.pk]}
        )
        stored = {external_id: tuple(values) for external_id, *values in rows}
    summary = TrialImportSummary(dry_run=dry_run)
    new: list[TrialRecord] = []
    for record in records:
        old = stored.get(record.id)
        if old is None:
            new.append(record)
        elif old == record.values():
            summary.unchanged += 1
        else:
            log.add(
                Problem(
                    record.file,
                    record.line,
                    "$",
                    f"batch {batch_name!r} already has trial {record.id!r} with other content; "
                    "import a different run into a batch of its own",
                )
            )
    log.raise_if_any()
    summary.created = len(new)
    if dry_run or not new:
        return summary
    with transaction.atomic():
        types = list(catalogue if catalogue is not None else settings.LAYER3_WIDGET_CATALOGUE)
        batch, _ = Batch.objects.get_or_create(
            name=batch_name, defaults={"experiment_id": experiment_id or "", "widget_catalogue": types}
        )
        now = timezone.now()
        encode = json.JSONEncoder(ensure_ascii=False).encode
        bulk_insert(
            TrialLog,
            ["batch", "external_id", "model_config", "stage", "input_text", "generated_data", "created_at"],
            ((batch.pk, r.id, r.model_config, r.stage, r.input_text, encode(r.generated_data), now) for r in new),
        )
    return summary
