"""What the Markdown and LaTeX exports show, independent of the markup (pure Python).

The per-model table has one row per ``byModel`` entry and an "Overall" row (n = the sum of the
trial counts); its values are ``BatchLayer3Results`` fields, all to 3 decimals. Its judged cells
(GV_CR, GV_UR; W2WR_SC, W2WR_CR) name their judge in a footnote (``judge_notes``); a row whose judged
block was scored by more than one judge has no value there (never a blend) but a marker, and the
footnote gives the reason. The statistics table has one row per ``StatisticalTestResult``, with the
rate difference and its trial-level cluster-bootstrap interval beside the two-proportion tests; its
note states the multiple-comparison family (``correction_note``). Number formats, the same in both
outputs:

- rates and averages: 3 decimals (``0.250``); test statistics: 2 decimals; effect sizes: 3 decimals
  (so that a value just under a magnitude threshold, 0.098 against 0.1, does not print as 0.10);
- p-values: 3 significant digits in fixed notation (``0.0457``, ``0.500``, ``1.00``), anything
  below 0.001 as ``< 0.001``;
- rate differences and their confidence bounds: 3 decimals; design effects: 2 decimals;
- a value that is None (or NaN) is missing, shown as a dash by the renderer.

The sentences of the notes are written here once, in English; a renderer passes its escape function
(and its markup for a symbol) so that every text from the data is escaped where it is placed.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from layer3.metrics.provenance import JUDGED_BLOCKS, METRIC_JUDGE

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
# The rates the two-proportion z test compares (seed 002 §7.1); their rows show the cluster-bootstrap interval.
PROPORTION_METRICS = ("GV_UR", "W2WR_FR", "W2WR_MR", "W2WR_SYR", "W2WR_CR")
# The judged metric groups: (group of layer3.metrics.provenance, its block in BatchLayer3Results, its columns).
RESULT_BLOCKS = {"gv": "gvContentRelevance", "w2wr": "w2wrSemanticCorrectness"}
JUDGED_GROUPS: tuple[tuple[str, str, tuple[str, ...]], ...] = tuple(
    (group, RESULT_BLOCKS[group], tuple(name for name, _, _ in METRIC_COLUMNS if METRIC_JUDGE.get(name) == group))
    for group in JUDGED_BLOCKS
)
# How each metric's figure is averaged (one definition everywhere: cards, tables, statistics, CSV, figures).
UNITS_NOTE = (
    "GV_CR and W2WR_SC are means over the trials with at least one judged item (binding) of each trial's mean "
    "score; GV_UR, W2WR_FR, W2WR_MR, W2WR_SYR and W2WR_CR are pooled over items (bindings); WS_ENT, GC_NC, "
    "GC_EC and GC_DEN are means over trials."
)
# Seed 002 §7.2: the Layer3 family is 11 metrics × the pairs of model configurations; across layers, 210.
SEED_METRICS = len(METRIC_COLUMNS)
SEED_CROSS_LAYER_FAMILY = 210

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


def batch_names(document: dict) -> tuple[str, str | None]:
    """``(what to call the batch, its id when that is not the same)``: the batch's name (``batchName``) with its
    id, or its id alone in documents that have no name."""
    batch_id = str(document.get("batchId", ""))
    name = document.get("batchName")
    if name is None or str(name) == "" or str(name) == batch_id:
        return batch_id, None
    return str(name), batch_id


def _field(results: object, block: str, field: str) -> object:
    part = results.get(block) if isinstance(results, dict) else None
    return part.get(field) if isinstance(part, dict) else None


@dataclass(frozen=True)
class RowJudges:
    """Who judged one row's judged metric group: ``judges`` (labels) is empty when nobody did."""

    judges: tuple[str, ...]
    reason: str | None  # why the figures are null, when more than one judge scored them

    @property
    def several(self) -> bool:
        return len(self.judges) > 1


@dataclass(frozen=True)
class MetricsRow:
    label: str
    is_overall: bool
    n: int | None
    values: tuple[str | None, ...]  # formatted, None when missing; METRIC_COLUMNS order
    judges: tuple[RowJudges, ...]  # JUDGED_GROUPS order
    several: tuple[bool, ...]  # METRIC_COLUMNS order: missing because several judges scored it


def metrics_rows(document: dict) -> list[MetricsRow]:
    """One row per model configuration, then the Overall row."""
    rows = []
    total = 0
    for entry in document.get("byModel") or ():
        count = entry.get("trialCount")
        total += count if isinstance(count, int) else 0
        rows.append(_metrics_row(str(entry.get("modelConfig", "")), False, count, entry.get("layer3"), entry))
    rows.append(_metrics_row(OVERALL_LABEL, True, total, document.get("overall"), None))
    return rows


def _metrics_row(label: str, is_overall: bool, n: int | None, results: object, entry: object) -> MetricsRow:
    judges = tuple(_row_judges(results, entry, group, block) for group, block, _ in JUDGED_GROUPS)
    mixed = {
        column for (_, _, columns), who in zip(JUDGED_GROUPS, judges, strict=True) if who.several for column in columns
    }
    values = tuple(
        None if name in mixed else fixed(_field(results, block, field), 3) for name, block, field in METRIC_COLUMNS
    )
    return MetricsRow(label, is_overall, n, values, judges, tuple(name in mixed for name, _, _ in METRIC_COLUMNS))


def _labels(value: object) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list | tuple):
        return tuple(dict.fromkeys(str(label) for label in value if label is not None))
    return ()


def _row_judges(results: object, entry: object, group: str, block: str) -> RowJudges:
    """The judges of one row's judged block: its ``judges`` list, else its ``judge``, else the entry's ``judge``."""
    part = results.get(block) if isinstance(results, Mapping) else None
    part = part if isinstance(part, Mapping) else {}
    judges = _labels(part.get("judges")) or _labels(part.get("judge"))
    if not judges and isinstance(entry, Mapping) and isinstance(entry.get("judge"), Mapping):
        judges = _labels(entry["judge"].get(group))
    reason = part.get("reason")
    return RowJudges(judges, reason if isinstance(reason, str) and reason else None)


@dataclass(frozen=True)
class JudgeNote:
    """The footnote line of one judged metric group under the per-model table."""

    metrics: tuple[str, ...]  # the group's columns, "GV_CR", "GV_UR"
    by_judge: tuple[tuple[str, tuple[str, ...]], ...]  # (judge label, row labels), in row order
    several: tuple[tuple[str, str], ...]  # (row label, reason) of the rows judged by several judges


def judge_notes(rows: Sequence[MetricsRow]) -> list[JudgeNote]:
    """One note per judged metric group that some row has a judge for; none when nothing was judged."""
    notes = []
    for index, (_, _, columns) in enumerate(JUDGED_GROUPS):
        by_judge: dict[str, list[str]] = {}
        several = []
        for row in rows:
            who = row.judges[index]
            if who.several:
                several.append(
                    (row.label, who.reason or f"judged by {len(who.judges)} judges: {', '.join(who.judges)}")
                )
            elif who.judges:
                by_judge.setdefault(who.judges[0], []).append(row.label)
        if by_judge or several:
            notes.append(JudgeNote(columns, tuple((j, tuple(r)) for j, r in by_judge.items()), tuple(several)))
    return notes


def _and(parts: Sequence[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def judge_sentence(note: JudgeNote, escape: Callable[[object], str], marker: str) -> str:
    """``GV_CR, GV_UR judged by J1 (A, B) and J2 (C, Overall)``, then the rows judged by several judges,
    whose cells show ``marker`` (markup, not escaped), with their reasons. Every data text goes through
    ``escape``."""
    metrics = ", ".join(escape(name) for name in note.metrics)
    parts = [f"{escape(judge)} ({', '.join(escape(row) for row in rows)})" for judge, rows in note.by_judge]
    text = f"{metrics} judged by {_and(parts)}" if parts else metrics
    if note.several:
        mixed = "; ".join(f"{escape(row)} ({escape(reason)})" for row, reason in note.several)
        text += ("; " if parts else " judged by ") + f"several judges, so not shown ({marker}): {mixed}"
    return text + "."


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
    proportion: bool = False  # a two-proportion test: the next fields apply
    difference: str | None = None  # pA - pB
    bootstrap_ci: tuple[str, str] | None = None  # trial-level cluster bootstrap, 95%
    z_ci: tuple[str, str] | None = None  # Wald, 95%
    design_effect: str | None = None  # (bootstrap SE / z SE)^2


def _interval(value: object, decimals: int = 3) -> tuple[str, str] | None:
    if not isinstance(value, list | tuple) or len(value) != 2:
        return None
    low, high = (fixed(bound, decimals) if isinstance(bound, int | float) else None for bound in value)
    return None if low is None or high is None else (low, high)


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
                proportion=result.get("test") == "two_proportion_z" or result.get("metric") in PROPORTION_METRICS,
                difference=fixed(result.get("difference"), 3),
                bootstrap_ci=_interval(result.get("clusterBootstrapCi")),
                z_ci=_interval(result.get("zCi")),
                design_effect=fixed(result.get("designEffect"), 2),
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
    family: object = None  # "seed", "tests-run", an int (the analyst's N), None in older documents
    pairs: int | None = None  # the seed's family: the pairs of model configurations (m = 11 × pairs)
    cross_layer_alpha: str | None = None  # alpha / 210, the seed's family across layers
    bootstrap: BootstrapNote | None = None  # None in older documents

    @property
    def untested_count_as_one(self) -> bool:
        """Holm over a family larger than the tests performed: the untested hypotheses count with p = 1."""
        return self.correction == "Holm" and family_kind(self.family) in ("seed", "analyst")


@dataclass(frozen=True)
class BootstrapNote:
    """How the statistics engine drew the cluster-bootstrap intervals, as written in the note."""

    replicates: str
    seed: str
    level: str  # "95%"
    unit: str  # what is resampled: "trial"


def _bootstrap_note(bootstrap: object) -> BootstrapNote | None:
    if not isinstance(bootstrap, Mapping):
        return None
    level = bootstrap.get("level")
    number = isinstance(level, int | float) and not isinstance(level, bool) and not _missing(level)
    return BootstrapNote(
        replicates=str(bootstrap.get("replicates", "?")),
        seed=str(bootstrap.get("seed", "?")),
        level=f"{plain_number(level * 100)}%" if number else "95%",
        unit=str(bootstrap.get("unit") or "trial"),
    )


def family_kind(family: object) -> str | None:
    """``"seed"``, ``"tests-run"``, ``"analyst"`` (an int N) or None (not stated, or unknown)."""
    if family in ("seed", "tests-run"):
        return str(family)
    if isinstance(family, int) and not isinstance(family, bool):
        return "analyst"
    return None


def family_phrase(note: CorrectionNote, m: Callable[[object], str], times: str = "×", section: str = "§") -> str:
    """``over the seed's family of m = 110 comparisons (11 metrics × 10 pairs, seed 002 §7.2)`` and its two
    siblings; ``m`` writes "m = value" in the renderer's markup, escaping the value."""
    kind = family_kind(note.family)
    size = note.comparisons
    if kind == "seed":
        pairs = f" ({SEED_METRICS} metrics {times} {note.pairs} pairs, seed 002 {section}7.2)" if note.pairs else ""
        return f"over the seed's family of {m(size)} comparisons{pairs}"
    if kind == "tests-run":
        return f"over the {m(size)} tests performed"
    if kind == "analyst":
        return f"over a family of {m(size)} set by the analyst"
    return f"for {m(size)} comparisons"


def correction_note(document: dict) -> CorrectionNote:
    summary = (document.get("statistics") or {}).get("summary") or {}
    correction = summary.get("correction")
    alpha = summary.get("alpha")
    thresholds = summary.get("effectSizeThresholds") or {}
    size = summary.get("familySize")
    size = summary.get("comparisons") if size is None else size
    numeric_alpha = isinstance(alpha, int | float) and not isinstance(alpha, bool) and not _missing(alpha)
    return CorrectionNote(
        correction=CORRECTION_NAMES.get(correction, str(correction) if correction else "no"),
        alpha=None if _missing(alpha) else plain_number(alpha),
        adjusted_alpha=significant(summary.get("adjustedAlpha")),
        family=summary.get("family"),
        pairs=size // SEED_METRICS if isinstance(size, int) and size and size % SEED_METRICS == 0 else None,
        cross_layer_alpha=significant(alpha / SEED_CROSS_LAYER_FAMILY) if numeric_alpha else None,
        bootstrap=_bootstrap_note(summary.get("bootstrap")),
        comparisons=size,
        performed=summary.get("performedTests"),
        total=summary.get("totalTests"),
        significant=summary.get("significantCount"),
        thresholds=tuple(
            (kind, " / ".join(plain_number(limit) for limit in limits))
            for kind, limits in thresholds.items()
            if isinstance(limits, list | tuple)
        ),
    )


@dataclass(frozen=True)
class WidgetTypesNote:
    """The batch's widget denominator (the results document's ``widgetTypes``): ``|W|`` and the types
    its trials use outside the catalogue, ``(type, trials, widgets)`` sorted by type."""

    catalogue_size: object
    available: object
    outside: tuple[tuple[str, object, object], ...]

    def sentence(self, escape: Callable[[object], str], w: str) -> str:
        """``|W|`` in words; ``w`` is the renderer's markup for |W|."""
        if not self.outside:
            return f"{w} = {escape(self.available)} for every trial: the catalogue's types; no trial uses another."
        return (
            f"{w} = {escape(self.available)} for every trial: the catalogue's {escape(self.catalogue_size)} types "
            f"and the {len(self.outside)} its trials use outside it, counted below "
            "(trials of any stage that use the type, and its widgets)."
        )


def widget_types_note(document: dict) -> WidgetTypesNote | None:
    """The document's ``widgetTypes`` for the notes, or None for a document without it."""
    part = document.get("widgetTypes")
    if not isinstance(part, Mapping):
        return None
    outside = tuple(
        (str(entry.get("type")), entry.get("trials"), entry.get("widgets"))
        for entry in part.get("outOfCatalogue") or ()
        if isinstance(entry, Mapping)
    )
    return WidgetTypesNote(part.get("catalogueSize"), part.get("availableWidgetCount"), outside)
