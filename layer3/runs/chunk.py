"""Evaluating one chunk of trials: metrics, judge questions, verdicts merged in (pure: no Django).

The caller reads the chunk, passes a ``judge`` callable (the gateway in production, anything in
tests) and writes what comes back; a chunk is the unit that is stored at once, so a run that dies
loses at most the chunk in flight.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from layer3.judge import summaries
from layer3.judge.items import TrialQuestions, gv_items, w2wr_items
from layer3.metrics import UISpecError, compute_trial_metrics, parse_ui_spec
from layer3.metrics.jscompat import js_iso_timestamp
from layer3.metrics.trial import LAYER3_METRICS_VERSION
from layer3.runs.options import EvaluationOptions


@dataclass(frozen=True, slots=True)
class TrialRow:
    pk: int
    external_id: str
    model_config: str
    concern: str
    generated_data: object


@dataclass
class ChunkOutcome:
    written: list[tuple[int, dict]] = field(default_factory=list)  # (trial pk, Layer3MetricsV1)
    evaluated: int = 0
    errors: list[tuple[str, str]] = field(default_factory=list)  # (trial id, "path: problem")
    unjudged: int = 0  # trials left unevaluated because the budget stopped the judge
    last_trial: str = ""
    last_metrics: dict | None = None
    judgement: object = None  # what the judge callable returned (costs, cache hits)


def error_metrics(error: UISpecError, evaluated_at: str) -> dict:
    """What a trial whose generated data is not a UISpec stores: the problem and its JSON path."""
    return {
        "version": LAYER3_METRICS_VERSION,
        "evaluatedAt": evaluated_at,
        "error": f"{error.problem}; accepted: {error.accepted}",
        "path": error.path,
    }


def evaluate_chunk(
    rows: Sequence[TrialRow],
    options: EvaluationOptions,
    *,
    now: datetime,
    judge: Callable[[list], object] | None = None,
) -> ChunkOutcome:
    """Metrics for every row; ``judge(questions)`` answers the judge questions of all rows at once.

    ``judge`` returns an object with ``gv`` / ``w2wr`` (per row: a list of ``Verdict`` or None),
    ``incomplete`` (row indexes with an unasked item) and ``evaluator_model``, as
    ``layer3.judge.services.judge_trials`` does.
    """
    evaluated_at = js_iso_timestamp(now)
    outcome = ChunkOutcome()
    computed: list[tuple[TrialRow, dict, TrialQuestions | None]] = []
    for row in rows:
        try:
            metrics = compute_trial_metrics(
                row.generated_data,
                evaluated_at=now,
                evaluate_complexity=options.evaluate_complexity,
                evaluate_diversity=options.evaluate_diversity,
                evaluate_w2wr_type=options.evaluate_w2wr_type,
            )
        except UISpecError as exc:
            outcome.written.append((row.pk, error_metrics(exc, evaluated_at)))
            outcome.errors.append((row.external_id, str(exc)))
            continue
        questions = None
        if options.uses_judge:
            spec = parse_ui_spec(row.generated_data)  # parsed again: cheap next to a judge call
            questions = TrialQuestions(
                gv=gv_items(spec, row.concern) if options.judges_gv else None,
                w2wr=w2wr_items(spec, row.concern) if options.judges_w2wr else None,
            )
        computed.append((row, metrics, questions))

    judgement = None
    if options.uses_judge and computed:
        if judge is None:
            raise ValueError("the options ask for a judge but none was given")
        judgement = judge([questions for _row, _metrics, questions in computed])
    outcome.judgement = judgement
    for index, (row, metrics, questions) in enumerate(computed):
        if judgement is not None:
            if index in judgement.incomplete:
                outcome.unjudged += 1
                continue
            metrics["evaluatorModel"] = judgement.evaluator_model
            if questions.gv is not None:
                metrics["generatedValueRelevance"] = summaries.gv_relevance(questions.gv, judgement.gv[index])
            if questions.w2wr is not None:
                metrics["w2wrSemanticCorrectness"] = summaries.w2wr_semantic(questions.w2wr, judgement.w2wr[index])
        outcome.written.append((row.pk, metrics))
        outcome.evaluated += 1
        outcome.last_trial, outcome.last_metrics = row.external_id, metrics
    return outcome


def progress_metrics(metrics: dict | None) -> dict | None:
    """``Partial<Layer3MetricsV1>`` for a progress event: the figures without the per-item lists."""
    if metrics is None:
        return None
    details = ("itemEvaluations", "bindingEvaluations", "bindingClassifications", "judgeErrors", "selectedWidgets")
    return {
        key: ({k: v for k, v in value.items() if k not in details} if isinstance(value, dict) else value)
        for key, value in metrics.items()
    }
