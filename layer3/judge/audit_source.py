"""The judged units of a Layer3 batch, for judge audits (issue 18; the contract is ``core.judge_audits``).

Read from what the judge runs stored in each trial's ``layer3_metrics``: GV items from
``generatedValueRelevance.itemEvaluations`` (key ``"<trial id>:<itemId>"``), W2WR bindings from
``w2wrSemanticCorrectness.bindingEvaluations`` (key ``"<trial id>:<bindingId>"``); the judge is the
trial's ``evaluatorModel`` with the prompt version the runs use (``GV_PROMPT`` / ``W2WR_PROMPT``).

What a rater sees (``context``) is rebuilt from the trial: its concern and the generated widget
objects. An evaluation is matched to the item or binding it judged in the order the judge was
asked (§4.1 extraction order, binding order), so that a spec with repeated widget, item or binding
ids still gives each unit its own widget and description; generated data that no longer parses, or
no longer holds the unit, leaves the widget objects out (None) and keeps what the evaluation itself
recorded. A repeated item or binding id within a trial gets ``#2``, ``#3``, ... after its key, and an
over-long key is shortened with a digest, so that keys stay unique and fit the audit tables.

``baselineScore`` is the offline baseline judge (``llm.baseline``) on the same question, a floor to
compare the judge with: when the judge *is* the baseline its own score is reused; otherwise it is
left None and computed for the sampled units only, by ``baseline_score`` (the population's ``baseline``).
"""

from __future__ import annotations

import hashlib
import shlex
from collections import Counter
from collections.abc import Iterator

from django.urls import reverse

from core.judge_audits import KINDS, AuditSourceError, JudgedPopulation, JudgedUnit
from layer3.judge.items import UNKNOWN_WIDGET_TYPE
from layer3.judge.services import GV_PROMPT, W2WR_PROMPT
from layer3.metrics import UISpec, UISpecError, extract_generated_values, parse_ui_spec
from layer3.models import Batch, TrialLog
from llm import baseline

MAX_KEY = 300  # annotation's AuditItem.key
MAX_LABEL = 40  # annotation's AuditItem.judge_label
UNKNOWN_JUDGE = "unknown"  # a trial judged before evaluatorModel was recorded
USEFUL = 2  # the top of both scales: useful (GV), correct (W2WR)

# kind -> (metric, list of evaluations, id field, prompt, how to run the judged evaluation)
_SOURCES = {
    "gv": ("generatedValueRelevance", "itemEvaluations", "itemId", GV_PROMPT, "--judge llm"),
    "w2wr": ("w2wrSemanticCorrectness", "bindingEvaluations", "bindingId", W2WR_PROMPT, "--judge llm --w2wr-semantic"),
}


def judged_units(batch_name: str, kind: str) -> JudgedPopulation:
    """Every unit of ``kind`` the judge scored in batch ``batch_name``; ``AuditSourceError`` says why none."""
    if kind not in KINDS:
        raise AuditSourceError(f"kind {kind!r}: accepted {', '.join(KINDS)}")
    batch = Batch.objects.filter(name=batch_name).first()
    if batch is None:
        known = list(Batch.objects.order_by("name").values_list("name", flat=True)[:10])
        hint = f"; Layer3 batches: {', '.join(known)}" if known else "; there are no Layer3 batches yet"
        raise AuditSourceError(f"there is no Layer3 batch named {batch_name!r}{hint}")
    metric, evaluations_key, _id, _prompt, how = _SOURCES[kind]
    units = tuple(_units(batch, kind))
    if not units:
        raise AuditSourceError(
            f"Layer3 batch {batch_name!r} has no judged {'GV items' if kind == 'gv' else 'W2WR bindings'}: "
            f"no trial has {metric}.{evaluations_key}. Evaluate it with the LLM judge first "
            f"(python manage.py evaluate_layer3 {shlex.quote(batch_name)} {how}, or --judge baseline offline)"
        )
    return JudgedPopulation(
        batch=batch.name, kind=kind, units=units, judge_rates=_judge_rates(units), baseline=baseline_score
    )


def _judge_rates(units: tuple[JudgedUnit, ...]) -> dict[str, float]:
    """The share of units scored 2 per judge ("<model>@<prompt>"): the batch's usefulRate / correctnessRate."""
    totals, top = Counter(), Counter()
    for unit in units:
        judge = f"{unit.judge_model}@{unit.judge_prompt}"
        totals[judge] += 1
        top[judge] += unit.score == USEFUL
    return {judge: top[judge] / total for judge, total in sorted(totals.items())}


def _units(batch: Batch, kind: str) -> Iterator[JudgedUnit]:
    metric = _SOURCES[kind][0]
    trials = (
        TrialLog.objects.filter(batch=batch, layer3_metrics__has_key=metric)
        .order_by("external_id")
        .only("external_id", "model_config", "input_text", "generated_data", "layer3_metrics")
    )
    for trial in trials.iterator(chunk_size=500):
        yield from (_gv_units if kind == "gv" else _w2wr_units)(trial)


def _evaluations(trial: TrialLog, kind: str) -> list[dict]:
    """The trial's evaluations of ``kind`` that carry an id and a score on the 0–2 scale (others are skipped)."""
    metric, evaluations_key, id_key, _prompt, _how = _SOURCES[kind]
    metrics = trial.layer3_metrics if isinstance(trial.layer3_metrics, dict) else {}
    judged = metrics.get(metric)
    evaluations = judged.get(evaluations_key) if isinstance(judged, dict) else None
    if not isinstance(evaluations, list):
        return []
    return [
        evaluation
        for evaluation in evaluations
        if isinstance(evaluation, dict)
        and isinstance(evaluation.get(id_key), str)
        and type(evaluation.get("score")) is int
        and 0 <= evaluation["score"] <= 2
    ]


def _spec(trial: TrialLog) -> UISpec | None:
    try:
        return parse_ui_spec(trial.generated_data)
    except UISpecError:
        return None


def _judge(trial: TrialLog) -> str:
    model = (trial.layer3_metrics or {}).get("evaluatorModel")
    return model if isinstance(model, str) and model else UNKNOWN_JUDGE


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


class _Keys:
    """Unique keys within a trial: ``<trial id>:<id>``, then ``#2``, ``#3`` for a repeated id, shortened if long."""

    def __init__(self, trial_id: str) -> None:
        self.trial_id = trial_id
        self.seen: Counter[str] = Counter()

    def __call__(self, unit_id: str) -> str:
        self.seen[unit_id] += 1
        count = self.seen[unit_id]
        key = f"{self.trial_id}:{unit_id}" + (f"#{count}" if count > 1 else "")
        if len(key) <= MAX_KEY:
            return key
        digest = hashlib.sha256(key.encode()).hexdigest()[:16]
        return f"{key[: MAX_KEY - len(digest) - 1]}~{digest}"


def _unit(trial: TrialLog, judge: str, prompt: str, evaluation: dict, *, key: str, context: dict) -> JudgedUnit:
    return JudgedUnit(
        key=key,
        trial_id=trial.external_id,
        model_config=trial.model_config,
        judge_model=judge,
        judge_prompt=prompt,
        score=evaluation["score"],
        label=_text(evaluation.get("label"))[:MAX_LABEL],
        reasoning=_text(evaluation.get("reasoning")),
        baseline_score=evaluation["score"] if judge == baseline.BASELINE_MODEL else None,  # else asked lazily
        context=context,
    )


def _gv_units(trial: TrialLog) -> Iterator[JudgedUnit]:
    evaluations = _evaluations(trial, "gv")
    if not evaluations:
        return
    spec = _spec(trial)
    # The extracted items with their own widget object, in the order the judge was asked (§4.1).
    found: list[tuple[dict, dict]] = []
    for widget in spec.widgets if spec is not None else ():
        alone = UISpec(widgets=[widget], bindings=[], source_widgets=[], target_widgets=[])
        found.extend((item, widget) for item in extract_generated_values(alone))
    position, keys, judge = 0, _Keys(trial.external_id), _judge(trial)
    for evaluation in evaluations:
        widget = None
        for index in range(position, len(found)):
            item, candidate = found[index]
            if item["itemId"] == evaluation["itemId"] and item["widgetId"] == evaluation.get("widgetId"):
                widget, position = candidate, index + 1
                break
        widget_type = widget["component"] if widget is not None else ""
        text = _text(evaluation.get("text"))
        yield _unit(
            trial,
            judge,
            GV_PROMPT,
            evaluation,
            key=keys(evaluation["itemId"]),
            context={
                "concern": trial.input_text,
                "trialId": trial.external_id,
                "itemId": evaluation["itemId"],
                "widgetId": _text(evaluation.get("widgetId")),
                "widgetType": widget_type,
                "portId": _text(evaluation.get("portId")),
                "text": text,
                "widget": widget,
            },
        )


def _w2wr_units(trial: TrialLog) -> Iterator[JudgedUnit]:
    evaluations = _evaluations(trial, "w2wr")
    if not evaluations:
        return
    spec = _spec(trial)
    bindings = spec.bindings if spec is not None else []
    widgets: dict[str, dict] = {}
    for widget in spec.widgets if spec is not None else ():
        widgets[widget["id"]] = widget  # a repeated id: the last, whose type the judge was told
    position, keys, judge = 0, _Keys(trial.external_id), _judge(trial)
    for evaluation in evaluations:
        binding = None
        for index in range(position, len(bindings)):
            if bindings[index]["id"] == evaluation["bindingId"]:
                binding, position = bindings[index], index + 1
                break
        description = _text(binding.get("description")) if binding is not None else ""
        ends = {}
        for end in ("source", "target"):
            widget_id = _text(evaluation.get(f"{end}Widget"))
            config = widgets.get(widget_id)
            ends[end] = {
                "widget": widget_id,
                "type": config["component"] if config is not None else UNKNOWN_WIDGET_TYPE,
                "port": _text(evaluation.get(f"{end}Port")),
                "config": config,
            }
        yield _unit(
            trial,
            judge,
            W2WR_PROMPT,
            evaluation,
            key=keys(evaluation["bindingId"]),
            context={
                "concern": trial.input_text,
                "trialId": trial.external_id,
                "bindingId": evaluation["bindingId"],
                "description": description,
                **ends,
            },
        )


def baseline_score(unit: JudgedUnit) -> int:
    """The offline baseline judge on the unit's question, from what its context holds (what the judge was asked).

    Asked for the sampled units only (``JudgedPopulation.baseline``): ~1 ms a GV item adds up on a large batch.
    """
    context = unit.context
    if unit.judge_prompt == GV_PROMPT:
        return baseline.gv_relevance(context["concern"], context["text"], context["widgetType"])["score"]
    source, target = context["source"], context["target"]
    return baseline.w2wr_semantic(
        context["concern"],
        source["widget"],
        source["type"],
        source["port"],
        target["widget"],
        target["type"],
        target["port"],
        context["description"],
    )["score"]


def evaluated_batch_names() -> list[str]:
    """Batches a Layer3 run has evaluated, newest evaluation first (an audit needs judged units from one)."""
    batches = Batch.objects.filter(layer3_evaluated_at__isnull=False).order_by("-layer3_evaluated_at", "name")
    return list(batches.values_list("name", flat=True))


def batch_page_url(batch_name: str) -> str | None:
    """The batch's page in the Layer3 panel (where its calibration card is), None for an unknown name."""
    pk = Batch.objects.filter(name=batch_name).values_list("pk", flat=True).first()
    return reverse("layer3:batch", args=[pk]) if pk is not None else None
