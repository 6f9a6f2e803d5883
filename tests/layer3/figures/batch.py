"""A realistic demo batch for the figure tests: generated trials, their computed metrics, a seeded fake judge."""

import random
from datetime import UTC, datetime

from layer3.demo.generator import generate_trials
from layer3.judge.items import gv_items, w2wr_items
from layer3.judge.summaries import Verdict, gv_relevance, w2wr_semantic
from layer3.metrics import UISpecError, compute_trial_metrics, parse_ui_spec
from layer3.metrics.provenance import BASELINE_MODEL, PROMPTS, judge_label, judge_record

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
FAKE_JUDGE = "fake-judge"


def judges_of(model: str) -> dict:
    """``{"gv": record, "w2wr": record}`` of the judge ``model`` (the baseline's model makes a baseline judge)."""
    kind = "baseline" if model == BASELINE_MODEL else "llm"
    return {group: judge_record(kind, model, prompt) for group, prompt in PROMPTS.items()}


def label(model: str, group: str = "gv") -> str:
    """The label of the judge ``model`` on ``group``, as tables and figures write it."""
    return judge_label(judges_of(model)[group])


def _verdicts(rng, items, weights, labels):
    scores = rng.choices((0, 1, 2), weights=weights, k=len(items))
    return [Verdict({"score": s, "label": labels[s], "reasoning": "fake judge"}) for s in scores]


def demo_batch(count=125, seed=2026, judges=None):
    """``{model config: [Layer3MetricsV1 dict]}`` for ``count`` generated trials (broken ones stored as errors).

    ``judges`` maps a model config to the judge models that score its trials in turn (trial i of the config
    gets ``judges[config][i % len]``); by default every trial is judged by the LLM ``fake-judge``."""
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
        turns = (judges or {}).get(model) or (FAKE_JUDGE,)
        judge = turns[len(by_model.get(model, ())) % len(turns)]
        record = judges_of(judge)
        metrics["evaluatorModel"] = judge
        metrics["generatedValueRelevance"] = gv_relevance(gv, _verdicts(rng, gv, gv_weights, GV_LABELS), record["gv"])
        metrics["w2wrSemanticCorrectness"] = w2wr_semantic(
            sc, _verdicts(rng, sc, sc_weights, SC_LABELS), record["w2wr"]
        )
        by_model.setdefault(model, []).append(metrics)
    return by_model


def judged_trial(judge=FAKE_JUDGE, **blocks):
    """``layer3_trial(**blocks)`` (tests.layer3.statistics.trials) whose judged blocks record the judge ``judge``."""
    from tests.layer3.statistics.trials import layer3_trial

    trial = layer3_trial(**blocks)
    for group, block in (("gv", "generatedValueRelevance"), ("w2wr", "w2wrSemanticCorrectness")):
        if block in trial:
            trial[block]["judge"] = judges_of(judge)[group]
    return trial
