"""Batch estimates from a stratified audit sample: the weighted helpers against statsmodels, and the
stratified estimator and its variance against every possible sample of a small batch and a simulation."""

import itertools
import math
from statistics import NormalDist

import numpy as np
import pytest
from statsmodels.stats.weightstats import DescrStatsW

from annotation.audits.sampling import (
    Sample,
    SampledUnit,
    StratumAllocation,
    stratified_mean,
    stratified_proportion,
    stratified_sample,
    weighted_mean,
    weighted_proportion,
)

TOL = 1e-12


def design(chosen: dict[tuple, tuple[int, list[str]]]) -> Sample:
    """A sample taking ``keys`` from a stratum of ``population`` units, for each ``stratum: (population, keys)``."""
    allocation = tuple(StratumAllocation(s, population, len(keys)) for s, (population, keys) in chosen.items())
    units = [SampledUnit(key, s.stratum, s.weight) for s in allocation for key in chosen[s.stratum][1]]
    return Sample(tuple(sorted(units, key=lambda u: u.key)), allocation, 0, len(units), 1)


def test_weighted_mean_and_proportion_equal_statsmodels():
    rng = np.random.default_rng(0)
    values, weights = rng.integers(0, 3, 50), rng.uniform(0.5, 30, 50)
    expected = DescrStatsW(values, weights).mean
    assert math.isclose(weighted_mean(values.tolist(), weights.tolist()), expected, abs_tol=TOL)
    outcomes = values == 2
    expected = DescrStatsW(outcomes.astype(float), weights).mean
    assert math.isclose(weighted_proportion(list(outcomes), weights.tolist()), expected, abs_tol=TOL)
    assert math.isclose(weighted_proportion(outcomes.astype(int).tolist(), list(weights)), expected, abs_tol=TOL)


def test_weighted_proportion_by_hand():
    assert weighted_proportion([True, False, True], [1, 2, 3]) == pytest.approx(4 / 6, abs=TOL)
    assert weighted_mean([0, 1, 2], [3, 0, 1]) == pytest.approx(2 / 4, abs=TOL)


@pytest.mark.parametrize(
    ("values", "weights", "message"),
    [
        ([1, 2], [1], r"2 values but 1 weights"),
        ([], [], r"there are no values to average"),
        ([1, 2], [1, -1], r"weights must not be negative; got -1.0"),
        ([1, 2], [0, 0], r"the weights sum to 0"),
        ([1, float("nan")], [1, 1], r"values\[1\] must be a finite number; got nan"),
        ([1, "2"], [1, 1], r"values\[1\] must be a finite number; got '2'"),
        ([1, 2], [1, float("inf")], r"weights\[1\] must be a finite number; got inf"),
    ],
)
def test_weighted_mean_refuses_bad_input(values, weights, message):
    with pytest.raises(ValueError, match=message):
        weighted_mean(values, weights)


def test_weighted_proportion_refuses_values_other_than_true_false_one_zero():
    with pytest.raises(ValueError, match=r"outcomes\[1\] must be True/False or 1/0; got 2"):
        weighted_proportion([1, 2], [1, 1])


def test_stratified_proportion_by_hand():
    # A: 4 of 10 sampled, p = 1/2, s² = 4·(1/4)/3 = 1/3;  B: 2 of 5, p = 1/2, s² = 2·(1/4)/1 = 1/2
    # v = (10/15)²·0.6·(1/3)/4 + (5/15)²·0.6·(1/2)/2 = 1/45 + 1/60 = 7/180
    sample = design({("A", 2): (10, ["a1", "a2", "a3", "a4"]), ("B", 0): (5, ["b1", "b2"])})
    outcomes = {"a1": True, "a2": True, "a3": False, "a4": False, "b1": True, "b2": False}
    estimate = stratified_proportion(sample, outcomes)
    assert estimate.reason is None
    assert estimate.value == pytest.approx(0.5, abs=TOL)
    assert estimate.standard_error == pytest.approx(math.sqrt(7 / 180), abs=TOL)
    half = NormalDist().inv_cdf(0.975) * math.sqrt(7 / 180)
    assert (estimate.ci_low, estimate.ci_high) == pytest.approx((0.5 - half, 0.5 + half), abs=TOL)
    assert (estimate.observed, estimate.population, estimate.confidence) == (6, 15, 0.95)
    narrow = stratified_proportion(sample, outcomes, confidence=0.5)
    assert narrow.ci_high - narrow.ci_low == pytest.approx(2 * NormalDist().inv_cdf(0.75) * math.sqrt(7 / 180))


def test_it_equals_the_weighted_proportion_with_the_sample_weights():
    units = [(f"t{i:04d}", ("gpt" if i % 3 else "llama", i % 7 % 3)) for i in range(900)]
    sample = stratified_sample(units, size=80, seed=2)
    outcomes = {unit.key: int(unit.key[-1]) % 2 == 0 for unit in sample.units}
    estimate = stratified_proportion(sample, outcomes)
    weights = [unit.weight for unit in sample.units]
    assert estimate.value == pytest.approx(weighted_proportion([outcomes[k] for k in sample.keys], weights), abs=TOL)


def test_the_standard_error_combines_statsmodels_per_stratum_standard_errors():
    """Per stratum, DescrStatsW(y, ddof=1).std_mean is s_h/√m_h; the estimator adds the FPC and the shares."""
    rng = np.random.default_rng(5)
    populations = {("A", 2): 400, ("A", 0): 60, ("B", 1): 250}
    chosen, values = {}, {}
    for stratum, population in populations.items():
        keys = [f"{stratum[0]}{stratum[1]}-{i}" for i in range(population // 10)]
        chosen[stratum] = (population, keys)
        values.update(zip(keys, rng.integers(0, 3, len(keys)).tolist(), strict=True))
    estimate = stratified_mean(design(chosen), values)
    total = sum(populations.values())
    variance = 0.0
    for population, keys in chosen.values():
        per_stratum = DescrStatsW(np.array([values[k] for k in keys], dtype=float), ddof=1)
        variance += (population / total) ** 2 * (1 - len(keys) / population) * per_stratum.std_mean**2
    assert estimate.standard_error == pytest.approx(math.sqrt(variance), abs=TOL)


BATCH = {  # stratum: the values of its units in the batch (a proportion's 0/1, or a 0–2 score)
    ("gpt", 2): [1, 0, 1, 1, 0],
    ("gpt", 0): [0, 0, 2, 0],
    ("llama", 1): [1, 2, 0, 1, 0, 0],
}


@pytest.mark.parametrize("as_proportion", [True, False])
def test_estimator_and_variance_estimator_are_unbiased_over_every_possible_sample(as_proportion):
    """All C(5,2)·C(4,3)·C(6,2) = 600 stratified samples, equally likely: the estimates average to the
    batch value, and the estimated variances average to the estimates' actual variance."""
    batch = {s: [min(v, 1) for v in values] if as_proportion else values for s, values in BATCH.items()}
    sizes = {("gpt", 2): 2, ("gpt", 0): 3, ("llama", 1): 2}
    keyed = {s: {f"{s[0]}{s[1]}-{i}": v for i, v in enumerate(values)} for s, values in batch.items()}
    estimates, variances = [], []
    for picks in itertools.product(*(itertools.combinations(keyed[s], sizes[s]) for s in batch)):
        sample = design({s: (len(batch[s]), list(keys)) for s, keys in zip(batch, picks, strict=True)})
        values = {key: keyed[s][key] for s, keys in zip(batch, picks, strict=True) for key in keys}
        estimate = (stratified_proportion if as_proportion else stratified_mean)(sample, values)
        estimates.append(estimate.value)
        variances.append(estimate.standard_error**2)
    assert len(estimates) == 600
    all_values = [v for values in batch.values() for v in values]
    assert np.mean(estimates) == pytest.approx(np.mean(all_values), abs=TOL)
    assert np.mean(variances) == pytest.approx(np.var(estimates), abs=TOL)
    assert np.var(estimates) > 0.001


def test_the_interval_covers_the_batch_rate_about_as_often_as_stated():
    """400 audits of 150 from a batch of 3000 (rates 0.2–0.9 by stratum): coverage near 95 %, and the
    mean estimated variance near the estimates' variance."""
    rates = {("gpt", 2): 0.9, ("gpt", 1): 0.5, ("gpt", 0): 0.2, ("llama", 2): 0.7, ("llama", 0): 0.3}
    sizes = {("gpt", 2): 1200, ("gpt", 1): 500, ("gpt", 0): 100, ("llama", 2): 1100, ("llama", 0): 100}
    rng = np.random.default_rng(1)
    truth, units = {}, []
    for stratum, n in sizes.items():
        for i in range(n):
            key = f"{stratum[0]}:{stratum[1]}:{i}"
            truth[key] = bool(rng.random() < rates[stratum])
            units.append((key, stratum))
    batch_rate = np.mean(list(truth.values()))
    estimates, variances, covered = [], [], 0
    for seed in range(400):
        sample = stratified_sample(units, size=150, seed=seed)
        estimate = stratified_proportion(sample, {key: truth[key] for key in sample.keys})
        estimates.append(estimate.value)
        variances.append(estimate.standard_error**2)
        covered += estimate.ci_low <= batch_rate <= estimate.ci_high
    assert 0.92 <= covered / 400 <= 0.98
    assert np.mean(estimates) == pytest.approx(batch_rate, abs=0.005)
    assert np.mean(variances) == pytest.approx(np.var(estimates), rel=0.2)


def test_units_without_a_value_are_left_out_within_their_stratum():
    sample = design({("A", 2): (10, ["a1", "a2", "a3", "a4"]), ("B", 0): (5, ["b1", "b2", "b3"])})
    estimate = stratified_proportion(sample, {"a1": True, "a2": False, "a3": True, "b1": True, "b2": True})
    assert estimate.value == pytest.approx(10 / 15 * 2 / 3 + 5 / 15 * 1.0, abs=TOL)
    s_a = 3 * (2 / 3) * (1 / 3) / 2  # the three rated in A; B's two agree, so s_B² = 0
    assert estimate.standard_error == pytest.approx(math.sqrt((10 / 15) ** 2 * (1 - 3 / 10) * s_a / 3), abs=TOL)
    assert estimate.observed == 5


def test_a_stratum_without_any_value_leaves_the_estimate_undefined():
    sample = design({("A", 2): (10, ["a1", "a2"]), ("B", 0): (5, ["b1", "b2"])})
    estimate = stratified_proportion(sample, {"a1": True, "a2": False})
    assert (estimate.value, estimate.standard_error, estimate.ci_low, estimate.ci_high) == (None, None, None, None)
    assert estimate.reason == (
        "1 stratum/strata have no value, e.g. ('B', 0) (5 units of the batch); the batch estimate needs every stratum"
    )


def test_a_stratum_with_one_value_gives_an_estimate_without_standard_error():
    sample = design({("A", 2): (10, ["a1", "a2"]), ("B", 0): (5, ["b1", "b2"])})
    estimate = stratified_proportion(sample, {"a1": True, "a2": False, "b1": True})
    assert estimate.value == pytest.approx(10 / 15 * 0.5 + 5 / 15, abs=TOL)
    assert (estimate.standard_error, estimate.ci_low, estimate.ci_high) == (None, None, None)
    assert "('B', 0) (1 of 5 units), so their variance and the standard error cannot be estimated" in estimate.reason


def test_a_stratum_known_whole_adds_no_variance_and_the_interval_stays_in_zero_one():
    sample = design({("A", 2): (1, ["a1"]), ("B", 0): (2, ["b1", "b2"])})
    estimate = stratified_proportion(sample, {"a1": True, "b1": True, "b2": True})
    assert (estimate.value, estimate.standard_error, estimate.ci_low, estimate.ci_high) == (1.0, 0.0, 1.0, 1.0)
    sample = design({("A", 2): (40, ["a1", "a2", "a3"])})
    estimate = stratified_proportion(sample, {"a1": True, "a2": True, "a3": False})
    assert estimate.ci_high == 1.0
    assert estimate.ci_low > 0
    assert stratified_mean(sample, {"a1": 2, "a2": 2, "a3": 1}).ci_high > 2  # a mean is not clipped


@pytest.mark.parametrize(
    ("values", "confidence", "message"),
    [
        ({"zz": True}, 0.95, r"1 key\(s\) are not in the sample, e\.g\. \['zz'\]"),
        ({"a1": 2}, 0.95, r"outcomes\['a1'\] must be True/False or 1/0; got 2"),
        ({"a1": None}, 0.95, r"outcomes\['a1'\] must be True/False or 1/0; got None"),
        ({"a1": True}, 1.0, r"confidence must be between 0 and 1 \(e\.g\. 0\.95\); got 1\.0"),
        ({"a1": True}, 0, r"confidence must be between 0 and 1"),
    ],
)
def test_stratified_proportion_refuses_bad_input(values, confidence, message):
    sample = design({("A", 2): (10, ["a1", "a2"])})
    with pytest.raises(ValueError, match=message):
        stratified_proportion(sample, values, confidence=confidence)


def test_stratified_mean_refuses_a_value_that_is_not_a_finite_number():
    sample = design({("A", 2): (10, ["a1", "a2"])})
    with pytest.raises(ValueError, match=r"values\['a2'\] must be a finite number; got nan"):
        stratified_mean(sample, {"a1": 1, "a2": float("nan")})
