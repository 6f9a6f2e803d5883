"""Who judged a Layer3 figure: the judge record on each judged block and its label (pure: no Django).

Every judged block of a trial's ``Layer3MetricsV1`` (``generatedValueRelevance``,
``w2wrSemanticCorrectness``) carries ``"judge": {"kind", "model", "prompt"}``:

- ``kind``: ``llm`` (an OpenAI-compatible endpoint) or ``baseline`` (the offline TF-IDF judge of
  ``llm.baseline``, never an LLM);
- ``model``: the model that answered (``gpt-4o``, ``gemma2:27b``; ``baseline-tfidf@1`` for the baseline);
- ``prompt``: the prompt id and version asked (``layer3.gv_relevance@1``).

Two figures may only be compared or pooled when their judges are equal: the same kind, model and
prompt version. ``judge_label`` writes a judge as one string, ``kind:model:prompt``
(``llm:gpt-4o:layer3.gv_relevance@1``), the form every table, export and API answer shows; a model
name may hold colons (``gemma2:27b``), so a label is for reading and comparing, and the record is what
a program takes apart. A block stored before judges were recorded (none should remain: migration
``0003`` fills them in) reads as ``UNRECORDED``, a judge of its own, so it never blends with a
recorded one.
"""

from __future__ import annotations

from collections.abc import Mapping

KINDS = ("baseline", "llm")
# The judged blocks of a trial's metrics, by the short name the batch results and the API use.
JUDGED_BLOCKS = {"gv": "generatedValueRelevance", "w2wr": "w2wrSemanticCorrectness"}
PROMPTS = {"gv": "layer3.gv_relevance@1", "w2wr": "layer3.w2wr_semantic@1"}
# Which judged block each judged metric reads.
METRIC_JUDGE = {"GV_CR": "gv", "GV_UR": "gv", "W2WR_SC": "w2wr", "W2WR_CR": "w2wr"}
UNRECORDED = "unrecorded"
BASELINE_MODEL = "baseline-tfidf@1"  # llm.baseline.BASELINE_MODEL (this module imports no app code)


def judge_record(kind: str, model: str, prompt: str) -> dict:
    """``{"kind", "model", "prompt"}``; ValueError for an unknown kind or an empty model or prompt."""
    if kind not in KINDS:
        raise ValueError(f"judge kind {kind!r}: accepted {', '.join(KINDS)}")
    if not model or not prompt:
        raise ValueError("a judge needs its model and its prompt (id@version)")
    return {"kind": kind, "model": model, "prompt": prompt}


def judge_label(record: object) -> str:
    """``kind:model:prompt`` of a judge record; ``UNRECORDED`` for a block without one."""
    if not isinstance(record, Mapping):
        return UNRECORDED
    return f"{record.get('kind', '?')}:{record.get('model', '?')}:{record.get('prompt', '?')}"


def block_judge(block: object) -> str:
    """The label of the judge that scored ``block`` (a judged block of a trial's metrics)."""
    return judge_label(block.get("judge")) if isinstance(block, Mapping) else UNRECORDED


def legacy_record(evaluator_model: str | None, block: str) -> dict:
    """The judge of a block stored before judges were recorded, from the trial's ``evaluatorModel``.

    Until then every judged block of a trial came from one run with one judge, whose model the
    trial's ``evaluatorModel`` holds; the prompts had only version 1.
    """
    model = evaluator_model or UNRECORDED
    kind = "baseline" if model == BASELINE_MODEL else "llm"
    return {"kind": kind, "model": model, "prompt": PROMPTS[block]}


def evaluator_model(metrics: Mapping) -> str | None:
    """The seed's ``evaluatorModel`` of a trial: its judged blocks' model(s), comma-separated, or None."""
    models = []
    for block in JUDGED_BLOCKS.values():
        part = metrics.get(block)
        if isinstance(part, Mapping) and isinstance(part.get("judge"), Mapping):
            model = part["judge"].get("model")
            if model and model not in models:
                models.append(model)
    return ", ".join(models) or None
