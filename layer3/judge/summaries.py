"""The judged part of a trial's ``Layer3MetricsV1`` (seed 002 §3.1), from the judges' verdicts (pure).

A verdict is the gateway's validated reply ``{"score", "label", "reasoning"}`` or, for an item whose
call failed after the gateway's retries (or whose reply stayed malformed), ``None`` with the
failure. Failed items count in ``totalItems`` but not in ``evaluatedItems``; they are listed under
``judgeErrors`` (a key the seed does not have) so a reader sees which and why, and the next run with
the same judge asks again (the answered items come from the gateway's cache). The averages and rates
are over the judged items. Where the seed's ``|| 1`` guard would give 0 for a trial with no judged
item (no generated values, or every call failed), they are ``None``: "no items" must not read as a
measured 0.

Each block records its judge (``"judge": {"kind", "model", "prompt"}``, ``layer3.metrics.provenance``),
so every figure made from it knows who scored it.
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


def _mean(total: int, judged: int) -> float | None:
    return total / judged if judged else None


def gv_relevance(items: Sequence[JudgeItem], verdicts: Sequence[Verdict], judge: dict) -> dict:
    """``GeneratedValueRelevanceMetrics`` with ``judge``, ``itemEvaluations`` (and ``judgeErrors`` when any failed)."""
    evaluations, errors, counts, score_sum = _judged(items, verdicts, "itemId")
    judged = len(evaluations)
    metrics = {
        "totalItems": len(items),
        "evaluatedItems": judged,
        "distribution": {"notRelevant": counts[0], "generic": counts[1], "useful": counts[2]},
        "avgScore": _mean(score_sum, judged),
        "usefulRate": _mean(counts[2], judged),
        "judge": dict(judge),
        "itemEvaluations": evaluations,
    }
    if errors:
        metrics["judgeErrors"] = errors
    return metrics


def w2wr_semantic(items: Sequence[JudgeItem], verdicts: Sequence[Verdict], judge: dict) -> dict:
    """``W2WRSemanticCorrectnessMetrics`` with ``judge``, ``bindingEvaluations`` (and ``judgeErrors`` if any failed)."""
    evaluations, errors, counts, score_sum = _judged(items, verdicts, "bindingId")
    judged = len(evaluations)
    metrics = {
        "evaluatedBindings": judged,
        "distribution": {"correct": counts[2], "redundant": counts[1], "wrong": counts[0]},
        "avgScore": _mean(score_sum, judged),
        "correctnessRate": _mean(counts[2], judged),
        "judge": dict(judge),
        "bindingEvaluations": evaluations,
    }
    if errors:
        metrics["judgeErrors"] = errors
    return metrics
