"""How the panel names and formats the eleven Layer3 metrics (seed 002 §2.1, §8.1)."""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _


@dataclass(frozen=True)
class MetricLabel:
    code: str
    name: str | Promise
    kind: str  # "rate" (shown as %), "score" (0–2), "number"


METRICS = {
    "GV_CR": MetricLabel("GV_CR", _("GV mean score (0–2)"), "score"),
    "GV_UR": MetricLabel("GV_UR", _("GV useful rate"), "rate"),
    "W2WR_FR": MetricLabel("W2WR_FR", _("W2WR flow rate"), "rate"),
    "W2WR_MR": MetricLabel("W2WR_MR", _("W2WR meta rate"), "rate"),
    "W2WR_SYR": MetricLabel("W2WR_SYR", _("W2WR sync rate"), "rate"),
    "W2WR_SC": MetricLabel("W2WR_SC", _("W2WR mean score (0–2)"), "score"),
    "W2WR_CR": MetricLabel("W2WR_CR", _("W2WR correctness rate"), "rate"),
    "WS_ENT": MetricLabel("WS_ENT", _("Widget entropy"), "number"),
    "GC_NC": MetricLabel("GC_NC", _("Nodes"), "number"),
    "GC_EC": MetricLabel("GC_EC", _("Edges"), "number"),
    "GC_DEN": MetricLabel("GC_DEN", _("Graph density"), "number"),
}

# Where each metric's batch figure lives in ``BatchLayer3Results`` (overall and per model config).
RESULT_PATHS = {
    "GV_CR": ("gvContentRelevance", "avgScore"),
    "GV_UR": ("gvContentRelevance", "usefulRate"),
    "W2WR_FR": ("w2wrTypeDistribution", "flowRate"),
    "W2WR_MR": ("w2wrTypeDistribution", "metaRate"),
    "W2WR_SYR": ("w2wrTypeDistribution", "syncRate"),
    "W2WR_SC": ("w2wrSemanticCorrectness", "avgScore"),
    "W2WR_CR": ("w2wrSemanticCorrectness", "correctnessRate"),
    "WS_ENT": ("widgetDiversity", "avgEntropy"),
    "GC_NC": ("graphComplexity", "avgNodeCount"),
    "GC_EC": ("graphComplexity", "avgEdgeCount"),
    "GC_DEN": ("graphComplexity", "avgDensity"),
}
MAIN_COLUMNS = ("GV_UR", "W2WR_CR", "WS_ENT", "GC_NC", "GC_DEN")  # the seed's per-model table (§8.1)

MAGNITUDES = {"negligible": "–", "small": "S", "medium": "M", "large": "L"}


def format_value(code: str, value: float | None) -> str:
    """``78.5%`` for rates, ``1.46`` for scores and other figures; an en dash when there is no value."""
    if value is None:
        return "–"
    if METRICS[code].kind == "rate":
        return f"{100 * value:.1f}%"
    return f"{value:.2f}"


def result_value(layer3: dict | None, code: str) -> float | None:
    block, key = RESULT_PATHS[code]
    return ((layer3 or {}).get(block) or {}).get(key)
