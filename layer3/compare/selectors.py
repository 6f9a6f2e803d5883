"""Reads for comparing two Layer3 versions: two runs of one batch (their snapshots), or two batches.

``runs_comparison`` and ``batches_comparison`` return a ``Comparison``; ``Comparison.as_dict()`` is the API's
body and what the exports and the page show. A run without a snapshot (one that ended before snapshots were
kept, or has not ended) makes a comparison with ``snapshotMissing`` naming it and no rows, never an error.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db.models import Exists, OuterRef

from layer3.compare.matching import Matching, match_batches, match_runs
from layer3.models import Batch, Layer3Run, Layer3RunResult, TrialLog
from layer3.runs.options import TARGET_STAGE
from layer3.statistics.versions import TrialVersion, changed_trials, compare_versions, sort_changed

MATCHING_RULES = {
    "runs": "the same trial (database id) in both runs' snapshots",
    "batches": "by trial id and model config, then by a unique (input text, model config); "
    "a key held by several trials on either side leaves them all unmatched (duplicate_key)",
}


class ComparisonRefused(ValueError):
    """Two versions that cannot be compared (two runs of different batches), with a code for translation."""

    def __init__(self, code: str, message: str, field: str) -> None:
        self.code = code
        self.field = field
        super().__init__(message)


@dataclass
class Side:
    batch: Batch
    run: Layer3Run | None = None

    def as_dict(self) -> dict:
        run = self.run
        return {
            "batchId": self.batch.pk,
            "batch": self.batch.name,
            "runId": run.pk if run else None,
            "runStatus": run.status if run else None,
            "runCreatedAt": run.created_at.isoformat() if run else None,
            "runJudge": (run.options or {}).get("judge") if run else None,
            "runLlmModel": ((run.options or {}).get("llmModel") or None) if run else None,
        }


@dataclass
class Comparison:
    kind: str  # "runs" | "batches"
    a: Side
    b: Side
    snapshot_missing: list[str] = field(default_factory=list)  # "A", "B": runs without a snapshot
    matching: Matching | None = None
    table: dict | None = None
    changed: list[dict] = field(default_factory=list)

    def sorted_changed(self, sort: str) -> list[dict]:
        return sort_changed(self.changed, sort)

    def as_dict(self, *, sort: str = "delta") -> dict:
        matching = self.matching
        unmatched = matching.unmatched if matching else []
        return {
            "kind": self.kind,
            "a": self.a.as_dict(),
            "b": self.b.as_dict(),
            "snapshotMissing": list(self.snapshot_missing),
            "matching": {
                "rule": MATCHING_RULES[self.kind],
                "pairs": matching.pairs if matching else 0,
                "pairsById": matching.by_id if matching else 0,
                "pairsByKey": matching.by_key if matching else 0,
                "unmatchedA": sum(row.side == "A" for row in unmatched),
                "unmatchedB": sum(row.side == "B" for row in unmatched),
            },
            "unmatched": [
                {
                    "side": row.side,
                    "trialId": row.trial.trial_id,
                    "modelConfig": row.trial.model_config,
                    "reason": row.reason,
                }
                for row in unmatched
            ],
            "rows": self.table["rows"] if self.table else [],
            "summary": self.table["summary"] if self.table else None,
            "changed": self.sorted_changed(sort),
        }


def _compare(comparison: Comparison, matching: Matching, alpha: float) -> Comparison:
    comparison.matching = matching
    comparison.table = compare_versions(matching.groups, alpha=alpha)
    comparison.changed = changed_trials(matching.groups)
    return comparison


def _snapshot(run: Layer3Run) -> list[TrialVersion]:
    rows = Layer3RunResult.objects.filter(run=run).values_list(
        "trial_id", "trial__external_id", "trial__model_config", "metrics"
    )
    return [TrialVersion(external_id, pk, config, metrics) for pk, external_id, config, metrics in rows]


def runs_comparison(*, run_a: Layer3Run, run_b: Layer3Run, alpha: float = 0.05) -> Comparison:
    """The two runs' snapshots of one batch, trial by trial (``ComparisonRefused`` for runs of two batches)."""
    if run_a.batch_id != run_b.batch_id:
        raise ComparisonRefused(
            "runs_of_two_batches",
            f"run {run_b.pk} is of batch {run_b.batch.name}, run {run_a.pk} of batch {run_a.batch.name}: "
            "compare runs of one batch, or compare the two batches",
            "runB",
        )
    comparison = Comparison("runs", Side(run_a.batch, run_a), Side(run_b.batch, run_b))
    versions = []
    for side, run in (("A", run_a), ("B", run_b)):
        has = Layer3RunResult.objects.filter(run=run).exists()
        if not has:
            comparison.snapshot_missing.append(side)
        versions.append(_snapshot(run) if has else [])
    if comparison.snapshot_missing:
        return comparison
    return _compare(comparison, match_runs(*versions), alpha)


def _batch_trials(batch: Batch) -> list[TrialVersion]:
    rows = TrialLog.objects.filter(batch=batch, stage=TARGET_STAGE).values_list(
        "pk", "external_id", "model_config", "layer3_metrics", "input_text"
    )
    return [TrialVersion(external_id, pk, config, metrics, text) for pk, external_id, config, metrics, text in rows]


def batches_comparison(*, batch_a: Batch, batch_b: Batch, alpha: float = 0.05) -> Comparison:
    """Two batches' stage-3 trials, matched (``layer3.compare.matching``), with their latest metrics."""
    comparison = Comparison("batches", Side(batch_a), Side(batch_b))
    return _compare(comparison, match_batches(_batch_trials(batch_a), _batch_trials(batch_b)), alpha)


def finished_runs(batch: Batch):
    """The runs of ``batch`` a comparison may choose, newest first, with whether each has a snapshot."""
    return (
        Layer3Run.objects.filter(batch=batch)
        .exclude(status__in=Layer3Run.IN_FLIGHT)
        .annotate(has_snapshot=Exists(Layer3RunResult.objects.filter(run=OuterRef("pk"))))
        .order_by("-created_at", "-pk")
    )


def trial_version(trial: TrialLog, run: Layer3Run | None) -> tuple[dict | None, bool]:
    """``(metrics, from_snapshot)``: the trial's metrics as ``run`` left them, or its latest without a run."""
    if run is None:
        return trial.layer3_metrics, False
    rows = list(Layer3RunResult.objects.filter(run=run, trial=trial).values_list("metrics", flat=True)[:1])
    return (rows[0], True) if rows else (None, False)
