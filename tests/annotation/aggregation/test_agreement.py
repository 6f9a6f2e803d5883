"""The agreement engine against reference libraries (sklearn, krippendorff), published values and loop references.

Pure tests: no database, no Django settings needed by the module under test.
"""

import json
import math
import os
import subprocess
import sys
import warnings
from pathlib import Path

import krippendorff
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.metrics import cohen_kappa_score

from annotation.aggregation.agreement import (
    CATEGORIES,
    axis_kappa,
    axis_report,
    bootstrap_kappa_ci,
    gwet_ac2,
    krippendorff_alpha,
    leave_one_out_kappa,
    pairwise_agreement,
    pairwise_quadratic_kappa,
    prevalence,
)
from annotation.aggregation.agreement import bootstrap as agreement_bootstrap
from annotation.aggregation.agreement import kappa as agreement_kappa
from annotation.aggregation.agreement.bootstrap import PatternPairStats, kappa_from_sums, unique_patterns
from annotation.aggregation.agreement.core import check_ratings
from annotation.aggregation.agreement.gwet import gwet_pa_pe, gwet_weights

TOL = 1e-9
FIVE = [1, 2, 3, 4, 5]

# Krippendorff (2011), "Computing Krippendorff's alpha-reliability": 4 coders x 12 units, 0 = missing ('.').
KRIPPENDORFF_2011 = np.array(
    [
        [1, 2, 3, 3, 2, 1, 4, 1, 2, 0, 0, 0],  # A
        [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, 0, 3],  # B
        [0, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, 0],  # C
        [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, 0],  # D
    ]
).T

# R package irr, data(anxiety): 20 subjects rated 1..6; raters 2 and 3. Marginals checked against the irr
# documentation's apply(anxiety, 2, table) output (rater2: 1 5 8 4 _ 2, rater3: 7 5 5 2 _ 1).
ANXIETY_RATER2 = np.array([3, 6, 4, 6, 2, 4, 2, 4, 3, 3, 2, 3, 3, 3, 2, 2, 1, 3, 3, 4])
ANXIETY_RATER3 = np.array([2, 1, 4, 4, 3, 2, 1, 6, 1, 1, 1, 2, 3, 3, 1, 1, 3, 3, 2, 2])

# Values 0 (missing) .. 5, skewed towards 1 like the real annotations.
SKEWED_VALUES = [1, 1, 1, 1, 0, 0, 2, 3, 4, 5]


# ---------------------------------------------------------------- references ----------------------------------


def sklearn_kappa(a: np.ndarray, b: np.ndarray, labels=None) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return cohen_kappa_score(a, b, weights="quadratic", labels=labels)


def package_alpha(ratings: np.ndarray, level: str, categories=FIVE) -> float | None:
    """krippendorff.alpha on our matrix; None where the package raises or returns NaN (undefined)."""
    data = ratings.T.astype(float)
    data[data == 0] = np.nan
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            value = krippendorff.alpha(reliability_data=data, level_of_measurement=level, value_domain=categories)
    except ValueError:  # "at least one unit with values assigned by at least two coders"
        return None
    return None if math.isnan(value) else float(value)


def gwet_loop_reference(ratings: np.ndarray, categories=FIVE, weights: str = "quadratic") -> float | None:
    """Gwet (2014) AC1/AC2 written out with plain Python loops, formula by formula."""
    q = len(categories)
    lo, hi = categories[0], categories[-1]
    w = [[0.0] * q for _ in range(q)]
    for k in range(q):
        for m in range(q):
            if weights == "identity":
                w[k][m] = 1.0 if k == m else 0.0
            elif weights == "linear":
                w[k][m] = 1.0 - abs(categories[k] - categories[m]) / (hi - lo)
            else:
                w[k][m] = 1.0 - (categories[k] - categories[m]) ** 2 / (hi - lo) ** 2
    r = []  # r[i][k]: raters giving category k to item i, items with at least one rating
    for row in ratings.tolist():
        counts = [sum(1 for v in row if v == c) for c in categories]
        if sum(counts) >= 1:
            r.append(counts)
    two = [counts for counts in r if sum(counts) >= 2]
    if not two:
        return None
    pa = 0.0
    for counts in two:
        r_i = sum(counts)
        total = 0.0
        for k in range(q):
            r_star = sum(w[k][m] * counts[m] for m in range(q))
            total += counts[k] * (r_star - 1)
        pa += total / (r_i * (r_i - 1))
    pa /= len(two)
    pi = [sum(counts[k] / sum(counts) for counts in r) / len(r) for k in range(q)]
    sum_w = sum(sum(row) for row in w)
    pe = sum_w / (q * (q - 1)) * sum(p * (1 - p) for p in pi)
    return (pa - pe) / (1 - pe)


def assert_close(ours, reference, tol=TOL):
    if reference is None:
        assert ours is None
    else:
        assert ours is not None, f"expected {reference}, got None"
        assert abs(ours - reference) <= tol, (ours, reference)


def assert_pairs_match_sklearn(ratings: np.ndarray, categories=FIVE, min_common: int = 2):
    """Every pair with a common item is reported, with sklearn's value on the common items or a reason."""
    result = pairwise_quadratic_kappa(ratings, categories=categories, min_common=min_common)
    seen = set()
    for a, b, n, kappa, reason in zip(
        result.rater_a, result.rater_b, result.n_common, result.kappa, result.reason, strict=True
    ):
        common = (ratings[:, a] != 0) & (ratings[:, b] != 0)
        assert n == common.sum() >= 1
        seen.add((int(a), int(b)))
        if n < min_common:
            assert math.isnan(kappa) and "common item" in reason
            continue
        reference = sklearn_kappa(ratings[common, a], ratings[common, b], labels=list(categories))
        if math.isnan(reference):
            assert math.isnan(kappa) and reason.startswith("expected disagreement is 0")
        else:
            assert reason is None and abs(kappa - reference) <= TOL, (a, b, kappa, reference)
    n_raters = ratings.shape[1]
    expected = {
        (a, b)
        for a in range(n_raters)
        for b in range(a + 1, n_raters)
        if np.any((ratings[:, a] != 0) & (ratings[:, b] != 0))
    }
    assert seen == expected
    return result


def json_strict(value) -> str:
    """json.dumps without NaN/inf, and only plain Python types all the way down (no numpy scalars)."""

    def walk(x):
        assert type(x) in (dict, list, str, int, float, bool, type(None)), (type(x), x)
        if isinstance(x, dict):
            for k, v in x.items():
                assert type(k) is str
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)

    walk(value)
    return json.dumps(value, allow_nan=False)


def synthetic(n_items: int, n_raters: int, per_item: int, seed: int, accuracy: float = 0.8) -> np.ndarray:
    """Items rated by ``per_item`` random raters; true scores skewed to 1; raters mostly right or one off."""
    rng = np.random.default_rng(seed)
    truth = rng.choice(5, size=n_items, p=[0.7, 0.12, 0.08, 0.06, 0.04])
    who = np.argsort(rng.random((n_items, n_raters)), axis=1)[:, :per_item]
    noise = np.clip(truth[:, None] + rng.choice([-1, 1], size=(n_items, per_item)), 0, 4)
    values = np.where(rng.random((n_items, per_item)) < accuracy, truth[:, None], noise) + 1
    ratings = np.zeros((n_items, n_raters), dtype=np.int64)
    np.put_along_axis(ratings, who, values, axis=1)
    return ratings


matrices = st.integers(0, 25).flatmap(
    lambda n: st.integers(2, 6).flatmap(lambda r: arrays(np.int64, (n, r), elements=st.sampled_from(SKEWED_VALUES)))
)
HYPOTHESIS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# ---------------------------------------------------------------- published reference values -----------------


def test_krippendorff_2011_alpha_published_values():
    ordinal, _ = krippendorff_alpha(KRIPPENDORFF_2011, level="ordinal")
    interval, _ = krippendorff_alpha(KRIPPENDORFF_2011, level="interval")
    nominal, _ = krippendorff_alpha(KRIPPENDORFF_2011, level="nominal")
    assert abs(ordinal - 0.8153875) < 5e-8
    assert abs(interval - 0.849107) < 5e-7
    assert abs(nominal - 0.743) < 5e-4
    for level in ("ordinal", "interval", "nominal", "ratio"):
        assert_close(krippendorff_alpha(KRIPPENDORFF_2011, level=level)[0], package_alpha(KRIPPENDORFF_2011, level))


def test_krippendorff_2011_gwet_published_values():
    assert abs(gwet_ac2(KRIPPENDORFF_2011)[0] - 0.914000723551605) < TOL
    # irrCAC's own test values on this data set (raw_4raters): pa 0.975, pe 0.714; AC1 0.77544.
    counts = np.stack([(c == KRIPPENDORFF_2011).sum(axis=1) for c in FIVE], axis=1)
    pa, pe = gwet_pa_pe(counts, None, gwet_weights(FIVE, "quadratic"))
    assert (round(pa, 3), round(pe, 3)) == (0.975, 0.714)
    assert round(gwet_ac2(KRIPPENDORFF_2011, weights="identity")[0], 5) == 0.77544


def test_anxiety_quadratic_kappa_published_values():
    ratings = np.column_stack([ANXIETY_RATER2, ANXIETY_RATER3])
    six = (1, 2, 3, 4, 5, 6)
    ours = pairwise_quadratic_kappa(ratings, categories=six).kappa[0]
    assert round(ours, 5) == 0.22980
    assert abs(ours - sklearn_kappa(ANXIETY_RATER2, ANXIETY_RATER3, labels=list(six))) < TOL
    # irr's kappa2(anxiety[, 2:3], "squared") = 0.2520325 uses only the levels present (5 is never used):
    assert round(sklearn_kappa(ANXIETY_RATER2, ANXIETY_RATER3), 7) == 0.2520325
    present = pairwise_quadratic_kappa(ratings, categories=(1, 2, 3, 4, 6)).kappa[0]
    assert round(present, 7) == 0.2520325


def test_sklearn_without_labels_is_a_trap_when_a_category_is_unused():
    """B.4: sklearn's default scale is the values present, which moves the weights if a category is unused."""
    a = np.array([1, 1, 2, 2, 5, 5, 1, 2])
    b = np.array([1, 2, 2, 1, 5, 5, 2, 5])  # nobody used 3 or 4
    ours = pairwise_quadratic_kappa(np.column_stack([a, b])).kappa[0]
    assert abs(ours - sklearn_kappa(a, b, labels=FIVE)) < TOL
    assert abs(ours - sklearn_kappa(a, b)) > 0.01  # 5 treated as adjacent to 2
    # Unused categories at the ends of the scale do not move the weights, so the trap is easy to miss:
    c = np.array([1, 2, 2, 3, 3, 1])
    d = np.array([1, 2, 3, 3, 2, 2])
    assert abs(sklearn_kappa(c, d) - sklearn_kappa(c, d, labels=FIVE)) < TOL


# ---------------------------------------------------------------- kappa vs sklearn -----------------------------


@HYPOTHESIS
@given(matrices)
def test_pairwise_kappa_matches_sklearn(ratings):
    assert_pairs_match_sklearn(ratings)


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("n_raters", [2, 6])
def test_pairwise_kappa_matches_sklearn_seeded(seed, n_raters):
    rng = np.random.default_rng(seed)
    ratings = rng.choice([0, 1, 1, 1, 2, 3, 5], size=(60, n_raters))  # 4 never used; missing and singles
    ratings[:5, 1:] = 0  # items with a single rating
    ratings[5:8] = 0  # items without any rating
    assert_pairs_match_sklearn(ratings)


@pytest.mark.parametrize("min_common", [1, 2, 5])
def test_pairwise_kappa_min_common(min_common):
    ratings = synthetic(40, 6, 3, seed=3)
    result = assert_pairs_match_sklearn(ratings, min_common=min_common)
    assert result.min_common == min_common


def test_pair_code_fallback_for_many_raters(monkeypatch):
    ratings = synthetic(200, 6, 3, seed=6)
    ratings[:4, 1:] = 0
    joint = pairwise_quadratic_kappa(ratings)
    monkeypatch.setattr(agreement_kappa, "_JOINT_BINS_LIMIT", 0)  # force the (pair, cat_a, cat_b) bincount
    fallback = assert_pairs_match_sklearn(ratings)
    np.testing.assert_array_equal(fallback.kappa, joint.kappa)
    np.testing.assert_array_equal(fallback.n_common, joint.n_common)


def test_constant_raters_are_undefined_with_a_reason_never_nan_outside():
    ratings = np.array([[1, 1, 2], [1, 1, 3], [1, 1, 1], [1, 1, 2]])
    result = pairwise_quadratic_kappa(ratings)
    assert math.isnan(result.kappa[0]) and "same single score, 1, on all 4" in result.reason[0]
    assert result.kappa[1] == 0.0 and result.reason[1] is None  # one constant rater: kappa 0, defined
    value, reason = axis_kappa(result)
    assert value == pytest.approx(0.0) and reason is None
    all_constant = pairwise_quadratic_kappa(np.ones((4, 3), dtype=int))
    value, reason = axis_kappa(all_constant)
    assert value is None and "3 pair(s) with expected disagreement 0" in reason


def test_axis_kappa_is_the_n_common_weighted_mean():
    ratings = synthetic(80, 5, 3, seed=4)
    result = pairwise_quadratic_kappa(ratings)
    ok = ~np.isnan(result.kappa)
    expected = (
        sum(n * k for n, k in zip(result.n_common[ok], result.kappa[ok], strict=True)) / result.n_common[ok].sum()
    )
    assert abs(axis_kappa(result)[0] - expected) < TOL


def test_axis_kappa_without_pairs():
    value, reason = axis_kappa(pairwise_quadratic_kappa(np.array([[1, 0], [0, 2]])))
    assert value is None and "no two raters rated a common item" in reason


def test_leave_one_out_kappa():
    ratings = np.zeros((120, 6), dtype=np.int64)
    ratings[:, :4] = synthetic(120, 4, 3, seed=5)
    ratings[:3] = 0
    ratings[:3, 0] = ratings[:3, 4] = 1  # rater 4 only rates 3 items, all 1, like rater 0; rater 5 rates nothing
    result = pairwise_quadratic_kappa(ratings)
    per_rater = leave_one_out_kappa(result, 6)
    for rater in range(4):
        num = den = 0.0
        for other in range(5):
            if other == rater:
                continue
            common = (ratings[:, rater] > 0) & (ratings[:, other] > 0)
            if common.sum() >= 2:
                k = sklearn_kappa(ratings[common, rater], ratings[common, other], labels=FIVE)
                if not math.isnan(k):
                    num, den = num + common.sum() * k, den + common.sum()
        assert abs(per_rater[rater][0] - num / den) < TOL and per_rater[rater][1] is None
    assert per_rater[4][0] is None and "expected disagreement 0" in per_rater[4][1]
    assert per_rater[5] == (None, "this rater shares no item with any other rater")
    with pytest.raises(ValueError, match="too small"):
        leave_one_out_kappa(result, 3)


# ---------------------------------------------------------------- alpha vs krippendorff ------------------------


@HYPOTHESIS
@given(matrices, st.sampled_from(["ordinal", "interval", "nominal"]))
def test_alpha_matches_krippendorff(ratings, level):
    value, reason = krippendorff_alpha(ratings, level=level)
    assert_close(value, package_alpha(ratings, level))
    assert (value is None) == (reason is not None)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("level", ["ordinal", "interval", "nominal", "ratio"])
def test_alpha_matches_krippendorff_seeded(seed, level):
    ratings = synthetic(300, 6, 3, seed=seed)
    ratings[:10, :] = 0
    ratings[10:20, 1:] = 0
    assert_close(krippendorff_alpha(ratings, level=level)[0], package_alpha(ratings, level))


def test_alpha_with_six_categories_and_value_domain():
    ratings = np.column_stack([ANXIETY_RATER2, ANXIETY_RATER3, np.r_[ANXIETY_RATER2[:10], np.zeros(10, int)]])
    six = [1, 2, 3, 4, 5, 6]
    for level in ("ordinal", "interval", "nominal"):
        assert_close(krippendorff_alpha(ratings, level=level, categories=six)[0], package_alpha(ratings, level, six))


def test_alpha_undefined_cases():
    value, reason = krippendorff_alpha(np.array([[1, 0], [0, 2]]))
    assert value is None and "no item has two or more ratings" in reason
    value, reason = krippendorff_alpha(np.full((3, 2), 2))
    assert value is None and "every pairable rating is 2" in reason
    with pytest.raises(ValueError, match="level"):
        krippendorff_alpha(KRIPPENDORFF_2011, level="circular")


# ---------------------------------------------------------------- Gwet vs loop reference ----------------------


@HYPOTHESIS
@given(matrices, st.sampled_from(["quadratic", "linear", "identity"]))
def test_gwet_matches_loop_reference(ratings, weights):
    value, reason = gwet_ac2(ratings, weights=weights)
    assert_close(value, gwet_loop_reference(ratings, weights=weights))
    assert (value is None) == (reason is not None)


@pytest.mark.parametrize("seed", range(6))
def test_gwet_matches_loop_reference_seeded(seed):
    ratings = synthetic(150, 6, 3, seed=seed)
    ratings[:8] = 0
    ratings[8:16, 1:] = 0
    for weights in ("quadratic", "identity"):
        assert_close(gwet_ac2(ratings, weights=weights)[0], gwet_loop_reference(ratings, weights=weights))
    six = (1, 2, 3, 4, 5, 6)
    anxiety = np.column_stack([ANXIETY_RATER2, ANXIETY_RATER3])
    assert_close(gwet_ac2(anxiety, categories=six)[0], gwet_loop_reference(anxiety, categories=six))


def test_gwet_is_defined_when_everyone_agrees():
    assert gwet_ac2(np.ones((5, 3), dtype=int)) == (1.0, None)
    value, reason = gwet_ac2(np.array([[1, 0], [0, 2]]))
    assert value is None and "no item has two or more ratings" in reason


# ---------------------------------------------------------------- agreement and prevalence --------------------


@HYPOTHESIS
@given(matrices, st.sampled_from([0, 1, 2]))
def test_pairwise_agreement_matches_pair_count(ratings, tolerance):
    agree = total = 0
    for row in ratings.tolist():
        given_ = [v for v in row if v]
        for i in range(len(given_)):
            for j in range(i + 1, len(given_)):
                total += 1
                agree += abs(given_[i] - given_[j]) <= tolerance
    value, reason = pairwise_agreement(ratings, tolerance=tolerance)
    if total == 0:
        assert value is None and reason
    else:
        assert abs(value - agree / total) < TOL and reason is None


def test_prevalence():
    shares = prevalence(np.array([[1, 1, 0], [1, 2, 5], [0, 0, 0]]))
    assert shares == {"1": 0.6, "2": 0.2, "3": 0.0, "4": 0.0, "5": 0.2}
    assert prevalence(np.zeros((0, 3), dtype=int)) == dict.fromkeys(["1", "2", "3", "4", "5"])
    assert list(prevalence(np.array([[6, 1]]), categories=(1, 2, 3, 4, 5, 6))) == ["1", "2", "3", "4", "5", "6"]


# ---------------------------------------------------------------- bootstrap -----------------------------------


def test_bootstrap_reproducible_and_seeded():
    ratings = synthetic(400, 6, 3, seed=7)
    first = bootstrap_kappa_ci(ratings, n_boot=300, seed=11)
    assert first == bootstrap_kappa_ci(ratings, n_boot=300, seed=11)
    assert first != bootstrap_kappa_ci(ratings, n_boot=300, seed=12)
    low, high, reason = first
    point = axis_kappa(pairwise_quadratic_kappa(ratings))[0]
    assert low < point < high and reason is None
    low90, high90, _ = bootstrap_kappa_ci(ratings, n_boot=300, seed=11, level=0.90)
    assert low <= low90 <= high90 <= high


def test_bootstrap_does_not_depend_on_the_memory_chunk_size(monkeypatch):
    ratings = synthetic(300, 6, 3, seed=10)
    reference = bootstrap_kappa_ci(ratings, n_boot=120, seed=5)
    monkeypatch.setattr(agreement_bootstrap, "_CHUNK_ELEMENTS", 1)  # one replicate per chunk
    assert bootstrap_kappa_ci(ratings, n_boot=120, seed=5) == reference


def test_bootstrap_pattern_shortcut_equals_resampling_items():
    """One replicate through the pattern multinomial == recomputing kappa on the resampled items."""
    ratings = synthetic(200, 6, 3, seed=8)
    ratings[:20, 1:] = 0  # single ratings: not resampled, cannot matter
    idx, _ = check_ratings(ratings)
    multi = ratings[(ratings > 0).sum(axis=1) >= 2]
    multi_idx = idx[(idx >= 0).sum(axis=1) >= 2]
    patterns, frequency = unique_patterns(multi_idx)
    stats = PatternPairStats(patterns)
    assert (
        abs(kappa_from_sums(stats.sums(frequency[None, :]), 2)[0] - axis_kappa(pairwise_quadratic_kappa(ratings))[0])
        < TOL
    )
    rng = np.random.default_rng(0)
    codes = {row.tobytes(): p for p, row in enumerate(patterns)}
    for _ in range(5):
        draw = rng.integers(0, multi.shape[0], size=multi.shape[0])
        counts = np.zeros((1, patterns.shape[0]), dtype=np.int64)
        for item in draw:
            counts[0, codes[multi_idx[item].tobytes()]] += 1
        direct = axis_kappa(pairwise_quadratic_kappa(multi[draw]))[0]
        assert abs(kappa_from_sums(stats.sums(counts), 2)[0] - direct) < TOL


def test_bootstrap_sums_as_one_matrix_product_equal_the_grouped_sums_to_the_bit(monkeypatch):
    """The matrix product and ``np.add.reduceat`` give the same sums, so a seed gives the same interval."""
    ratings = synthetic(400, 7, 3, seed=11)
    patterns, frequency = unique_patterns(check_ratings(ratings)[0])
    stats = PatternPairStats(patterns)
    assert stats.matrix is not None
    counts = np.random.default_rng(5).multinomial(frequency.sum(), frequency / frequency.sum(), size=40)
    by_matrix = stats.sums(counts)
    stats.matrix = None
    assert np.array_equal(by_matrix, stats.sums(counts))
    with_matrix = bootstrap_kappa_ci(ratings, n_boot=200, seed=3, method="bca")
    monkeypatch.setattr("annotation.aggregation.agreement.bootstrap._MATRIX_ELEMENTS", 0)
    assert PatternPairStats(patterns).matrix is None
    assert bootstrap_kappa_ci(ratings, n_boot=200, seed=3, method="bca") == with_matrix


def test_bootstrap_undefined_cases():
    low, high, reason = bootstrap_kappa_ci(np.ones((30, 3), dtype=int), n_boot=50)
    assert low is None and high is None and "undefined on the full data" in reason
    low, high, reason = bootstrap_kappa_ci(np.array([[1, 0], [0, 1]]), n_boot=50)
    assert low is None and "no item has two or more ratings" in reason
    # Pair (0, 1): 5 items, only one of which is not (1, 1); pair (0, 2): 20 constant items. With
    # min_common=5, a replicate needs at least 5 draws of pair (0, 1) (about an even chance) including
    # the (2, 2) item, so kappa is undefined in about 60% of the replicates.
    varied = np.array([[1, 1, 0]] * 4 + [[2, 2, 0]])
    constant = np.array([[1, 0, 1]] * 20)
    low, high, reason = bootstrap_kappa_ci(np.vstack([varied, constant]), n_boot=400, min_common=5)
    assert low is None and high is None and "more than half" in reason
    # One item carries all variation: it is missing from ~37% of replicates, which are dropped.
    ratings = np.vstack([np.ones((19, 2), dtype=int), [[1, 2]]])
    low, high, reason = bootstrap_kappa_ci(ratings, n_boot=400)
    assert low is not None and high is not None and "were dropped" in reason


# ---------------------------------------------------------------- axis report ---------------------------------


@pytest.mark.parametrize(
    ("ratings", "ids"),
    [
        (np.ones((6, 3), dtype=int), ["a", "b", "c"]),  # all identical ratings
        (np.array([[1], [2], [3]]), ["solo"]),  # one rater
        (np.zeros((0, 3), dtype=int), ["a", "b", "c"]),  # empty matrix
        (np.zeros((0, 0), dtype=int), []),  # nothing at all
        (np.zeros((4, 2), dtype=int), ["a", "b"]),  # no rating given
        (np.array([[1, 2]]), ["a", "b"]),  # one item: fewer than min_common
    ],
)
def test_axis_report_is_strict_json_on_degenerate_input(ratings, ids):
    report = axis_report(ratings, ids, n_boot=100)
    json_strict(report)
    assert report["kappa"] is None and report["passed"] is False and report["reason"]
    assert report["ci95"] is None and report["paradox_note"] is None
    assert [a["annotator"] for a in report["annotators"]] == ids


def test_axis_report_content_and_types():
    ratings = synthetic(500, 6, 3, seed=9)
    ids = [f"ann_{i:03d}" for i in range(6)]
    report = axis_report(ratings, np.array(ids), n_boot=200)
    json_strict(report)
    assert set(report) == {
        "kappa", "ci95", "alpha", "ac2", "agreement_exact", "agreement_within_1", "prevalence", "n_items",
        "n_ratings", "passed", "reason", "paradox_note", "pairs", "annotators",
    }  # fmt: skip
    assert report["kappa"] == axis_kappa(pairwise_quadratic_kappa(ratings))[0]
    assert report["alpha"] == krippendorff_alpha(ratings)[0] and report["ac2"] == gwet_ac2(ratings)[0]
    assert report["n_items"] == 500 and report["n_ratings"] == 1500
    assert report["passed"] is (report["kappa"] >= 0.60)
    assert report["ci95"][0] < report["kappa"] < report["ci95"][1]
    assert len(report["pairs"]) == 15 and report["pairs"][0]["annotators"] == ["ann_000", "ann_001"]
    assert sum(a["n_items"] for a in report["annotators"]) == 1500
    failing = axis_report(ratings, ids, min_kappa=0.99, n_boot=0)
    assert failing["passed"] is False and "below the threshold 0.99" in failing["reason"]
    assert failing["ci95"] is None


def test_axis_report_paradox_note():
    rng = np.random.default_rng(3)
    ratings = np.ones((200, 3), dtype=int)
    ratings[rng.random((200, 3)) < 0.05] = 2  # 95% "Absent", disagreements are chance-like
    report = axis_report(ratings, ["a", "b", "c"], n_boot=100)
    json_strict(report)
    assert report["kappa"] < 0.6 and report["agreement_within_1"] == 1.0
    assert "prevalence" in report["paradox_note"] and "AC2" in report["paradox_note"]
    assert report["ac2"] > 0.9
    good = axis_report(synthetic(300, 4, 2, seed=1, accuracy=0.97), list("abcd"), n_boot=0)
    assert good["passed"] and good["paradox_note"] is None and good["reason"] is None


def test_axis_report_rejects_wrong_ids():
    with pytest.raises(ValueError, match="rater ids"):
        axis_report(np.ones((3, 2), dtype=int), ["only_one"])


# ---------------------------------------------------------------- validation and import hygiene ---------------


@pytest.mark.parametrize(
    ("ratings", "categories", "message"),
    [
        (np.array([1, 2, 3]), CATEGORIES, "2-D"),
        (np.ones((2, 2)), CATEGORIES, "integer dtype"),
        (np.ones((2, 2), dtype=bool), CATEGORIES, "integer dtype"),
        (np.array([[1, 6]]), CATEGORIES, r"outside categories .* \[6\]"),
        (np.array([[1, -1]]), CATEGORIES, "outside categories"),
        (np.array([[1, 2]]), (0, 1, 2), "0 means 'missing'"),
        (np.array([[1, 2]]), (2, 1), "strictly increasing"),
        (np.array([[1, 1]]), (1,), "at least two"),
        (np.array([[1, 2]]), (1.0, 2.0), "integers"),
    ],
)
def test_invalid_input_raises(ratings, categories, message):
    for call in (
        lambda: pairwise_quadratic_kappa(ratings, categories=categories),
        lambda: krippendorff_alpha(ratings, categories=categories),
        lambda: gwet_ac2(ratings, categories=categories),
        lambda: bootstrap_kappa_ci(ratings, categories=categories),
        lambda: axis_report(ratings, list(range(ratings.shape[-1])), categories=categories),
    ):
        with pytest.raises(ValueError, match=message):
            call()


def test_large_values_and_negative_categories_take_the_slow_path():
    ratings = np.array([[-3, -3], [-1, 7], [7, 7], [0, -1]])
    cats = (-3, -1, 7)
    assert_pairs_match_sklearn(ratings, categories=cats)
    big = np.array([[1, 100_000], [100_000, 100_000], [1, 1]])
    assert_pairs_match_sklearn(big, categories=(1, 100_000))


def test_module_imports_without_django():
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    code = (
        "import sys, annotation.aggregation.agreement; "
        "assert not [m for m in sys.modules if m == 'django' or m.startswith('django.')], 'django imported'"
    )
    root = Path(__file__).resolve().parents[3]
    subprocess.run([sys.executable, "-c", code], check=True, cwd=root, env=env)
