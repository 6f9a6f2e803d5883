"""two_proportion_z against statsmodels' proportions_ztest (pooled); Cohen's h by hand."""

import math
import warnings

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from statsmodels.stats.proportion import confint_proportions_2indep, proportions_ztest

from layer3.statistics import two_proportion_z
from layer3.statistics.proportions import WALD_Z, cohens_h, wald_difference

TOL = 1e-9


def assert_matches_statsmodels(x_a, n_a, x_b, n_b):
    result = two_proportion_z(x_a, n_a, x_b, n_b)
    z, p = proportions_ztest([x_a, x_b], [n_a, n_b])
    assert result.reason is None
    assert math.isclose(result.statistic, float(z), rel_tol=0, abs_tol=TOL)
    assert math.isclose(result.p_value, float(p), rel_tol=0, abs_tol=TOL)
    p_a, p_b = x_a / n_a, x_b / n_b
    assert (result.value_a, result.value_b) == (p_a, p_b)
    assert (result.n_a, result.n_b) == (n_a, n_b)
    assert math.isclose(result.effect_size, 2 * math.asin(p_a**0.5) - 2 * math.asin(p_b**0.5), rel_tol=0, abs_tol=TOL)
    for value in (result.statistic, result.p_value, result.effect_size):
        assert type(value) is float
    return result


@pytest.mark.parametrize(
    ("x_a", "n_a", "x_b", "n_b"),
    [
        (30, 100, 20, 100),
        (1, 1, 0, 1),  # n = 1 each
        (1, 2, 2, 2),
        (0, 5, 3, 7),  # one proportion 0
        (5, 5, 1, 9),  # one proportion 1
        (412, 1000, 9, 40),  # different sizes
        (9000, 10000, 100, 10000),  # far tail: p-value near 0
        (117, 340, 118, 341),
    ],
)
def test_it_equals_statsmodels_on_hand_made_counts(x_a, n_a, x_b, n_b):
    assert_matches_statsmodels(x_a, n_a, x_b, n_b)


def test_z_by_hand():
    # p_A = 0.3, p_B = 0.2, pooled 0.25: z = 0.1 / sqrt(0.25 * 0.75 * (1/100 + 1/100)) = 0.1 / sqrt(0.00375)
    result = two_proportion_z(30, 100, 20, 100)
    assert math.isclose(result.statistic, 0.1 / math.sqrt(0.00375), rel_tol=0, abs_tol=TOL)
    assert math.isclose(result.p_value, math.erfc(result.statistic / math.sqrt(2)), rel_tol=0, abs_tol=TOL)


@pytest.mark.parametrize(
    ("p_a", "p_b", "h", "label"),
    [
        (0.5, 0.25, math.pi / 6, "medium"),  # 2·(π/4) - 2·(π/6)
        (0.75, 0.25, math.pi / 3, "large"),  # 2·(π/3) - 2·(π/6)
        (0.25, 0.75, -math.pi / 3, "large"),
        (1.0, 0.0, math.pi, "large"),
        (0.5, 0.5, 0.0, "negligible"),
        (0.75, 0.5, math.pi / 6, "medium"),
    ],
)
def test_cohens_h_by_hand(p_a, p_b, h, label):
    assert math.isclose(cohens_h(p_a, p_b), h, rel_tol=0, abs_tol=1e-12)
    x_a, x_b = round(p_a * 4), round(p_b * 4)
    result = two_proportion_z(x_a, 4, x_b, 4)
    assert math.isclose(result.effect_size, h, rel_tol=0, abs_tol=1e-12)
    assert result.effect_magnitude == label


@pytest.mark.parametrize(
    ("x_a", "x_b", "label"),
    [
        (10, 5, "negligible"),  # h = 0.1925
        (10, 4, "small"),  # h = 0.2408
        (40, 17, "medium"),  # h = 0.5195
        (60, 22, "medium"),  # h = 0.7957
        (70, 30, "large"),  # h = 0.8230
        (30, 70, "large"),  # the label goes by |h|
    ],
)
def test_magnitude_follows_the_h_thresholds(x_a, x_b, label):
    assert two_proportion_z(x_a, 100, x_b, 100).effect_magnitude == label


def test_the_sign_follows_a_minus_b():
    forward, backward = two_proportion_z(30, 50, 10, 50), two_proportion_z(10, 50, 30, 50)
    assert forward.statistic > 0 and forward.effect_size > 0
    assert backward.statistic == -forward.statistic and backward.effect_size == -forward.effect_size
    assert forward.p_value == backward.p_value


@pytest.mark.parametrize(
    ("counts", "reason", "code", "params"),
    [
        ((0, 0, 3, 10), "no items in model A", "empty_group", {"models": ["A"]}),
        ((3, 10, 0, 0), "no items in model B", "empty_group", {"models": ["B"]}),
        ((0, 0, 0, 0), "no items in models A and B", "empty_group", {"models": ["A", "B"]}),
        (
            (0, 10, 0, 7),
            "pooled proportion is 0 (no successes in either model), so the variance is 0",
            "pooled_proportion_zero",
            {"n": 17},
        ),
        (
            (10, 10, 7, 7),
            "pooled proportion is 1 (only successes in both models), so the variance is 0",
            "pooled_proportion_one",
            {"n": 17},
        ),
    ],
)
def test_undefined_tests_give_none_and_a_reason(counts, reason, code, params):
    result = two_proportion_z(*counts)
    assert reason in result.reason
    assert (result.reason_code, result.reason_params) == (code, params)
    assert not result.performed
    assert (result.statistic, result.p_value, result.effect_size, result.effect_magnitude) == (None,) * 4
    x_a, n_a, x_b, n_b = counts
    assert result.value_a == (x_a / n_a if n_a else None)
    assert result.value_b == (x_b / n_b if n_b else None)


def test_statsmodels_gives_nan_where_the_pooled_proportion_is_0():
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        z, p = proportions_ztest([0, 0], [10, 7])
    assert math.isnan(z) and math.isnan(p)


def test_the_reason_names_the_unit_and_labels():
    result = two_proportion_z(1, 4, 0, 0, labels=("B", "D"), unit="W2WR bindings for W2WR_FR")
    assert result.reason == "no W2WR bindings for W2WR_FR in model D"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((5, 4, 1, 4), "x_a must not exceed n_a; got x_a=5, n_a=4"),
        ((1, 4, -1, 4), "x_b must be a non-negative integer; got -1"),
        ((1.5, 4, 1, 4), "x_a must be a non-negative integer; got 1.5"),
        ((1, 4, 1, True), "n_b must be a non-negative integer; got True"),
    ],
)
def test_bad_counts_are_refused(args, message):
    with pytest.raises(ValueError, match=message):
        two_proportion_z(*args)


@settings(max_examples=400, deadline=None)
@given(st.data())
def test_it_equals_statsmodels_on_random_counts(data):
    n_a = data.draw(st.integers(min_value=1, max_value=5000))
    n_b = data.draw(st.integers(min_value=1, max_value=5000))
    x_a = data.draw(st.integers(min_value=0, max_value=n_a))
    x_b = data.draw(st.integers(min_value=0, max_value=n_b))
    assume(0 < x_a + x_b < n_a + n_b)
    assert_matches_statsmodels(x_a, n_a, x_b, n_b)


def test_it_equals_statsmodels_on_numpy_integers():
    rng = np.random.default_rng(7)
    for _ in range(50):
        n_a, n_b = rng.integers(1, 200, size=2)
        x_a, x_b = rng.integers(0, n_a + 1), rng.integers(0, n_b + 1)
        if 0 < x_a + x_b < n_a + n_b:
            assert_matches_statsmodels(x_a, n_a, x_b, n_b)


def assert_wald_matches_statsmodels(x_a, n_a, x_b, n_b):
    result = wald_difference(x_a, n_a, x_b, n_b)
    low, high = confint_proportions_2indep(x_a, n_a, x_b, n_b, method="wald", compare="diff")
    assert math.isclose(result.low, float(low), rel_tol=0, abs_tol=TOL)
    assert math.isclose(result.high, float(high), rel_tol=0, abs_tol=TOL)
    assert result.difference == x_a / n_a - x_b / n_b
    for value in (result.difference, result.standard_error, result.low, result.high):
        assert type(value) is float


@pytest.mark.parametrize(
    ("x_a", "n_a", "x_b", "n_b"),
    [(30, 100, 20, 90), (1, 1, 0, 1), (0, 5, 3, 7), (5, 5, 1, 9), (9000, 10000, 100, 10000), (0, 10, 0, 7)],
)
def test_the_wald_interval_equals_statsmodels(x_a, n_a, x_b, n_b):
    assert_wald_matches_statsmodels(x_a, n_a, x_b, n_b)


def test_the_wald_interval_by_hand():
    # p_A = 0.3, p_B = 0.2: se = sqrt(0.21/100 + 0.16/100) = sqrt(0.0037), interval 0.1 ± 1.959964·se
    result = wald_difference(30, 100, 20, 100)
    assert math.isclose(result.standard_error, math.sqrt(0.0037), rel_tol=0, abs_tol=1e-15)
    assert math.isclose(WALD_Z, 1.959963984540054, rel_tol=0, abs_tol=1e-15)
    assert math.isclose(result.low, 0.1 - WALD_Z * math.sqrt(0.0037), rel_tol=0, abs_tol=1e-15)
    assert math.isclose(result.high, 0.1 + WALD_Z * math.sqrt(0.0037), rel_tol=0, abs_tol=1e-15)


def test_the_wald_interval_of_two_extreme_proportions_is_a_point_and_an_empty_group_has_none():
    result = wald_difference(4, 4, 0, 3)
    assert (result.difference, result.standard_error, result.low, result.high) == (1.0, 0.0, 1.0, 1.0)
    assert wald_difference(0, 0, 3, 10) is None and wald_difference(3, 10, 0, 0) is None
    with pytest.raises(ValueError, match="x_b must not exceed n_b"):
        wald_difference(1, 2, 5, 4)


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_the_wald_interval_equals_statsmodels_on_random_counts(data):
    n_a = data.draw(st.integers(min_value=1, max_value=5000))
    n_b = data.draw(st.integers(min_value=1, max_value=5000))
    x_a = data.draw(st.integers(min_value=0, max_value=n_a))
    x_b = data.draw(st.integers(min_value=0, max_value=n_b))
    assert_wald_matches_statsmodels(x_a, n_a, x_b, n_b)


def test_the_written_wald_z_is_exactly_what_scipy_computes():
    from scipy import stats

    from layer3.statistics.proportions import WALD_ALPHA

    assert float(stats.norm.isf(WALD_ALPHA / 2)) == WALD_Z
