"""A realistic demo batch for the figure tests: generated trials, their computed metrics, a seeded fake judge."""

import random
from datetime import UTC, datetime

from layer3.demo.generator import generate_trials
from layer3.judge.items import gv_items, w2wr_items
from layer3.judge.summaries import Verdict, gv_relevance, w2wr_semantic
from layer3.metrics import UISpecError, compute_trial_metrics, parse_ui_spec

EVALUATED_AT = datetime(2025, 1, 15, 9, 30, tzinfo=UTC)
# model config -> probabilities of the judge scores 0, 1, 2 (GV relevance, W2WR semantic correctness)
JUDGE_HABITS = {
    "A": ((0.05, 0.25, 0.70), (0.05, 0.15, 0.80)),
    "B": ((0.15, 0.60, 0.25), (0.10, 0.30, 0.60)),
    "C": ((0.05, 0.40, 0.55), (0.05, 0.20, 0.75)),
    "D": ((0.10, 0.35, 0.55), (0.15, 0.35, 0.50)),
    "E": ((0.10, 0.45, 0.45), (0.10, 0.25, 0.65)),
}
GV_LABELS = ("not_relevant", "generic", "useful")
SC_LABELS = ("wrong", "redundant", "correct")


def _verdicts(rng, items, weights, labels):
    scores = rng.choices((0, 1, 2), weights=weights, k=len(items))
    return [Verdict({"score": s, "label": labels[s], "reasoning": "fake judge"}) for s in scores]


def demo_batch(count=125, seed=2026):
    """``{model config: [Layer3MetricsV1 dict]}`` for ``count`` generated trials (broken ones stored as errors)."""
    rng = random.Random(seed)
    by_model = {}
    for trial in generate_trials(count, seed=seed):
        model = trial["modelConfig"]
        try:
            metrics = compute_trial_metrics(trial["generatedData"], evaluated_at=EVALUATED_AT)
        except UISpecError as error:
            by_model.setdefault(model, []).append({"error": str(error)})
            continue
        spec = parse_ui_spec(trial["generatedData"])
        gv_weights, sc_weights = JUDGE_HABITS[model]
        gv = gv_items(spec, trial["inputText"])
        sc = w2wr_items(spec, trial["inputText"])
        metrics["evaluatorModel"] = "fake-judge"
        metrics["generatedValueRelevance"] = gv_relevance(gv, _verdicts(rng, gv, gv_weights, GV_LABELS))
        metrics["w2wrSemanticCorrectness"] = w2wr_semantic(sc, _verdicts(rng, sc, sc_weights, SC_LABELS))
        by_model.setdefault(model, []).append(metrics)
    return by_model
