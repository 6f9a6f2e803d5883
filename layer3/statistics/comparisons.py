"""Pairwise comparison of model configurations on the eleven Layer3 metrics (seed 002 §7).

``compare_model_configs`` tests every unordered pair of model configurations (labels sorted; in pair (A, B)
A is ``modelA``) on every metric of ``LAYER3_METRICS``, metric-major: all pairs of GV_CR, then of GV_UR, ...

- Mann–Whitney U (GV_CR, W2WR_SC, WS_ENT, GC_NC, GC_EC, GC_DEN), see :mod:`layer3.statistics.mann_whitney`;
- two-proportion z (GV_UR, W2WR_FR, W2WR_MR, W2WR_SYR, W2WR_CR), see :mod:`layer3.statistics.proportions`.

Beside each pooled z-test, because items of one trial are not independent, a row of a proportion metric has
``difference`` (p_A - p_B), ``zCi`` (its 95% Wald interval, unpooled standard error, the z-test's view),
``clusterBootstrapCi`` (its 95% percentile interval from the trial-level cluster bootstrap of
:mod:`layer3.statistics.bootstrap`), ``clusterBootstrapReplicates`` (the replicates kept for it) and
``designEffect`` ((bootstrap SE / Wald SE)²: above 1, the z-test is too confident; trust the bootstrap
interval). These are None in the Mann–Whitney rows, when the judges refuse the comparison and when a group has
no items; the bootstrap ones also when a model has fewer than two trials with items for the metric or no
replicate was kept, the design effect also when the Wald standard error is 0.

Judged metrics (GV_CR, GV_UR, W2WR_SC, W2WR_CR: ``layer3.metrics.provenance.METRIC_JUDGE``) are only compared
between two configurations judged by one and the same judge: when their judges differ, or one configuration
was judged by more than one judge, the test is not computed (``different_judges``, ``mixed_judges``).

The correction (:mod:`layer3.statistics.corrections`) runs over the family: by default the seed's, 11 metrics ×
C(k, 2) pairs (§7.2: 110 for five configurations, α' = 0.05/110), whichever tests could be performed;
"tests-run" makes it the tests performed, an integer N makes it N. ``significant`` is adjusted p < alpha.
Undefined tests keep None in statistic, pValue, adjustedPValue, effectSize and effectMagnitude, with an
English ``reason`` and its ``reasonCode``/``reasonParams`` (:mod:`layer3.statistics.outcome`); they are never
significant, and they count in the family only as hypotheses left untested (as p = 1).

The result is JSON-ready: camelCase keys (a public API contract), plain Python floats, never NaN or inf.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import replace
from itertools import combinations
from numbers import Real

from layer3.metrics.provenance import METRIC_JUDGE
from layer3.statistics.bootstrap import (
    DEFAULT_REPLICATES,
    DEFAULT_SEED,
    LEVEL,
    MIN_TRIALS,
    UNIT,
    bootstrap_differences,
    check_replicates,
    check_seed,
    design_effect,
    replicate_rates,
    trials_with_items,
)
from layer3.statistics.corrections import (
    DEFAULT_FAMILY,
    adjust_p_values,
    adjusted_alpha,
    check_correction,
    check_family,
    family_size,
    significance_mark,
)
from layer3.statistics.mann_whitney import EFFECT_SIZE_TYPE as RANK_EFFECT
from layer3.statistics.mann_whitney import TEST as RANK_TEST
from layer3.statistics.mann_whitney import mann_whitney_u
from layer3.statistics.outcome import COHENS_H_THRESHOLDS, RANK_BISERIAL_THRESHOLDS, TwoSampleResult
from layer3.statistics.proportions import EFFECT_SIZE_TYPE as PROPORTION_EFFECT
from layer3.statistics.proportions import TEST as PROPORTION_TEST
from layer3.statistics.proportions import two_proportion_z, wald_difference
from layer3.statistics.samples import (
    LAYER3_METRICS,
    MANN_WHITNEY_METRICS,
    PROPORTION_METRICS,
    SAMPLE_UNIT_CODES,
    SAMPLE_UNITS,
    ModelSamples,
    model_samples,
)

NOT_COMPARED = "figures of different judges are not compared"
JUDGE_REFUSALS = ("different_judges", "mixed_judges")
# The keys the proportion metrics add to a row (None in the Mann–Whitney rows and where undefined).
INTERVAL_KEYS = ("difference", "zCi", "clusterBootstrapCi", "clusterBootstrapReplicates", "designEffect")


def judge_refusal(metric: str, a: ModelSamples, b: ModelSamples, labels: tuple[str, str]) -> dict | None:
    """Why a judged ``metric`` may not be compared between ``a`` and ``b``, as the ``reason``, ``reason_code``
    and ``reason_params`` of its result: a model judged by more than one judge (the first of A, B that is), or
    two models judged by different judges; None when the metric is automatic or the judges agree (or a model
    has no judged data, which the test itself reports as an empty group)."""
    if metric not in METRIC_JUDGE:
        return None
    judges = (a.metric_judges(metric), b.metric_judges(metric))
    for label, own in zip(labels, judges, strict=True):
        if len(own) > 1:
            return {
                "reason": f"model {label} was judged by {len(own)} judges ({', '.join(own)}); {NOT_COMPARED}",
                "reason_code": "mixed_judges",
                "reason_params": {"model": label, "judges": list(own)},
            }
    if len(judges[0]) == len(judges[1]) == 1 and judges[0] != judges[1]:
        (judge_a,), (judge_b,) = judges
        return {
            "reason": f"model {labels[0]} was judged by {judge_a} and model {labels[1]} by {judge_b}; {NOT_COMPARED}",
            "reason_code": "different_judges",
            "reason_params": {"modelA": labels[0], "modelB": labels[1], "judgeA": judge_a, "judgeB": judge_b},
        }
    return None


def _own_value(samples: ModelSamples, metric: str) -> float | None:
    """A refused comparison's valueA/valueB: the model's own figure, None when empty or blended over judges."""
    if len(samples.metric_judges(metric)) > 1:
        return None
    if metric in MANN_WHITNEY_METRICS:
        values = samples.values[metric]
        return math.fsum(values.tolist()) / values.size if values.size else None
    return samples.counts[metric].proportion


def compare_metric(metric: str, a: ModelSamples, b: ModelSamples, labels: tuple[str, str]) -> TwoSampleResult:
    """The §7.1 test of ``metric`` between the samples of two model configurations (no correction), refused
    (see :func:`judge_refusal`) for a judged metric whose judges differ or are mixed: then nA/nB count the
    data as usual, and valueA/valueB are each model's own figure (None for a model with several judges)."""
    unit = SAMPLE_UNITS[metric]
    refusal = judge_refusal(metric, a, b, labels)
    if refusal is not None:
        if metric in MANN_WHITNEY_METRICS:
            kind, sizes = (RANK_TEST, RANK_EFFECT), (a.values[metric].size, b.values[metric].size)
        else:
            kind, sizes = (PROPORTION_TEST, PROPORTION_EFFECT), (a.counts[metric].n, b.counts[metric].n)
        return TwoSampleResult(*kind, *sizes, _own_value(a, metric), _own_value(b, metric), **refusal)
    if metric in MANN_WHITNEY_METRICS:
        result = mann_whitney_u(a.values[metric], b.values[metric], labels=labels, unit=unit)
    else:
        count_a, count_b = a.counts[metric], b.counts[metric]
        result = two_proportion_z(count_a.successes, count_a.n, count_b.successes, count_b.n, labels=labels, unit=unit)
    if result.reason_code == "empty_group":
        params = {**result.reason_params, "metric": metric, "unit": SAMPLE_UNIT_CODES[metric]}
        result = replace(result, reason_params=params)
    return result


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


class _Intervals:
    """The ``INTERVAL_KEYS`` of the rows; each configuration's replicates are drawn once, when a row first needs
    them (they do not depend on the other configuration of the pair, see :mod:`layer3.statistics.bootstrap`)."""

    def __init__(self, samples: Mapping[str, ModelSamples], replicates: int, seed: int) -> None:
        self.samples = samples
        self.replicates = replicates
        self.seed = seed
        self.rates: dict = {}
        self.differences: dict = {}

    def _differences(self, label_a: str, label_b: str) -> list:
        for label in (label_a, label_b):
            if label not in self.rates:
                self.rates[label] = replicate_rates(
                    self.samples[label], label, replicates=self.replicates, seed=self.seed
                )
        if (label_a, label_b) not in self.differences:
            self.differences[label_a, label_b] = bootstrap_differences(self.rates[label_a], self.rates[label_b])
        return self.differences[label_a, label_b]

    def row(self, metric: str, label_a: str, label_b: str, result: TwoSampleResult) -> dict:
        keys = dict.fromkeys(INTERVAL_KEYS)
        if metric not in PROPORTION_METRICS or result.reason_code in JUDGE_REFUSALS:
            return keys
        a, b = self.samples[label_a], self.samples[label_b]
        count_a, count_b = a.counts[metric], b.counts[metric]
        wald = wald_difference(count_a.successes, count_a.n, count_b.successes, count_b.n)
        if wald is None:  # a group has no items
            return keys
        keys.update(difference=wald.difference, zCi=[wald.low, wald.high])
        if min(trials_with_items(a, metric), trials_with_items(b, metric)) < MIN_TRIALS:
            return keys
        boot = self._differences(label_a, label_b)[PROPORTION_METRICS.index(metric)]
        keys.update(
            clusterBootstrapCi=None if boot.low is None else [boot.low, boot.high],
            clusterBootstrapReplicates=boot.replicates,
            designEffect=design_effect(boot.standard_error, wald.standard_error),
        )
        return keys


def compare_model_configs(
    trials_by_model: Mapping[str, Iterable[dict] | ModelSamples],
    *,
    correction: str = "bonferroni",
    alpha: float = 0.05,
    family: str | int = DEFAULT_FAMILY,
    bootstrap_replicates: int = DEFAULT_REPLICATES,
    bootstrap_seed: int = DEFAULT_SEED,
) -> dict:
    """``{"layer3Comparisons": [StatisticalTestResult, ...], "summary": TestSummary}`` for the model configs.

    ``trials_by_model`` maps a model config label to its stored ``Layer3MetricsV1`` trial dicts, or to the
    ``ModelSamples`` that :func:`layer3.statistics.model_samples` already made of them. ``correction`` is
    "bonferroni" or "holm"; ``alpha`` the family-wise level, also the threshold of the "*" mark; ``family``
    "seed" (11 × C(k, 2)), "tests-run" or an integer N at least the tests performed
    (:func:`layer3.statistics.corrections.parse_family` reads it from text); ``bootstrap_replicates`` (≥ 1)
    and ``bootstrap_seed`` (≥ 0) set the cluster bootstrap. Anything else raises ValueError naming what is
    accepted. With fewer than two model configs there is nothing to compare.
    """
    correction = check_correction(correction)
    alpha = _check_alpha(alpha)
    family = check_family(family)
    replicates = check_replicates(bootstrap_replicates)
    seed = check_seed(bootstrap_seed)
    samples = _samples_by_model(trials_by_model)
    labels = list(samples)
    pairs = list(combinations(labels, 2))

    tests = [
        (metric, label_a, label_b, compare_metric(metric, samples[label_a], samples[label_b], (label_a, label_b)))
        for metric in LAYER3_METRICS
        for label_a, label_b in pairs
    ]
    performed = [result.p_value for _, _, _, result in tests if result.performed]
    m = family_size(family, seed_size=len(LAYER3_METRICS) * len(pairs), performed=len(performed))
    adjusted_iter = iter(adjust_p_values(performed, correction, m))
    intervals = _Intervals(samples, replicates, seed)

    comparisons = []
    for metric, label_a, label_b, result in tests:
        adjusted = next(adjusted_iter) if result.performed else None
        significant = adjusted is not None and adjusted < alpha
        judged = metric in METRIC_JUDGE
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
                "reasonCode": result.reason_code,
                "reasonParams": result.reason_params,
                "judgeA": samples[label_a].judge(METRIC_JUDGE[metric]) if judged else None,
                "judgeB": samples[label_b].judge(METRIC_JUDGE[metric]) if judged else None,
                **intervals.row(metric, label_a, label_b, result),
            }
        )

    summary = {
        "totalTests": len(comparisons),
        "performedTests": len(performed),
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
        "family": family,
        "familySize": m,
        "bootstrap": {"replicates": replicates, "seed": seed, "level": LEVEL, "unit": UNIT},
    }
    return {"layer3Comparisons": comparisons, "summary": summary}
