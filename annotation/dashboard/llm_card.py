"""Reads and form parsing for the dashboard's "LLM vs humans" card (issue 18): the LLM raters' agreement with
the humans from the stored report, whether the LLM rater can run here, and the run form.

The figures come from the report's ``llm_raters`` section (``annotation.aggregation.llm_agreement``), beside
the human-human figures of the same report, so that both were computed from the same ratings.
"""

from __future__ import annotations

import math
import unicodedata
from dataclasses import dataclass

from django.conf import settings
from django.utils.translation import gettext as _

from annotation.axes import AXES
from annotation.guidelines.scale import AXIS_NAMES
from annotation.job_handlers import LLM_RATE
from annotation.models import AgreementReport, Annotation, Batch
from core.models import Job
from llm import services as gateway

CURRENCIES = ("JPY", "USD")
MODEL_MAX = 150  # AnnotatorProfile.llm_model's length


def _number(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def _ci(ci: list[float] | None) -> str:
    return "—" if not ci else f"[{ci[0]:.3f}, {ci[1]:.3f}]"


def llm_comparison(report: AgreementReport | None) -> list[dict]:
    """Per LLM rater of the report: per axis, its kappa vs the humans [CI] beside the human-human kappa [CI]."""
    if report is None:
        return []
    section = report.report.get("llm_raters") or {}
    human_axes = report.report.get("axes", {})
    raters = []
    for rater in section.get("raters", []):
        rows = []
        for axis in AXES:
            entries = section.get("axes", {}).get(axis, {}).get("raters", [])
            entry = next((e for e in entries if e["annotator"] == rater["annotator"]), None)
            if entry is None:
                continue
            human = human_axes.get(axis) or {}
            rows.append(
                {
                    "axis": axis,
                    "label": AXIS_NAMES[axis],
                    "llm_kappa": entry.get("kappa_vs_humans"),
                    "llm_kappa_text": _number(entry.get("kappa_vs_humans")),
                    "llm_ci_text": _ci(entry.get("ci95")),
                    "llm_n_items": entry.get("n_items", 0),
                    "llm_reason": entry.get("reason"),
                    "n_humans": sum(1 for p in entry.get("pairs", []) if p.get("kappa") is not None),
                    "human_kappa_text": _number(human.get("kappa")),
                    "human_ci_text": _ci(human.get("ci95")),
                }
            )
        raters.append({"annotator": rater["annotator"], "label": rater["label"], "rows": rows})
    return raters


def llm_ratings_in_report(report: AgreementReport | None) -> int:
    section = (report.report.get("llm_raters") or {}) if report else {}
    first = section.get("axes", {}).get(AXES[0], {})
    return sum(int(entry.get("n_ratings", 0)) for entry in first.get("raters", []))


def llm_ratings_stored(batch: Batch) -> int:
    return Annotation.objects.filter(dialogue__batch=batch, source=Annotation.Source.LLM).count()


def running_llm_job(batch: Batch) -> Job | None:
    """An LLM rating of this batch that has not finished yet."""
    unfinished = Job.objects.filter(kind=LLM_RATE, params__batch_id=batch.pk).exclude(status__in=Job.FINISHED)
    return unfinished.order_by("-created_at").first()


def llm_card(batch: Batch, report: AgreementReport | None) -> dict:
    stored = llm_ratings_stored(batch)
    return {
        "available": gateway.configured(),
        "default_model": settings.LLM_MODEL or "",
        "currencies": CURRENCIES,
        "raters": llm_comparison(report),
        "stored": stored,
        # LLM ratings stored since the report (or never in one): a recompute brings them onto the page.
        "not_in_report": stored != llm_ratings_in_report(report),
        "job": running_llm_job(batch),
    }


@dataclass
class RunRequest:
    model: str
    budget: float | None
    currency: str

    @property
    def params(self) -> dict:
        return {"model": self.model, "budget": self.budget, "currency": self.currency}


def parse_run_form(data) -> tuple[RunRequest | None, str | None]:
    """The model, budget and currency of the estimate/run form, or an error saying what would be accepted."""
    model = (data.get("model") or "").strip() or (settings.LLM_MODEL or "")
    if not model:
        return None, _("Name a model: there is no default (LLM_MODEL is not set).")
    if len(model) > MODEL_MAX:
        return None, _("The model name is longer than %(n)s characters.") % {"n": MODEL_MAX}
    if any(unicodedata.category(char).startswith("C") for char in model):
        return None, _(
            "The model name %(given)s contains a control character; give the name as the endpoint knows it."
        ) % {"given": repr(model)}
    currency = (data.get("currency") or "JPY").upper()
    if currency not in CURRENCIES:
        return None, _("Currency %(given)s: accepted JPY or USD.") % {"given": currency}
    text = (data.get("budget") or "").strip()
    budget = None
    if text:
        try:
            budget = float(text)
        except ValueError:
            budget = math.nan
        if not math.isfinite(budget) or budget < 0:
            return None, _("Budget %(given)s: give an amount of zero or more, or leave it empty for no limit.") % {
                "given": text
            }
    return RunRequest(model, budget, currency), None
