"""The error bars' intervals: Wilson against statsmodels' proportion_confint, t against scipy.stats.t.interval."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from statsmodels.stats.proportion import proportion_confint

from layer3.figures.intervals import Interval, interval_method, metric_interval, t_interval, wilson_interval
from layer3.statistics import LAYER3_METRICS, model_samples
from tests.layer3.statistics.trials import error_trial, layer3_trial

TOL = 1e-9


def assert_wilson_matches_statsmodels(successes, n):
    interval = wilson_interval(successes, n)
    low, high = proportion_confint(successes, n, alpha=0.05, method="wilson")
    assert interval.estimate == successes / n
    assert interval.n == n
    assert math.isclose(interval.low, float(low), rel_tol=0, abs_tol=TOL)
    assert math.isclose(interval.high, float(high), rel_tol=0, abs_tol=TOL)
    assert 0.0 <= interval.low <= interval.estimate <= interval.high <= 1.0


@pytest.mark.parametrize(
    ("successes", "n"), [(0, 1), (1, 1), (0, 10), (10, 10), (3, 10), (1, 2), (50, 100), (1, 1000), (247, 370)]
)
def test_wilson_interval_equals_statsmodels_including_zero_and_all_successes(successes, n):
    assert_wilson_matches_statsmodels(successes, n)


@settings(max_examples=300, deadline=None)
@given(st.integers(min_value=1, max_value=100_000).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_wilson_interval_equals_statsmodels_for_any_counts(counts):
    assert_wilson_matches_statsmodels(*counts)


def test_wilson_interval_of_no_items_has_no_estimate_and_no_bounds():
    assert wilson_interval(0, 0) == Interval(None, None, None, 0)


@pytest.mark.parametrize(("successes", "n"), [(3, 2), (-1, 5), (0, -1)])
def test_wilson_interval_rejects_impossible_counts(successes, n):
    with pytest.raises(ValueError, match="0 <= successes <= n"):
        wilson_interval(successes, n)


@pytest.mark.parametrize(
    "values", [[1.0, 2.0], [0.5, 1.5, 2.0, 1.0], list(np.linspace(0, 3.2, 25)), [2.0, 2.0, 2.0, 1.9999]]
)
def test_t_interval_equals_scipy_and_the_hand_computation(values):
    interval = t_interval(values)
    n = len(values)
    mean = float(np.mean(values))
    sem = float(np.std(values, ddof=1)) / math.sqrt(n)
    low, high = stats.t.interval(0.95, n - 1, loc=mean, scale=sem)
    half_width = stats.t.ppf(0.975, n - 1) * sem
    assert interval.n == n
    assert math.isclose(interval.estimate, mean, rel_tol=0, abs_tol=TOL)
    assert math.isclose(interval.low, float(low), rel_tol=0, abs_tol=TOL)
    assert math.isclose(interval.high, float(high), rel_tol=0, abs_tol=TOL)
    assert math.isclose(interval.low, mean - half_width, rel_tol=0, abs_tol=TOL)


def test_t_interval_of_two_values_uses_twelve_point_seven_as_the_t_quantile():
    interval = t_interval([1.0, 2.0])  # s = 1/sqrt(2), sem = 1/2, t(0.975, 1) = 12.7062...
    assert math.isclose(interval.high - interval.estimate, 12.706204736174707 * 0.5, rel_tol=0, abs_tol=TOL)


def test_t_interval_of_one_value_is_a_bar_without_bounds():
    assert t_interval([1.5]) == Interval(1.5, None, None, 1)


def test_t_interval_of_no_values_is_empty():
    assert t_interval([]) == Interval(None, None, None, 0)


def test_t_interval_of_identical_values_has_zero_width_where_scipy_gives_nan():
    assert t_interval([0.25, 0.25, 0.25]) == Interval(0.25, 0.25, 0.25, 3)


def test_metric_interval_takes_summed_counts_for_rates_and_trial_values_for_means():
    samples = model_samples(
        [
            layer3_trial(gv=[2, 2, 1], types=["flow", "meta", "unknown"], sc=[2, 0], widgets=["a", "b"], graph=(3, 2)),
            layer3_trial(gv=[2, 0], types=["flow"], sc=[], widgets=["a"], graph=(2, 1)),
            error_trial(),
        ]
    )
    assert metric_interval(samples, "GV_UR") == wilson_interval(3, 5)
    assert metric_interval(samples, "W2WR_FR") == wilson_interval(2, 4)
    assert metric_interval(samples, "W2WR_SYR") == wilson_interval(0, 4)
    assert metric_interval(samples, "W2WR_CR") == wilson_interval(1, 2)
    assert metric_interval(samples, "GV_CR") == t_interval([5 / 3, 1.0])
    assert metric_interval(samples, "W2WR_SC") == Interval(1.0, None, None, 1)  # one trial with judged bindings
    assert metric_interval(samples, "GC_NC") == t_interval([3.0, 2.0])


def test_every_metric_has_an_interval_method_and_an_unknown_metric_names_the_accepted_ones():
    samples = model_samples([layer3_trial(graph=(2, 1))])
    assert {interval_method(m) for m in LAYER3_METRICS} == {"wilson", "t"}
    for metric in LAYER3_METRICS:
        metric_interval(samples, metric)
    with pytest.raises(ValueError, match="unknown metric 'GV_XX'; expected one of GV_CR, GV_UR"):
        metric_interval(samples, "GV_XX")
