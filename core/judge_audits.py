"""The contract between Layer3 (which judges) and annotation (where people audit the judge), issue 18.

Apps never import each other, so they meet here:

* Layer3 registers a *source* of judged units: for a Layer3 batch name and a kind (``gv`` GV items,
  ``w2wr`` W2WR bindings), every unit the LLM judge scored, with what a rater needs to see
  (``context``), what the judge said and the offline baseline judge's score for the same question.
* Annotation registers a *calibration* provider: for a Layer3 batch name, the calibration reports of
  the audits drawn from it (JSON-able dicts; the shape is documented in
  ``annotation.aggregation.calibration``), which Layer3 shows on its batch page, exports and serves.

Both are plain functions registered in ``AppConfig.ready``; an app that is not installed leaves its
side empty (no source: audits cannot be created; no provider: no calibration).

``context`` keys (camelCase, as Layer3's JSON): for GV ``{"concern", "trialId", "itemId", "widgetId",
"widgetType", "portId", "text", "widget"}`` (``widget`` the generated widget object); for W2WR
``{"concern", "trialId", "bindingId", "description", "source": {"widget", "type", "port", "config"},
"target": {...}}`` (``config`` the generated widget object, None for a widget the spec lacks). It never
holds the judge's score or reasoning: it is what raters see. All text in it is model output: escape it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

KINDS = ("gv", "w2wr")


class AuditSourceError(Exception):
    """The units cannot be drawn (unknown batch, nothing judged, ...): the message is for the user."""


@dataclass(frozen=True, slots=True)
class JudgedUnit:
    key: str  # unique in the batch: "<trial id>:<itemId>" (GV) or "<trial id>:<bindingId>" (W2WR)
    trial_id: str
    model_config: str
    judge_model: str
    judge_prompt: str  # the prompt version, e.g. "layer3.gv_relevance@1"
    score: int  # 0..2
    label: str
    reasoning: str
    baseline_score: int | None  # the offline baseline judge on the same question; None: ask JudgedPopulation.baseline
    context: dict = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class JudgedPopulation:
    batch: str
    kind: str
    units: tuple[JudgedUnit, ...]
    # The judge's rate over the whole batch per "<model>@<prompt>": usefulRate (GV) or correctnessRate (W2WR)
    judge_rates: dict[str, float] = field(default_factory=dict)
    # The baseline judge's score of a unit whose baseline_score is None, asked for the sampled units only
    baseline: Callable[[JudgedUnit], int | None] | None = None

    def baseline_of(self, unit: JudgedUnit) -> int | None:
        if unit.baseline_score is not None or self.baseline is None:
            return unit.baseline_score
        return self.baseline(unit)


_registry: dict[str, Callable] = {}


def register_judged_units(source: Callable[[str, str], JudgedPopulation]) -> None:
    """Layer3: ``source(batch_name, kind)`` returns the batch's judged units or raises AuditSourceError."""
    _registry["source"] = source


def register_calibration(provider: Callable[[str], list[dict]]) -> None:
    """Annotation: ``provider(batch_name)`` returns the reports of the audits of that Layer3 batch, newest first."""
    _registry["calibration"] = provider


def register_batch_names(names: Callable[[], list[str]]) -> None:
    """Layer3: ``names()`` lists the batches that have been evaluated (those an audit may be drawn from)."""
    _registry["batch_names"] = names


def register_batch_page(url_of: Callable[[str], str | None]) -> None:
    """Layer3: ``url_of(batch_name)`` is the batch's page (where the calibration card is), None if unknown."""
    _registry["batch_page"] = url_of


def judged_units(batch: str, kind: str) -> JudgedPopulation:
    if kind not in KINDS:
        raise AuditSourceError(f"kind {kind!r}: accepted {', '.join(KINDS)}")
    source = _registry.get("source")
    if source is None:
        raise AuditSourceError("no app provides judged units (is layer3 installed?)")
    return source(batch, kind)


def calibration_reports(batch: str) -> list[dict]:
    provider = _registry.get("calibration")
    return provider(batch) if provider is not None else []


def batch_page_url(batch: str) -> str | None:
    url_of = _registry.get("batch_page")
    return url_of(batch) if url_of is not None else None


def evaluated_batch_names() -> list[str]:
    names = _registry.get("batch_names")
    return names() if names is not None else []
