"""Pairwise comparison of model configurations on the eleven Layer3 metrics (seed 002 §7).

``compare_model_configs`` tests every unordered pair of model configurations (labels sorted; in pair (A, B)
A is ``modelA``) on every metric of ``LAYER3_METRICS``, metric-major: all pairs of GV_CR, then of GV_UR, ...

- Mann–Whitney U (GV_CR, W2WR_SC, WS_ENT, GC_NC, GC_EC, GC_DEN), see :mod:`layer3.statistics.mann_whitney`;
- two-proportion z (GV_UR, W2WR_FR, W2WR_MR, W2WR_SYR, W2WR_CR), see :mod:`layer3.statistics.proportions`.

The correction (:mod:`layer3.statistics.corrections`) runs over all performed tests of the call, m = the tests
with a p-value (§7.2: 11 metrics × 10 pairs = 110 when all are defined, α' = 0.05/110). ``significant`` is
adjusted p < alpha. Undefined tests keep None in statistic, pValue, adjustedPValue, effectSize and
effectMagnitude, with an English ``reason``; they are neither significant nor counted in m.

The result is JSON-ready: camelCase keys (a public API contract), plain Python floats, never NaN or inf.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from itertools import combinations
from numbers import Real

from layer3.statistics.corrections import adjust_p_values, adjusted_alpha, check_correction, significance_mark
from layer3.statistics.mann_whitney import mann_whitney_u
from layer3.statistics.outcome import COHENS_H_THRESHOLDS, RANK_BISERIAL_THRESHOLDS, TwoSampleResult
from layer3.statistics.proportions import two_proportion_z
from layer3.statistics.samples import (
    LAYER3_METRICS,
    MANN_WHITNEY_METRICS,
    SAMPLE_UNITS,
    ModelSamples,
    model_samples,
)


def compare_metric(metric: str, a: ModelSamples, b: ModelSamples, labels: tuple[str, str]) -> TwoSampleResult:
    """The §7.1 test of ``metric`` between the samples of two model configurations (no correction)."""
    unit = SAMPLE_UNITS[metric]
    if metric in MANN_WHITNEY_METRICS:
        return mann_whitney_u(a.values[metric], b.values[metric], labels=labels, unit=unit)
    count_a, count_b = a.counts[metric], b.counts[metric]
    return two_proportion_z(count_a.successes, count_a.n, count_b.successes, count_b.n, labels=labels, unit=unit)


def _check_alpha(alpha: object) -> float:
    if isinstance(alpha, bool) or not isinstance(alpha, Real) or not 0 < alpha < 1:
        raise ValueError(f"alpha must be a number between 0 and 1 (exclusive); got {alpha!r}")
    return float(alpha)


def _samples_by_model(trials_by_model: Mapping[str, Iterable[dict] | ModelSamples]) -> dict[str, ModelSamples]:
    labels = list(trials_by_model)
    for label in labels:
        if not isinstance(label, str):
            raise ValueError(f"model config labels must be strings; got {label!r}")
    samples = {}
    for label in sorted(labels):
        trials = trials_by_model[label]
        if isinstance(trials, ModelSamples):
            samples[label] = trials
            continue
        try:
            samples[label] = model_samples(trials)
        except ValueError as exc:
            raise ValueError(f"model {label!r}, {exc}") from exc
    return samples


def compare_model_configs(
    trials_by_model: Mapping[str, Iterable[dict] | ModelSamples],
    *,
    correction: str = "bonferroni",
    alpha: float = 0.05,
) -> dict:
    """``{"layer3Comparisons": [StatisticalTestResult, ...], "summary": TestSummary}`` for the model configs.

    ``trials_by_model`` maps a model config label to its stored ``Layer3MetricsV1`` trial dicts, or to the
    ``ModelSamples`` that :func:`layer3.statistics.model_samples` already made of them. ``correction`` is
    "bonferroni" or "holm" (anything else raises ValueError); ``alpha`` the family-wise level, also the
    threshold of the "*" mark. With fewer than two model configs there is nothing to compare and m = 0.
    """
    correction = check_correction(correction)
    alpha = _check_alpha(alpha)
    samples = _samples_by_model(trials_by_model)
    labels = list(samples)
    pairs = list(combinations(labels, 2))

    tests = [
        (metric, label_a, label_b, compare_metric(metric, samples[label_a], samples[label_b], (label_a, label_b)))
        for metric in LAYER3_METRICS
        for label_a, label_b in pairs
    ]
    performed = [result.p_value for _, _, _, result in tests if result.performed]
    adjusted_iter = iter(adjust_p_values(performed, correction))
    m = len(performed)

    comparisons = []
    for metric, label_a, label_b, result in tests:
        adjusted = next(adjusted_iter) if result.performed else None
        significant = adjusted is not None and adjusted < alpha
        comparisons.append(
            {
                "metric": metric,
                "modelA": label_a,
                "modelB": label_b,
                "test": result.test,
                "statistic": result.statistic,
                "pValue": result.p_value,
                "adjustedPValue": adjusted,
                "significant": significant,
                "mark": significance_mark(adjusted, alpha),
                "effectSize": result.effect_size,
                "effectSizeType": result.effect_size_type,
                "effectMagnitude": result.effect_magnitude,
                "nA": result.n_a,
                "nB": result.n_b,
                "valueA": result.value_a,
                "valueB": result.value_b,
                "reason": result.reason,
            }
        )

    summary = {
        "totalTests": len(comparisons),
        "performedTests": m,
        "significantCount": sum(1 for row in comparisons if row["significant"]),
        "correction": correction,
        "alpha": alpha,
        "adjustedAlpha": adjusted_alpha(alpha, m, correction),
        "comparisons": m,
        "modelConfigs": labels,
        "effectSizeThresholds": {
            "rank_biserial": list(RANK_BISERIAL_THRESHOLDS),
            "cohens_h": list(COHENS_H_THRESHOLDS),
        },
    }
    return {"layer3Comparisons": comparisons, "summary": summary}
