"""What the Markdown and LaTeX exports show, independent of the markup (pure Python).

The per-model table has one row per ``byModel`` entry and an "Overall" row (n = the sum of the
trial counts); its values are ``BatchLayer3Results`` fields, all to 3 decimals. The statistics
table has one row per ``StatisticalTestResult``. Number formats, the same in both outputs:

- rates and averages: 3 decimals (``0.250``); test statistics: 2 decimals; effect sizes: 3 decimals
  (so that a value just under a magnitude threshold, 0.098 against 0.1, does not print as 0.10);
- p-values: 3 significant digits in fixed notation (``0.0457``, ``0.500``, ``1.00``), anything
  below 0.001 as ``< 0.001``;
- a value that is None (or NaN) is missing, shown as a dash by the renderer.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

# (column, block of BatchLayer3Results, field), seed 002 §3.2 LAYER3_METRICS order.
METRIC_COLUMNS = (
    ("GV_CR", "gvContentRelevance", "avgScore"),
    ("GV_UR", "gvContentRelevance", "usefulRate"),
    ("W2WR_FR", "w2wrTypeDistribution", "flowRate"),
    ("W2WR_MR", "w2wrTypeDistribution", "metaRate"),
    ("W2WR_SYR", "w2wrTypeDistribution", "syncRate"),
    ("W2WR_SC", "w2wrSemanticCorrectness", "avgScore"),
    ("W2WR_CR", "w2wrSemanticCorrectness", "correctnessRate"),
    ("WS_ENT", "widgetDiversity", "avgEntropy"),
    ("GC_NC", "graphComplexity", "avgNodeCount"),
    ("GC_EC", "graphComplexity", "avgEdgeCount"),
    ("GC_DEN", "graphComplexity", "avgDensity"),
)
OVERALL_LABEL = "Overall"
P_FLOOR = 0.001

TEST_SYMBOLS = {"mann_whitney_u": "U", "two_proportion_z": "z"}
TEST_NAMES = {"mann_whitney_u": "Mann–Whitney U test", "two_proportion_z": "two-proportion z test"}
EFFECT_SYMBOLS = {"rank_biserial": "r", "cohens_h": "h"}
EFFECT_NAMES = {"rank_biserial": "rank-biserial correlation", "cohens_h": "Cohen's h"}
CORRECTION_NAMES = {"bonferroni": "Bonferroni", "holm": "Holm"}
# The marks grade the adjusted p-value by the usual convention (the statistics engine writes them).
MARK_THRESHOLDS = (("*", 0.05), ("**", 0.01), ("***", 0.001))


def _missing(value: object) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def fixed(value: float | None, decimals: int) -> str | None:
    """``value`` to ``decimals`` decimals (never ``-0.000``), or None when missing."""
    if _missing(value):
        return None
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    text = f"{value:.{decimals}f}"
    return text.lstrip("-") if float(text) == 0 else text


def significant(value: float | None, digits: int = 3) -> str | None:
    """``value`` to ``digits`` significant digits in fixed notation (``0.000455``), or None when missing."""
    if _missing(value):
        return None
    if value == 0 or math.isinf(value):
        return fixed(value, 0)
    rounded = float(f"{value:.{digits - 1}e}")  # rounding first: 0.0009996 has its digits from 0.00100
    decimals = max(digits - 1 - math.floor(math.log10(abs(rounded))), 0)
    return f"{rounded:.{decimals}f}"


def p_value(value: float | None) -> str | None:
    """A p-value: 3 significant digits, ``< 0.001`` below 0.001, None when missing."""
    if _missing(value):
        return None
    return f"< {P_FLOOR}" if value < P_FLOOR else significant(value)


def plain_number(value: object) -> str:
    """A threshold or α as written (``0.05``, ``0.3``)."""
    return format(value, "g") if isinstance(value, int | float) else str(value)


def _field(results: object, block: str, field: str) -> object:
    part = results.get(block) if isinstance(results, dict) else None
    return part.get(field) if isinstance(part, dict) else None


@dataclass(frozen=True)
class MetricsRow:
    label: str
    is_overall: bool
    n: int | None
    values: tuple[str | None, ...]  # formatted, None when missing; METRIC_COLUMNS order


def metrics_rows(document: dict) -> list[MetricsRow]:
    """One row per model configuration, then the Overall row."""
    rows = []
    total = 0
    for entry in document.get("byModel") or ():
        count = entry.get("trialCount")
        total += count if isinstance(count, int) else 0
        rows.append(MetricsRow(str(entry.get("modelConfig", "")), False, count, _metric_values(entry.get("layer3"))))
    rows.append(MetricsRow(OVERALL_LABEL, True, total, _metric_values(document.get("overall"))))
    return rows


def _metric_values(results: object) -> tuple[str | None, ...]:
    return tuple(fixed(_field(results, block, field), 3) for _, block, field in METRIC_COLUMNS)


@dataclass(frozen=True)
class ComparisonRow:
    metric: str
    pair: str
    test: str | None  # a key of TEST_SYMBOLS, or the engine's text when unknown
    performed: bool
    reason: str | None  # why the test was not performed
    statistic: str | None
    p: str | None
    adjusted_p: str | None
    effect: str | None
    effect_type: str | None
    magnitude: str | None
    mark: str


def comparison_rows(document: dict) -> list[ComparisonRow]:
    """The statistics table's rows; a test without a p-value counts as not performed."""
    rows = []
    for result in (document.get("statistics") or {}).get("layer3Comparisons") or ():
        performed = result.get("test") is not None and not _missing(result.get("pValue"))
        rows.append(
            ComparisonRow(
                metric=str(result.get("metric", "")),
                pair=f"{result.get('modelA', '')} vs {result.get('modelB', '')}",
                test=result.get("test"),
                performed=performed,
                reason=None if performed else (result.get("reason") or "not performed"),
                statistic=fixed(result.get("statistic"), 2),
                p=p_value(result.get("pValue")),
                adjusted_p=p_value(result.get("adjustedPValue")),
                effect=fixed(result.get("effectSize"), 3),
                effect_type=result.get("effectSizeType"),
                magnitude=result.get("effectMagnitude"),
                mark=result.get("mark") or "",
            )
        )
    return rows


@dataclass(frozen=True)
class CorrectionNote:
    correction: str  # "Bonferroni", "Holm", or the engine's text
    alpha: str | None
    adjusted_alpha: str | None  # None for Holm, whose threshold steps down
    comparisons: object
    performed: object
    total: object
    significant: object
    thresholds: tuple[tuple[str, str], ...]  # (effect-size type, "0.1 / 0.3 / 0.5")


def correction_note(document: dict) -> CorrectionNote:
    summary = (document.get("statistics") or {}).get("summary") or {}
    correction = summary.get("correction")
    alpha = summary.get("alpha")
    thresholds = summary.get("effectSizeThresholds") or {}
    return CorrectionNote(
        correction=CORRECTION_NAMES.get(correction, str(correction) if correction else "no"),
        alpha=None if _missing(alpha) else plain_number(alpha),
        adjusted_alpha=significant(summary.get("adjustedAlpha")),
        comparisons=summary.get("comparisons"),
        performed=summary.get("performedTests"),
        total=summary.get("totalTests"),
        significant=summary.get("significantCount"),
        thresholds=tuple(
            (kind, " / ".join(plain_number(limit) for limit in limits))
            for kind, limits in thresholds.items()
            if isinstance(limits, list | tuple)
        ),
    )
