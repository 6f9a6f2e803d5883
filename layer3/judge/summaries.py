"""The judged part of a trial's ``Layer3MetricsV1`` (seed 002 §3.1), from the judges' verdicts (pure).

A verdict is the gateway's validated reply ``{"score", "label", "reasoning"}`` or, for an item whose
call failed after the gateway's retries (or whose reply stayed malformed), ``None`` with the
failure. Failed items count in ``totalItems`` but not in ``evaluatedItems``; they are listed under
``judgeErrors`` (a key the seed does not have) so a reader sees which and why, and a forced re-run
asks again. The averages and rates are over the judged items, with the seed's ``|| 1`` guard (no
judged item gives 0, as the TypeScript would); the batch aggregation and the statistics skip such
trials by their ``evaluatedItems`` / ``evaluatedBindings`` of 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from layer3.judge.items import JudgeItem


@dataclass(frozen=True, slots=True)
class Verdict:
    parsed: dict | None  # {"score", "label", "reasoning"} when the judge answered
    status: str = "ok"  # the gateway's status: ok | parse_error | error
    error: str = ""


def _judged(items: Sequence[JudgeItem], verdicts: Sequence[Verdict], id_key: str):
    evaluations, errors, counts, score_sum = [], [], [0, 0, 0], 0
    for item, verdict in zip(items, verdicts, strict=True):
        if verdict.parsed is None:
            errors.append({id_key: item.detail[id_key], "status": verdict.status, "error": verdict.error})
            continue
        score = verdict.parsed["score"]
        counts[score] += 1
        score_sum += score
        evaluations.append(
            {**item.detail, "score": score, "label": verdict.parsed["label"], "reasoning": verdict.parsed["reasoning"]}
        )
    return evaluations, errors, counts, score_sum


def gv_relevance(items: Sequence[JudgeItem], verdicts: Sequence[Verdict]) -> dict:
    """``GeneratedValueRelevanceMetrics`` with ``itemEvaluations`` (and ``judgeErrors`` when any failed)."""
    evaluations, errors, counts, score_sum = _judged(items, verdicts, "itemId")
    judged = len(evaluations)
    metrics = {
        "totalItems": len(items),
        "evaluatedItems": judged,
        "distribution": {"notRelevant": counts[0], "generic": counts[1], "useful": counts[2]},
        "avgScore": score_sum / (judged or 1),
        "usefulRate": counts[2] / (judged or 1),
        "itemEvaluations": evaluations,
    }
    if errors:
        metrics["judgeErrors"] = errors
    return metrics


def w2wr_semantic(items: Sequence[JudgeItem], verdicts: Sequence[Verdict]) -> dict:
    """``W2WRSemanticCorrectnessMetrics`` with ``bindingEvaluations`` (and ``judgeErrors`` when any failed)."""
    evaluations, errors, counts, score_sum = _judged(items, verdicts, "bindingId")
    judged = len(evaluations)
    metrics = {
        "evaluatedBindings": judged,
        "distribution": {"correct": counts[2], "redundant": counts[1], "wrong": counts[0]},
        "avgScore": score_sum / (judged or 1),
        "correctnessRate": counts[2] / (judged or 1),
        "bindingEvaluations": evaluations,
    }
    if errors:
        metrics["judgeErrors"] = errors
    return metrics
