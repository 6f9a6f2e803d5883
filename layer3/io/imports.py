"""Importing trial logs (``manage.py import_trials``): every line checked, any problem stores nothing.

Re-importing a file stores nothing new: a trial whose id the batch already has is compared with the
stored one; the same content is counted as unchanged, other content is a problem (stored logs are
evidence; a different run goes into a batch of its own).

The batch's one widget denominator ``|W|`` (``layer3.metrics.widget_types``) is kept here: the import
records the widget types its trials use outside the catalogue. When a later import adds a type the
batch had not seen, ``|W|`` grows, so the widget diversity of every stored trial that has it is
recomputed with the new ``|W|`` (that block only, as a run replacing it would: ``evaluatedAt`` moves,
judged blocks are kept) and the batch figures refreshed, in the import's transaction.
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

from core.bulk import bulk_insert, bulk_update_json, values_in
from core.jsonl import (
    Problem,
    ProblemLog,
    check_batch_name,
    load_records_with_unique_ids,
    readable_paths,
    report_files_without_records,
)
from layer3.io.trials import TrialRecord, parse_trial
from layer3.metrics import UISpecError, calculate_widget_diversity, parse_ui_spec
from layer3.metrics.catalogue import CatalogueError, parse_catalogue
from layer3.metrics.jscompat import js_iso_timestamp
from layer3.metrics.widget_types import merge_seen, outside_counts
from layer3.models import Batch, TrialLog
from layer3.runs.plan import merge
from layer3.runs.services import batch_catalogue, batch_results_refresh, batch_widget_types, runs_in_flight

_STORED = ("model_config", "stage", "input_text", "generated_data")
_DIVERSITY = "widgetDiversity"
_RECOMPUTE_CHUNK = 2000


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
        text = f"{self.created} new, {self.unchanged} unchanged"
        if self.widget_types_added:
            names = ", ".join(json.dumps(name, ensure_ascii=False) for name in self.widget_types_added)
            text += f"; widget types outside the catalogue added to |W|: {names}"
        if self.recomputed:
            verb = "would change and be recomputed" if self.dry_run else "changed and were recomputed"
            text += f"; the widget diversity figures of {self.recomputed} stored trial(s) {verb}"
        return text


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
    if not new:
        return summary
    catalogue = batch_catalogue(batch) if batch is not None else (catalogue or settings.LAYER3_WIDGET_CATALOGUE)
    found = outside_counts((record.generated_data for record in new), catalogue)
    _seen, summary.widget_types_added = merge_seen(batch.widget_types_seen if batch is not None else (), found)
    if batch is not None and summary.widget_types_added:
        _refuse_during_a_run(batch, summary.widget_types_added, log)
        summary.recomputed = _with_diversity(batch).count()
    if dry_run:
        return summary
    with transaction.atomic():
        batch, created = Batch.objects.get_or_create(
            name=batch_name, defaults={"experiment_id": experiment_id or "", "widget_catalogue": list(catalogue)}
        )
        # Locked as a run's start locks it: a run starts before this import (and refuses it) or after it.
        batch = Batch.objects.select_for_update().get(pk=batch.pk)
        seen, summary.widget_types_added = merge_seen(batch.widget_types_seen, found)
        if summary.widget_types_added and not created:
            _refuse_during_a_run(batch, summary.widget_types_added, ProblemLog())
        now = timezone.now()
        encode = json.JSONEncoder(ensure_ascii=False).encode
        bulk_insert(
            TrialLog,
            ["batch", "external_id", "model_config", "stage", "input_text", "generated_data", "created_at"],
            ((batch.pk, r.id, r.model_config, r.stage, r.input_text, encode(r.generated_data), now) for r in new),
        )
        if seen != batch.widget_types_seen:
            batch.widget_types_seen = seen
            batch.save(update_fields=["widget_types_seen"])
        summary.recomputed = 0
        if summary.widget_types_added and not created:
            summary.recomputed = _recompute_diversity(batch, now=now)
    return summary


def _with_diversity(batch: Batch):
    """The batch's trials with widget diversity figures (whose ``|W|`` a new type changes)."""
    return TrialLog.objects.filter(batch=batch, layer3_metrics__has_key=_DIVERSITY)


def _refuse_during_a_run(batch: Batch, added: tuple[str, ...], log: ProblemLog) -> None:
    """A new widget type changes |W| under a run in flight, which would store figures of the old one."""
    run = runs_in_flight(batch).first()
    if run is not None:
        names = ", ".join(json.dumps(name, ensure_ascii=False) for name in added)
        log.add(
            Problem(
                "--batch",
                None,
                "$",
                f"these trials add widget types outside the catalogue ({names}), which change |W| of every trial "
                f"of batch {batch.name!r}, while its run {run.pk} is {run.status}; import them after the run ends",
            )
        )
        log.raise_if_any()


def _recompute_diversity(batch: Batch, *, now) -> int:
    """Recompute the widget diversity of the batch's trials with its current |W|; refresh the batch figures.

    Only the ``widgetDiversity`` block changes; the record is merged as a run merges a replaced block
    (``layer3.runs.plan.merge``: ``evaluatedAt`` becomes now, judged blocks and their judges are kept).
    """
    catalogue = batch_catalogue(batch)
    types = frozenset(batch_widget_types(batch))
    evaluated_at = js_iso_timestamp(now)
    pks = list(_with_diversity(batch).order_by("pk").values_list("pk", flat=True))
    recomputed = 0
    for start in range(0, len(pks), _RECOMPUTE_CHUNK):  # bounded IN lists and memory
        rows = TrialLog.objects.filter(pk__in=pks[start : start + _RECOMPUTE_CHUNK]).values_list(
            "pk", "generated_data", "layer3_metrics"
        )
        written = []
        for pk, data, stored in rows:
            try:
                spec = parse_ui_spec(data)
            except UISpecError:  # never evaluated as a spec, so it holds no diversity to recompute
                continue
            block = calculate_widget_diversity(spec, catalogue=catalogue, available_types=types)
            written.append((pk, merge(stored, {_DIVERSITY: block}, evaluated_at)))
        bulk_update_json(TrialLog, "layer3_metrics", written)
        recomputed += len(written)
    if recomputed:
        batch_results_refresh(batch=batch)
    return recomputed
