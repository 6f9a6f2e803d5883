"""Evaluating one chunk of trials: the blocks each trial lacks, judge questions, verdicts merged in (pure).

The caller reads the chunk (each row with its stored record and the blocks ``layer3.runs.plan`` says to
compute), passes a ``judge`` callable (the gateway in production, anything in tests) and writes what
comes back; a chunk is the unit that is stored at once, so a run that dies loses at most the chunk in
flight. A block is written whole or not at all: a trial whose judge questions the budget left unasked
keeps its stored judged block (or none) and gets its automatic blocks only, to be judged by a later run.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import cache

from layer3.judge import summaries
from layer3.judge.items import TrialQuestions, gv_items, w2wr_items
from layer3.metrics import UISpecError, compute_trial_metrics, parse_ui_spec
from layer3.metrics.jscompat import js_iso_timestamp
from layer3.metrics.trial import LAYER3_METRICS_VERSION
from layer3.runs.plan import AUTOMATIC_BLOCKS, GV, W2WR, merge

_NO_QUESTIONS = TrialQuestions()  # a trial none of whose judged blocks is computed now (never changed)
_FLAGS = {
    "graphComplexity": "evaluate_complexity",
    "widgetDiversity": "evaluate_diversity",
    "w2wrTypeDistribution": "evaluate_w2wr_type",
}


@dataclass(frozen=True, slots=True)
class TrialRow:
    pk: int
    external_id: str
    model_config: str
    concern: str
    generated_data: object
    stored: dict | None = None  # the trial's stored Layer3MetricsV1, merged into
    blocks: tuple[str, ...] = (*AUTOMATIC_BLOCKS,)  # the blocks to compute now (layer3.runs.plan)


@dataclass(frozen=True, slots=True)
class TrialProblem:
    """A problem of one trial in this run: data that is not a UISpec, or judge answers given up on."""

    pk: int
    external_id: str
    kind: str  # spec | judge
    message: str  # English: "path: problem; accepted: ..." or "3 GV items: error ..."
    path: str = ""
    items: int = 0


@dataclass
class ChunkOutcome:
    written: list[tuple[int, dict]] = field(default_factory=list)  # (trial pk, Layer3MetricsV1)
    evaluated: int = 0
    errors: list[TrialProblem] = field(default_factory=list)  # generated data that is not a UISpec
    judge_failures: list[TrialProblem] = field(default_factory=list)  # items the judge gave up on, per trial
    unjudged: int = 0  # trials whose judge questions the budget left unasked
    last_trial: str = ""
    last_metrics: dict | None = None
    judgement: object = None  # what the judge callable returned (costs, cache hits)
    model_configs: dict[int, str] = field(default_factory=dict)  # trial pk -> model config, of the chunk's rows

    @property
    def failed_items(self) -> int:
        return sum(problem.items for problem in self.judge_failures)


@cache
def _automatic(blocks: tuple[str, ...]) -> tuple[tuple[str, ...], dict[str, bool]]:
    """The automatic blocks among ``blocks`` and the ``compute_trial_metrics`` switches that compute just them."""
    automatic = tuple(block for block in blocks if block in _FLAGS)
    return automatic, {flag: block in automatic for block, flag in _FLAGS.items()}


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
    *,
    now: datetime,
    judge: Callable[[list], object] | None = None,
    catalogue: Collection[str] | None = None,
    available_types: Collection[str] | None = None,
) -> ChunkOutcome:
    """The blocks of every row; ``judge(questions)`` answers the judge questions of all rows at once.

    ``judge`` returns an object with ``gv`` / ``w2wr`` (per row: a list of ``Verdict`` or None),
    ``incomplete`` (row indexes with an unasked item) and ``judges`` (the judge record per block,
    "gv" / "w2wr"), as ``layer3.judge.services.judge_trials`` does. ``catalogue``: the batch's catalogue
    (``layer3.metrics.catalogue``); ``available_types``: the batch's widget types, catalogue and those its
    trials use outside it, whose number is the ``|W|`` of every trial (``layer3.metrics.widget_types``).
    """
    if available_types is not None and not isinstance(available_types, frozenset):
        available_types = frozenset(available_types)  # once per chunk, not per trial
    evaluated_at = js_iso_timestamp(now)
    outcome = ChunkOutcome()
    computed: list[tuple[TrialRow, dict, TrialQuestions]] = []
    for row in rows:
        try:
            spec = parse_ui_spec(row.generated_data)
        except UISpecError as exc:
            outcome.written.append((row.pk, error_metrics(exc, evaluated_at)))
            outcome.errors.append(TrialProblem(row.pk, row.external_id, "spec", str(exc), exc.path))
            continue
        automatic, flags = _automatic(row.blocks)
        blocks: dict = {}
        if automatic:
            metrics = compute_trial_metrics(
                row.generated_data,
                spec=spec,
                evaluated_at=now,
                catalogue=catalogue,
                available_types=available_types,
                **flags,
            )
            blocks = {block: metrics[block] for block in automatic}
        questions = _NO_QUESTIONS
        if GV in row.blocks or W2WR in row.blocks:
            questions = TrialQuestions(
                gv=gv_items(spec, row.concern) if GV in row.blocks else None,
                w2wr=w2wr_items(spec, row.concern) if W2WR in row.blocks else None,
            )
        computed.append((row, blocks, questions))

    judgement = None
    if any(questions is not _NO_QUESTIONS for _row, _blocks, questions in computed):
        if judge is None:
            raise ValueError("the plan asks for a judge but none was given")
        judgement = judge([questions for _row, _blocks, questions in computed])
    outcome.judgement = judgement
    for index, (row, blocks, questions) in enumerate(computed):
        unjudged = judgement is not None and index in judgement.incomplete
        if judgement is not None and not unjudged:
            _add_judged(outcome, row, blocks, questions, judgement, index)
        if unjudged:
            outcome.unjudged += 1
        else:
            outcome.evaluated += 1
        if not blocks:
            continue
        record = merge(row.stored, blocks, evaluated_at)
        outcome.written.append((row.pk, record))
        outcome.last_trial, outcome.last_metrics = row.external_id, record
    return outcome


def _add_judged(outcome: ChunkOutcome, row: TrialRow, blocks: dict, questions: TrialQuestions, judgement, index):
    failed = []
    if questions.gv is not None:
        block = summaries.gv_relevance(questions.gv, judgement.gv[index], judgement.judges["gv"])
        blocks[GV] = block
        failed += [("GV", error) for error in block.get("judgeErrors", ())]
    if questions.w2wr is not None:
        block = summaries.w2wr_semantic(questions.w2wr, judgement.w2wr[index], judgement.judges["w2wr"])
        blocks[W2WR] = block
        failed += [("W2WR", error) for error in block.get("judgeErrors", ())]
    if failed:
        first = failed[0][1]
        groups = "/".join(sorted({kind for kind, _error in failed}))
        message = (
            f"the judge gave no verdict for {len(failed)} {groups} items after the retries "
            f"(first: {first.get('status')}: {first.get('error') or 'no reply'})"
        )
        outcome.judge_failures.append(TrialProblem(row.pk, row.external_id, "judge", message, items=len(failed)))


def progress_metrics(metrics: dict | None) -> dict | None:
    """``Partial<Layer3MetricsV1>`` for a progress event: the figures without the per-item lists."""
    if metrics is None:
        return None
    details = ("itemEvaluations", "bindingEvaluations", "bindingClassifications", "judgeErrors", "selectedWidgets")
    return {
        key: ({k: v for k, v in value.items() if k not in details} if isinstance(value, dict) else value)
        for key, value in metrics.items()
    }
