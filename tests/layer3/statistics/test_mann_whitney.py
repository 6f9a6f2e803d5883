"""mann_whitney_u against scipy.stats.mannwhitneyu; rank-biserial against counting the pairs."""

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from layer3.statistics import mann_whitney_u
from layer3.statistics.mann_whitney import rank_biserial

TOL = 1e-9


def reference(a, b, **kwargs):
    result = stats.mannwhitneyu(a, b, alternative="two-sided", **kwargs)
    return float(result.statistic), float(result.pvalue)


def pairwise_rank_biserial(a, b):
    """(wins - losses) / (n_a n_b) over all (a, b) pairs, exactly: independent of any ranking."""
    wins = sum(1 for x in a for y in b if x > y)
    losses = sum(1 for x in a for y in b if x < y)
    return Fraction(wins - losses, len(a) * len(b))


def magnitude(r):
    """The label of an exact r against the exact decimals 0.1, 0.3 and 0.5."""
    size = abs(r)
    if size < Fraction(1, 10):
        return "negligible"
    return "small" if size < Fraction(3, 10) else "medium" if size < Fraction(1, 2) else "large"


def assert_matches_scipy(a, b):
    result = mann_whitney_u(a, b)
    u, p = reference(a, b)
    assert result.reason is None
    assert math.isclose(result.statistic, u, rel_tol=0, abs_tol=TOL)
    assert math.isclose(result.p_value, p, rel_tol=0, abs_tol=TOL)
    expected_r = pairwise_rank_biserial(a, b)
    assert math.isclose(result.effect_size, float(expected_r), rel_tol=0, abs_tol=TOL)
    assert result.effect_magnitude == magnitude(expected_r)
    assert (result.n_a, result.n_b) == (len(a), len(b))
    assert math.isclose(result.value_a, float(np.mean(a)), rel_tol=0, abs_tol=TOL)
    assert math.isclose(result.value_b, float(np.mean(b)), rel_tol=0, abs_tol=TOL)
    for value in (result.statistic, result.p_value, result.effect_size, result.value_a, result.value_b):
        assert type(value) is float
    return result


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ([1.0], [2.0]),  # n = 1 each
        ([3.0], [1.0, 2.0, 4.0, 5.0, 6.0]),
        ([1.0, 2.0], [3.0, 4.0]),  # n = 2 each
        ([0.5, 1.5], [1.0, 2.0, 0.0]),
        ([2, 2, 1, 0, 2, 1], [1, 1, 0, 0, 2]),  # GV_CR-like scores with ties
        ([1.25, 1.0, 2.0, 1.5], [0.5, 1.0, 1.0, 0.75, 1.25, 2.0, 0.0]),
        ([3, 3, 3], [4]),  # one group constant, the other differs
        ([0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0], [0.0] * 12),
        (list(range(20)), [x + 0.5 for x in range(5, 35)]),  # different sizes, asymptotic without ties
        ([19, 22, 16, 29, 24], [20, 11, 17, 12]),  # scipy's docstring example
    ],
)
def test_it_equals_scipy_on_hand_made_samples(a, b):
    assert_matches_scipy(a, b)


def test_without_ties_and_at_most_8_values_in_the_smaller_sample_it_is_exact():
    a, b = [1.1, 2.3, 3.7, 9.9, 12.0], [4.4, 5.5, 6.6, 7.7, 8.8, 10.1, 11.2, 13.3, 14.4, 15.0]
    result = mann_whitney_u(a, b)
    _, exact = reference(a, b, method="exact")
    _, asymptotic = reference(a, b, method="asymptotic")
    assert math.isclose(result.p_value, exact, rel_tol=0, abs_tol=TOL)
    assert abs(exact - asymptotic) > 1e-3  # so the test tells the two regimes apart


def test_with_more_than_8_values_in_both_samples_it_is_asymptotic():
    rng = np.random.default_rng(2)
    a, b = rng.normal(0, 1, 9).tolist(), rng.normal(0.8, 1, 11).tolist()
    result = mann_whitney_u(a, b)
    _, exact = reference(a, b, method="exact")
    _, asymptotic = reference(a, b, method="asymptotic")
    assert math.isclose(result.p_value, asymptotic, rel_tol=0, abs_tol=TOL)
    assert abs(exact - asymptotic) > 1e-6


def test_with_ties_in_small_samples_it_is_asymptotic_with_tie_and_continuity_correction():
    a, b = [1, 2, 2, 3], [2, 3, 4]
    result = mann_whitney_u(a, b)
    _, asymptotic = reference(a, b, method="asymptotic", use_continuity=True)
    _, without_continuity = reference(a, b, method="asymptotic", use_continuity=False)
    assert math.isclose(result.p_value, asymptotic, rel_tol=0, abs_tol=TOL)
    assert abs(asymptotic - without_continuity) > 1e-3


def test_the_statistic_is_u_of_a_so_r_is_positive_when_a_tends_to_be_larger():
    larger, smaller = [5, 6, 7, 8], [1, 2, 3]
    forward, backward = mann_whitney_u(larger, smaller), mann_whitney_u(smaller, larger)
    assert forward.statistic == 12.0 and forward.effect_size == 1.0 and forward.effect_magnitude == "large"
    assert backward.statistic == 0.0 and backward.effect_size == -1.0
    assert forward.p_value == backward.p_value


def test_rank_biserial_counts_ties_as_half_a_win():
    # Pairs: 2>1 win, 2=2 tie, 1<2 loss, 1=1 tie -> U = 1 + 1/2 + 1/2 = 2, r = 2*2/4 - 1 = 0.
    result = mann_whitney_u([2, 1], [1, 2])
    assert result.statistic == 2.0 and result.effect_size == 0.0 and result.effect_magnitude == "negligible"
    assert rank_biserial(3.0, 2, 2) == Fraction(1, 2)
    assert rank_biserial(22.0, 5, 8) == Fraction(1, 10)


@pytest.mark.parametrize(
    ("a", "b", "label"),
    [
        ([1, 2, 3, 4, 6], [0, 1.5, 2.5, 3.5, 4.5, 5, 7, 8], "small"),  # r = (22 - 18)/40 = 0.1 exactly
        ([1, 5], [0.5, 1, 2.5, 3, 4.5], "medium"),  # r = (6 - 3)/10 = 0.3 exactly (one tie)
        ([2, 4], [1, 3], "large"),  # r = (3 - 1)/4 = 0.5 exactly
        ([1, 4], [2, 3], "negligible"),  # r = 0
    ],
)
def test_an_effect_size_exactly_on_a_threshold_gets_the_higher_label(a, b, label):
    assert mann_whitney_u(a, b).effect_magnitude == label
    assert mann_whitney_u(b, a).effect_magnitude == label


@pytest.mark.parametrize(
    ("a", "b", "reason", "code", "params"),
    [
        ([], [1.0, 2.0], "no values in model A", "empty_group", {"models": ["A"]}),
        ([1.0], [], "no values in model B", "empty_group", {"models": ["B"]}),
        ([], [], "no values in models A and B", "empty_group", {"models": ["A", "B"]}),
        ([2.0, 2.0], [2.0], "all 3 values equal 2.0 in both models", "all_tied", {"n": 3, "value": 2.0}),
        ([0.5], [0.5], "all 2 values equal 0.5 in both models", "all_tied", {"n": 2, "value": 0.5}),
    ],
)
def test_undefined_tests_give_none_and_a_reason(a, b, reason, code, params):
    result = mann_whitney_u(a, b)
    assert reason in result.reason
    assert (result.reason_code, result.reason_params) == (code, params)
    assert not result.performed
    assert (result.statistic, result.p_value, result.effect_size, result.effect_magnitude) == (None,) * 4
    assert result.value_a == (None if not a else float(np.mean(a)))
    assert result.value_b == (None if not b else float(np.mean(b)))


def test_the_reason_names_the_unit_and_labels():
    result = mann_whitney_u([1.0], [], labels=("C", "E"), unit="trials with GV_CR")
    assert result.reason == "no trials with GV_CR in model E"


def test_where_all_values_are_equal_scipy_says_p_1_but_the_test_is_undefined():
    # The reference has no evidence either way here; undefined keeps it out of the correction's m.
    assert reference([1.0, 1.0], [1.0, 1.0, 1.0]) == (3.0, 1.0)
    assert mann_whitney_u([1.0, 1.0], [1.0, 1.0, 1.0]).p_value is None


def test_non_finite_values_are_refused():
    with pytest.raises(ValueError, match="a must hold finite numbers only"):
        mann_whitney_u([1.0, math.inf], [2.0])
    with pytest.raises(ValueError, match="b must be a one-dimensional"):
        mann_whitney_u([1.0], [[2.0]])


SCORES = st.integers(min_value=0, max_value=4).map(float)  # few distinct values: many ties
REALS = st.floats(min_value=-1e3, max_value=1e3, allow_nan=False, allow_infinity=False)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.one_of(SCORES, REALS), min_size=1, max_size=25),
    st.lists(st.one_of(SCORES, REALS), min_size=1, max_size=25),
)
def test_it_equals_scipy_on_random_samples(a, b):
    if min(a + b) == max(a + b):
        assert mann_whitney_u(a, b).reason is not None
    else:
        assert_matches_scipy(a, b)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(REALS, min_size=1, max_size=8, unique=True),
    st.lists(REALS, min_size=1, max_size=30, unique=True),
)
def test_it_equals_scipy_in_the_exact_regime(a, b):
    b = [x for x in b if x not in a] or [max(a) + 1.0]
    result = assert_matches_scipy(a, b)
    _, exact = reference(a, b, method="exact")
    assert math.isclose(result.p_value, exact, rel_tol=0, abs_tol=TOL)


def test_it_equals_scipy_on_large_seeded_samples():
    rng = np.random.default_rng(2002)
    for _ in range(20):
        n_a, n_b = rng.integers(1, 400, size=2)
        a = np.round(rng.gamma(2.0, 1.0, n_a), int(rng.integers(0, 4))).tolist()
        b = np.round(rng.gamma(2.2, 1.0, n_b), int(rng.integers(0, 4))).tolist()
        assert_matches_scipy(a, b)
