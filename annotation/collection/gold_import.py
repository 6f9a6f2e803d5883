"""Gold items for training (seed 000, B.3.1): importing them from JSONL, and checking the test set."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from annotation.axes import AXES
from annotation.io.gold_records import GoldRecord, load_gold
from annotation.io.records import Problem, ProblemLog, readable_paths
from annotation.models.training import GoldItem


@dataclass
class GoldImportSummary:
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    practice: int = 0  # items of each set in the files
    test: int = 0
    dry_run: bool = False

    def __str__(self) -> str:
        verb = "would create" if self.dry_run else "created"
        return (
            f"{verb} {self.created}, updated {self.updated}, unchanged {self.unchanged} "
            f"({self.practice} practice, {self.test} test in the files)"
        )


def _values_of(record: GoldRecord) -> dict:
    values = {
        "user_text": record.user,
        "response_text": record.response,
        "context": record.context,
        "explanation": record.explanation,
        "set": record.set,
    }
    values.update({f"{axis}_gold": record.gold[axis] for axis in AXES})
    return values


_COMPARED = ["user_text", "response_text", "context", "explanation", "set", *(f"{axis}_gold" for axis in AXES)]


def import_gold(*, paths: Sequence[str | Path], dry_run: bool = False, update: bool = False) -> GoldImportSummary:
    """Store the gold items of JSONL files (annotation.io.gold_records); any problem stores nothing.

    Re-importing the same content changes nothing; an existing id with other content is a problem
    unless ``update`` is given. New items are placed after the stored ones, in file order.
    """
    log = ProblemLog()
    records = load_gold(readable_paths(paths, log), log=log)
    stored = {
        row["external_id"]: row
        for row in GoldItem.objects.filter(external_id__in=[r.id for r in records]).values(
            "pk", "external_id", *_COMPARED
        )
    }
    summary = GoldImportSummary(dry_run=dry_run)
    new: list[GoldRecord] = []
    changed: list[tuple[int, GoldRecord]] = []
    for record in records:
        setattr(summary, record.set, getattr(summary, record.set) + 1)
        row = stored.get(record.id)
        if row is None:
            new.append(record)
        elif all(row[name] == value for name, value in _values_of(record).items()):
            summary.unchanged += 1
        elif update:
            changed.append((row["pk"], record))
        else:
            message = f"gold item {record.id!r} already exists with different content; use --update to replace it"
            log.add(Problem(record.file, record.line, "$.id", message))
    log.raise_if_any()
    summary.created, summary.updated = len(new), len(changed)
    if dry_run:
        return summary
    with transaction.atomic():
        now = timezone.now()
        start = (GoldItem.objects.aggregate(last=Max("position"))["last"] or 0) + 1
        GoldItem.objects.bulk_create(
            [
                GoldItem(external_id=r.id, position=start + i, created_at=now, updated_at=now, **_values_of(r))
                for i, r in enumerate(new)
            ]
        )
        for pk, record in changed:
            GoldItem.objects.filter(pk=pk).update(updated_at=now, **_values_of(record))
    return summary


def gold_test_set_warnings() -> list[str]:
    """Why the stored test set cannot separate good annotators from bad ones, if it cannot (English)."""
    items = list(GoldItem.objects.filter(set=GoldItem.Set.TEST).values(*(f"{axis}_gold" for axis in AXES)))
    if not items:
        return ["there are no test items: annotators cannot take the qualification test"]
    warnings = []
    for axis in AXES:
        levels = {item[f"{axis}_gold"] for item in items}
        if len(levels) < 2:
            warnings.append(
                f"{axis}: every test item has gold score {levels.pop()}, so kappa is undefined "
                "for an annotator who agrees on all items"
            )
    return warnings
