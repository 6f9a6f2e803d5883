"""Paired tests against the references: scipy.stats.wilcoxon and statsmodels' mcnemar (exact and chi-square)."""

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from statsmodels.stats.contingency_tables import mcnemar as sm_mcnemar

from layer3.statistics.paired import EXACT_BELOW, matched_rank_biserial, mcnemar, wilcoxon_signed_rank

TOL = 1e-9


def scipy_wilcoxon(a, b):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = stats.wilcoxon(np.asarray(b, dtype=float) - np.asarray(a, dtype=float))
    return float(result.statistic), float(result.pvalue)


def assert_wilcoxon_matches(a, b):
    result = wilcoxon_signed_rank(a, b)
    statistic, p_value = scipy_wilcoxon(a, b)
    assert result.performed
    assert math.isclose(result.statistic, statistic, rel_tol=0, abs_tol=TOL)
    assert math.isclose(result.p_value, p_value, rel_tol=0, abs_tol=TOL)
    assert math.isclose(result.difference, float(np.mean(b) - np.mean(a)), abs_tol=TOL)


def test_wilcoxon_equals_scipy_on_seeded_random_cases():
    rng = np.random.default_rng(20261207)
    for case in range(300):
        n = int(rng.integers(2, 60))
        a = rng.normal(size=n)
        if case % 3 == 0:  # ordinal scores with ties and zero differences (scipy's normal approximation)
            a = rng.integers(0, 3, size=n).astype(float)
            b = np.clip(a + rng.integers(-1, 2, size=n), 0, 2)
        else:
            b = a + rng.normal(loc=rng.normal(scale=0.5), size=n)
        if not np.any(b - a):
            continue
        assert_wilcoxon_matches(a.tolist(), b.tolist())


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 20), st.integers(0, 20)), min_size=1, max_size=40))
def test_wilcoxon_equals_scipy_on_hypothesis_counts(pairs):
    a = [float(x) for x, _ in pairs]
    b = [float(y) for _, y in pairs]
    if a == b:
        assert wilcoxon_signed_rank(a, b).reason_code == "all_differences_zero"
        return
    assert_wilcoxon_matches(a, b)


def test_wilcoxon_with_all_differences_zero_is_undefined_with_its_reason():
    result = wilcoxon_signed_rank([1.0, 2.0, 3.0], [1.0, 2.0, 3.0])
    assert (result.statistic, result.p_value, result.reason_code) == (None, None, "all_differences_zero")
    assert result.n == 3 and result.difference == 0.0 and "zero" in result.reason


def test_wilcoxon_with_one_pair_is_scipys_answer():
    result = wilcoxon_signed_rank([1.0], [3.5])
    assert (result.statistic, result.p_value) == scipy_wilcoxon([1.0], [3.5]) == (0.0, 1.0)
    assert result.effect_size == 1.0 and result.difference == 2.5


def test_wilcoxon_without_pairs_is_undefined():
    result = wilcoxon_signed_rank([], [])
    assert (result.n, result.p_value, result.reason_code) == (0, None, "no_pairs")


def test_matched_rank_biserial_counts_signed_ranks():
    # |d| = 1, 2, 3 -> ranks 1, 2, 3; positive 1 + 3, negative 2
    assert matched_rank_biserial(np.array([1.0, -2.0, 3.0, 0.0])) == pytest.approx((4 - 2) / 6)


def statsmodels_mcnemar(b, c, exact):
    table = np.array([[5, b], [c, 7]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = sm_mcnemar(table, exact=exact, correction=True)
    return float(result.statistic), float(result.pvalue)


@pytest.mark.parametrize("variant", ["exact", "chi2"])
def test_mcnemar_equals_statsmodels_on_seeded_random_tables(variant):
    rng = np.random.default_rng(42)
    for _ in range(400):
        b, c = (int(v) for v in rng.integers(0, 80, size=2))
        if b + c == 0:
            continue
        result = mcnemar(b, c, variant=variant)
        statistic, p_value = statsmodels_mcnemar(b, c, exact=variant == "exact")
        assert math.isclose(result.statistic, statistic, rel_tol=0, abs_tol=TOL)
        assert math.isclose(result.p_value, p_value, rel_tol=0, abs_tol=TOL)
        assert result.test == f"mcnemar_{variant}"


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 200), st.integers(0, 200))
def test_mcnemar_picks_exact_below_25_discordant_pairs_and_equals_that_variant(b, c):
    if b + c == 0:
        return
    exact = b + c < EXACT_BELOW
    result = mcnemar(b, c)
    statistic, p_value = statsmodels_mcnemar(b, c, exact=exact)
    assert result.test == ("mcnemar_exact" if exact else "mcnemar_chi2")
    assert math.isclose(result.statistic, statistic, rel_tol=0, abs_tol=TOL)
    assert math.isclose(result.p_value, p_value, rel_tol=0, abs_tol=TOL)


def test_mcnemar_without_discordant_pairs_is_undefined_where_statsmodels_gives_1_or_a_division_by_zero():
    result = mcnemar(0, 0, n=12, successes_a=7)
    assert (result.statistic, result.p_value, result.reason_code) == (None, None, "no_discordant_pairs")
    assert (result.value_a, result.value_b, result.difference) == (7 / 12, 7 / 12, 0.0)
    assert statsmodels_mcnemar(0, 0, exact=True)[1] == 1.0
    assert statsmodels_mcnemar(0, 0, exact=False) == (math.inf, 0.0)  # (|0| - 1)² / 0
    assert mcnemar(0, 0, n=3, variant="chi2").reason_code == "no_discordant_pairs"


def test_mcnemar_with_one_pair_and_proportions():
    result = mcnemar(0, 1, n=1, successes_a=0)
    assert (result.value_a, result.value_b, result.difference) == (0.0, 1.0, 1.0)
    assert (result.statistic, result.p_value) == statsmodels_mcnemar(0, 1, exact=True) == (0.0, 1.0)


def test_mcnemar_refuses_inconsistent_counts():
    with pytest.raises(ValueError, match="successes_a"):
        mcnemar(3, 0, n=5, successes_a=2)
    with pytest.raises(ValueError, match="non-negative"):
        mcnemar(-1, 0)
