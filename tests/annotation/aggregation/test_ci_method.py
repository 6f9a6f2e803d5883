"""The kappa CI methods (percentile and BCa bootstrap over items) and the simulated coverage of the interval.

Pure tests: the modules under test import no Django.
"""

import numpy as np
import pytest
import scipy.stats

from annotation.aggregation.agreement import axis_kappa, bca_interval, bootstrap_kappa_ci, pairwise_quadratic_kappa
from annotation.aggregation.agreement import coverage as sim
from annotation.aggregation.agreement.bootstrap import KappaBootstrap, percentile_interval
from annotation.aggregation.reports import kappa_report
from annotation.io.dataset import RatingSet

TOL = 1e-9
FIVE = (1, 2, 3, 4, 5)


def _three_of_four(n: int = 40, seed: int = 3) -> np.ndarray:
    """n items rated 1..5 by three of four raters each, with real agreement."""
    rng = np.random.default_rng(seed)
    trait = rng.normal(size=n)
    ratings = np.clip(np.round(2.5 + 1.2 * trait[:, None] + rng.normal(scale=0.8, size=(n, 4))), 1, 5).astype(int)
    ratings[np.arange(n), rng.integers(4, size=n)] = 0
    return ratings


def _kappa_of_items(ratings: np.ndarray):
    def statistic(items, axis=-1):
        return axis_kappa(pairwise_quadratic_kappa(ratings[items.astype(int)]))[0]

    return statistic


# --- BCa -------------------------------------------------------------------------------------------------------


def test_bca_equals_scipy_bootstrap_bca_on_the_same_resamples():
    ratings = _three_of_four()
    n, n_boot = ratings.shape[0], 500
    statistic = _kappa_of_items(ratings)
    reference = scipy.stats.bootstrap(
        (np.arange(n),), statistic, vectorized=False, n_resamples=n_boot, method="BCa", rng=np.random.default_rng(7)
    ).confidence_interval
    # scipy draws its resamples as rng.integers(0, n, (n_resamples, n)): the same draws, our formulas
    resamples = np.random.default_rng(7).integers(0, n, (n_boot, n))
    values = np.array([statistic(items) for items in resamples])
    jackknife = KappaBootstrap(ratings, categories=FIVE, missing=0, min_common=2).jackknife()
    low, high, reason = bca_interval(statistic(np.arange(n)), values, jackknife, 0.95)
    assert reason is None
    assert abs(low - reference.low) < TOL and abs(high - reference.high) < TOL


def test_the_engine_jackknife_is_the_kappa_with_each_item_left_out():
    ratings = _three_of_four(30, seed=5)
    statistic = _kappa_of_items(ratings)
    loop = [statistic(np.delete(np.arange(30), i)) for i in range(30)]
    engine = KappaBootstrap(ratings, categories=FIVE, missing=0, min_common=2).jackknife()
    np.testing.assert_allclose(np.sort(engine), np.sort(loop), rtol=0, atol=TOL)


def test_bca_without_bias_or_skew_is_the_percentile_interval():
    values = np.arange(1001) / 1000  # the estimate 0.5 is the median: z0 = 0
    jackknife = np.array([-1.0, 0.0, 1.0])  # symmetric: acceleration 0
    low, high, reason = bca_interval(0.5, values, jackknife, 0.95)
    assert reason is None and (low, high) == pytest.approx((0.025, 0.975), abs=TOL)
    assert (low, high) == pytest.approx(percentile_interval(values, 0.95), abs=TOL)


def test_bca_moves_the_interval_from_the_same_replicates_as_the_percentile_one():
    ratings = _three_of_four(60, seed=8)
    percentile = bootstrap_kappa_ci(ratings, n_boot=400, seed=2)
    bca = bootstrap_kappa_ci(ratings, n_boot=400, seed=2, method="bca")
    assert percentile[2] is None and bca[2] is None
    assert bca[:2] != percentile[:2]
    prepared = KappaBootstrap(ratings, categories=FIVE, missing=0, min_common=2)
    values = prepared.replicates(400, 2)
    assert percentile[:2] == percentile_interval(values, 0.95)
    assert bca[:2] == bca_interval(prepared.point, values, prepared.jackknife(), 0.95)[:2]


def test_an_unknown_ci_method_is_refused():
    with pytest.raises(ValueError, match="method must be one of"):
        bootstrap_kappa_ci(_three_of_four(), method="basic")


# --- the stored report ----------------------------------------------------------------------------------------


def _rating_set(ratings: np.ndarray) -> RatingSet:
    n, r = ratings.shape
    return RatingSet(
        item_ids=[f"d{i}" for i in range(n)],
        rater_ids=[f"ann_{j}" for j in range(r)],
        scores={axis: ratings.astype(np.int8) for axis in ("social", "avoidant", "mechanical", "self")},
        confidence={axis: np.where(ratings > 0, 0.9, np.nan) for axis in ("social", "avoidant", "mechanical", "self")},
        seconds=np.full((n, r), np.nan),
        epoch=np.full((n, r), np.nan),
    )


def test_the_report_says_how_its_intervals_were_computed():
    ratings = _three_of_four(50, seed=4)
    percentile = kappa_report(_rating_set(ratings), n_boot=200, seed=1)
    bca = kappa_report(_rating_set(ratings), n_boot=200, seed=1, ci_method="bca")
    assert percentile["bootstrap"] == {
        "method": "percentile", "replicates": 200, "seed": 1, "level": 0.95, "resampled": "items",
    }  # fmt: skip
    assert bca["bootstrap"]["method"] == "bca"
    assert bca["axes"]["social"]["ci95"] != percentile["axes"]["social"]["ci95"]
    assert bca["axes"]["social"]["kappa"] == percentile["axes"]["social"]["kappa"]


# --- simulated coverage ---------------------------------------------------------------------------------------


def test_the_coverage_simulation_is_deterministic_with_its_seed():
    design = sim.Design(n_items=20, n_raters=4, raters_per_item=3, n_boot=50)
    first = sim.simulate_coverage(design, n_sets=30, seed=1)
    assert first == sim.simulate_coverage(design, n_sets=30, seed=1)
    other = sim.simulate_coverage(design, n_sets=30, seed=2)
    assert (other.true_kappa, other.mean_width) != (first.true_kappa, first.mean_width)


def test_simulated_ratings_follow_the_rater_design():
    ratings = sim.simulate_ratings(np.random.default_rng(0), 500, 5, 3)
    assert ratings.shape == (500, 5)
    assert ((ratings > 0).sum(axis=1) == 3).all()
    assert set(np.unique(ratings)) <= {0, 1, 2, 3, 4, 5}
    shares = np.bincount(ratings[ratings > 0], minlength=6)[1:] / (500 * 3)
    assert shares[0] > shares[4]  # skewed towards 1, as the sycophancy ratings are


def test_the_true_kappa_of_the_model_sits_between_the_minimum_and_the_target():
    assert 0.60 < sim.true_kappa(5, 3) < 0.75


def test_the_percentile_interval_covers_87_to_91_percent_at_80_items_with_3_of_5_raters():
    """The issue's figure, reproduced: 400 simulated batches of 80 items, 1,000 replicates each."""
    percentile = sim.simulate_coverage(sim.Design(n_items=80, n_raters=5, raters_per_item=3, n_boot=1000))
    assert percentile.n_sets == 400 and percentile.undefined == 0
    assert 0.87 <= percentile.rate <= 0.91
    assert percentile.too_low
    bca = sim.simulate_coverage(sim.Design(n_items=80, n_raters=5, raters_per_item=3, n_boot=1000, method="bca"))
    assert bca.true_kappa == percentile.true_kappa
    assert bca.rate > percentile.rate


def test_the_cache_key_names_everything_the_coverage_depends_on():
    design = sim.Design(n_items=80, n_raters=5, raters_per_item=3, n_boot=1000)
    keys = {
        design.key(),
        sim.Design(n_items=81, n_raters=5, raters_per_item=3, n_boot=1000).key(),
        sim.Design(n_items=80, n_raters=6, raters_per_item=3, n_boot=1000).key(),
        sim.Design(n_items=80, n_raters=5, raters_per_item=2, n_boot=1000).key(),
        sim.Design(n_items=80, n_raters=5, raters_per_item=3, n_boot=500).key(),
        sim.Design(n_items=80, n_raters=5, raters_per_item=3, n_boot=1000, method="bca").key(),
        sim.Design(n_items=80, n_raters=5, raters_per_item=3, n_boot=1000, level=0.9).key(),
        design.key(n_sets=100),
        design.key(seed=1),
    }
    assert len(keys) == 9 and all(sim.MODEL in key for key in keys)


def test_larger_batches_simulate_fewer_sets():
    assert sim.sets_for(80) == sim.N_SETS and sim.sets_for(400) == 200 and sim.sets_for(1500) == sim.MIN_SETS
