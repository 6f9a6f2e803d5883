"""The trial-level cluster bootstrap beside the pooled z-tests: against a plain loop, reproducible per model config,
its edge cases, and a simulation of clustered data where it covers and the z-test does not."""

import json
import math
import zlib

import numpy as np
import pytest
from statsmodels.stats.proportion import confint_proportions_2indep

from layer3.statistics import bootstrap, compare_model_configs, model_samples
from layer3.statistics.bootstrap import (
    DEFAULT_REPLICATES,
    BootstrapDifference,
    bootstrap_differences,
    design_effect,
    replicate_rates,
    trials_with_items,
)
from layer3.statistics.samples import PROPORTION_METRICS
from tests.layer3.statistics.trials import error_trial, layer3_trial

TOL = 1e-9
INTERVAL_KEYS = ["difference", "zCi", "clusterBootstrapCi", "clusterBootstrapReplicates", "designEffect"]


def reference_rates(samples, label, replicates, seed):
    """One replicate at a time: N trials drawn with replacement, each metric's pooled rate Σx/Σn (NaN if Σn = 0)."""
    rng = np.random.default_rng([seed, zlib.crc32(label.encode("utf-8"))])
    n_trials = len(samples.trial_counts["GV_UR"][0])
    rates = np.full((replicates, len(PROPORTION_METRICS)), np.nan)
    if n_trials == 0:
        return rates
    for replicate in range(replicates):
        drawn = rng.integers(0, n_trials, size=n_trials)
        for column, metric in enumerate(PROPORTION_METRICS):
            successes, n = samples.trial_counts[metric]
            total = int(n[drawn].sum())
            if total:
                rates[replicate, column] = int(successes[drawn].sum()) / total
    return rates


def random_trials(rng, n_trials, error_rate=0.05):
    trials = []
    for _ in range(n_trials):
        if rng.random() < error_rate:
            trials.append(error_trial())
            continue
        gv = rng.choice(3, size=int(rng.integers(0, 6))).tolist()
        types = rng.choice(["flow", "meta", "sync", "unknown"], size=int(rng.integers(0, 8))).tolist()
        sc = rng.choice(3, size=int(rng.integers(0, 5))).tolist()
        trials.append(layer3_trial(gv=gv, types=types, sc=sc, graph=(3, 2)))
    return trials


def rows_of(result):
    return {(row["metric"], row["modelA"], row["modelB"]): row for row in result["layer3Comparisons"]}


@pytest.mark.parametrize(("n_trials", "replicates", "seed"), [(1, 5, 0), (7, 40, 3), (150, 64, 11), (700, 300, 2)])
def test_replicate_rates_equal_a_plain_loop(n_trials, replicates, seed):
    samples = model_samples(random_trials(np.random.default_rng(n_trials), n_trials))
    got = replicate_rates(samples, "model-A", replicates=replicates, seed=seed)
    assert got.shape == (replicates, 5) and got.dtype == np.float64
    np.testing.assert_array_equal(got, reference_rates(samples, "model-A", replicates, seed))


@pytest.mark.parametrize("chunk_draws", [1, 300, 1000])
def test_the_chunk_size_does_not_change_the_replicates(monkeypatch, chunk_draws):
    samples = model_samples(random_trials(np.random.default_rng(4), 120))
    expected = replicate_rates(samples, "A", replicates=90, seed=6)
    monkeypatch.setattr(bootstrap, "_CHUNK_DRAWS", chunk_draws)  # 1, 2 or 8 replicates a chunk (the last shorter)
    np.testing.assert_array_equal(replicate_rates(samples, "A", replicates=90, seed=6), expected)


def test_sums_too_large_for_float32_are_made_in_float64():
    # 100 trials of up to 300,000 bindings: sums reach 2^24, where float32 would no longer be exact.
    rng = np.random.default_rng(2)
    big = []
    for _ in range(100):
        total = int(rng.integers(250_000, 300_000))
        flow = int(rng.integers(0, total))
        big.append(
            {"w2wrTypeDistribution": {"totalBindings": total, "distribution": {"flow": flow, "meta": 1, "sync": 0}}}
        )
    samples = model_samples(big)
    np.testing.assert_array_equal(
        replicate_rates(samples, "Y", replicates=50, seed=1), reference_rates(samples, "Y", 50, 1)
    )


def test_no_trials_give_no_rates():
    samples = model_samples([error_trial()])
    rates = replicate_rates(samples, "A", replicates=4, seed=0)
    assert rates.shape == (4, 5) and np.isnan(rates).all()


def test_bootstrap_differences_equal_numpys_nan_quantile_and_std():
    rng = np.random.default_rng(8)
    a, b = rng.random((500, 5)), rng.random((500, 5))
    a[rng.random((500, 5)) < 0.1] = np.nan
    b[:, 4] = np.nan  # nothing kept for the last metric
    results = bootstrap_differences(a, b)
    d = a - b
    for column, result in enumerate(results[:4]):
        low, high = np.nanquantile(d[:, column], [0.025, 0.975])
        assert result.low == pytest.approx(low, abs=TOL, rel=0) and result.high == pytest.approx(high, abs=TOL, rel=0)
        assert result.standard_error == pytest.approx(np.nanstd(d[:, column], ddof=1), abs=TOL, rel=0)
        assert result.replicates == int((~np.isnan(d[:, column])).sum()) < 500
        assert all(type(value) is float for value in (result.low, result.high, result.standard_error))
    assert results[4] == BootstrapDifference(None, None, None, 0)
    one = bootstrap_differences(np.array([[0.5] * 5]), np.array([[0.25] * 5]))[0]
    assert one == BootstrapDifference(0.25, 0.25, None, 1)  # one replicate: no standard error


def test_design_effect():
    assert design_effect(0.2, 0.1) == pytest.approx(4.0, abs=1e-12)
    assert design_effect(None, 0.1) is None
    assert design_effect(0.0, 0.0) is None
    assert design_effect(0.0, 0.1) == 0.0


@pytest.fixture(scope="module")
def three_models():
    rng = np.random.default_rng(26)
    return {label: random_trials(rng, 60) for label in ("A", "B", "C")}


def test_rows_equal_the_references(three_models):
    result = compare_model_configs(three_models, bootstrap_replicates=400, bootstrap_seed=9)
    samples = {label: model_samples(trials) for label, trials in three_models.items()}
    rates = {label: reference_rates(s, label, 400, 9) for label, s in samples.items()}
    assert result["summary"]["bootstrap"] == {"replicates": 400, "seed": 9, "level": 0.95, "unit": "trial"}
    for row in result["layer3Comparisons"]:
        if row["metric"] not in PROPORTION_METRICS:
            assert all(row[key] is None for key in INTERVAL_KEYS)
            continue
        column = PROPORTION_METRICS.index(row["metric"])
        count_a, count_b = samples[row["modelA"]].counts[row["metric"]], samples[row["modelB"]].counts[row["metric"]]
        low, high = confint_proportions_2indep(
            count_a.successes, count_a.n, count_b.successes, count_b.n, method="wald"
        )
        assert row["zCi"] == pytest.approx([float(low), float(high)], abs=TOL, rel=0)
        assert row["difference"] == pytest.approx(count_a.proportion - count_b.proportion, abs=TOL, rel=0)
        d = rates[row["modelA"]][:, column] - rates[row["modelB"]][:, column]
        assert row["clusterBootstrapCi"] == pytest.approx(np.nanquantile(d, [0.025, 0.975]).tolist(), abs=TOL, rel=0)
        assert row["clusterBootstrapReplicates"] == int((~np.isnan(d)).sum())
        p_a, p_b = count_a.proportion, count_b.proportion
        wald_se = math.sqrt(p_a * (1 - p_a) / count_a.n + p_b * (1 - p_b) / count_b.n)
        assert row["designEffect"] == pytest.approx((np.nanstd(d, ddof=1) / wald_se) ** 2, abs=TOL, rel=0)


def test_a_models_replicates_depend_only_on_the_seed_its_label_and_its_data(three_models):
    pair = {"A": three_models["A"], "B": three_models["B"]}
    alone = rows_of(compare_model_configs(pair, bootstrap_replicates=300))
    reordered = {"C": three_models["C"], "B": three_models["B"], "A": three_models["A"]}
    among_three = rows_of(compare_model_configs(reordered, bootstrap_replicates=300))
    again = rows_of(compare_model_configs(pair, bootstrap_replicates=300))
    other_seed = rows_of(compare_model_configs(pair, bootstrap_replicates=300, bootstrap_seed=1))
    for metric in PROPORTION_METRICS:
        key = (metric, "A", "B")
        assert (
            alone[key]["clusterBootstrapCi"]
            == among_three[key]["clusterBootstrapCi"]
            == again[key]["clusterBootstrapCi"]
        )
        assert alone[key]["clusterBootstrapCi"] != other_seed[key]["clusterBootstrapCi"]
    samples = model_samples(three_models["A"])
    same_data = replicate_rates(samples, "A", replicates=50, seed=0)
    assert not np.array_equal(same_data, replicate_rates(samples, "A2", replicates=50, seed=0))  # the label counts
    assert np.array_equal(same_data, replicate_rates(model_samples(three_models["A"]), "A", replicates=50, seed=0))


def test_an_empty_group_has_no_difference_and_no_intervals():
    rows = rows_of(
        compare_model_configs({"A": [layer3_trial(types=["flow", "meta"])] * 3, "B": [layer3_trial(gv=[2])] * 3})
    )
    row = rows["W2WR_FR", "A", "B"]
    assert row["reasonCode"] == "empty_group"
    assert all(row[key] is None for key in INTERVAL_KEYS)


def test_all_successes_in_both_give_a_zero_difference_and_no_design_effect():
    a = [layer3_trial(types=["flow"] * n) for n in (1, 2, 3)]
    b = [layer3_trial(types=["flow"] * n) for n in (4, 1)]
    row = rows_of(compare_model_configs({"A": a, "B": b}))["W2WR_FR", "A", "B"]
    assert row["reasonCode"] == "pooled_proportion_one" and row["pValue"] is None
    assert row["difference"] == 0.0 and row["zCi"] == [0.0, 0.0]
    assert row["clusterBootstrapCi"] == [0.0, 0.0] and row["clusterBootstrapReplicates"] == DEFAULT_REPLICATES
    assert row["designEffect"] is None  # both standard errors are 0


def test_all_successes_in_one_model_still_give_intervals():
    a = [layer3_trial(types=["flow"] * n) for n in (1, 2, 3)]
    b = [layer3_trial(types=["flow", "meta"][: 1 + n % 2] * n) for n in range(1, 9)]
    row = rows_of(compare_model_configs({"A": a, "B": b}))["W2WR_FR", "A", "B"]
    assert row["pValue"] is not None and row["difference"] > 0
    low, high = row["clusterBootstrapCi"]
    assert low <= row["difference"] <= high and row["designEffect"] > 0


def test_one_trial_with_items_gives_the_wald_interval_but_no_bootstrap():
    one = [layer3_trial(types=["flow", "meta", "meta"]), layer3_trial(graph=(2, 1))]  # one trial with bindings
    many = [layer3_trial(types=["flow", "meta"][: 1 + n % 2] * n) for n in range(1, 9)]
    samples = model_samples(one)
    assert trials_with_items(samples, "W2WR_FR") == 1
    row = rows_of(compare_model_configs({"A": one, "B": many}))["W2WR_FR", "A", "B"]
    assert row["difference"] is not None and row["zCi"] is not None
    assert row["clusterBootstrapCi"] is row["clusterBootstrapReplicates"] is row["designEffect"] is None


def test_replicates_without_items_are_dropped():
    # Model A: 2 of its 10 trials have bindings, so about 0.8^10 ≈ 11% of its replicates draw none of them.
    a = [layer3_trial(types=["flow", "meta"]), layer3_trial(types=["meta", "meta", "flow"])]
    a += [layer3_trial(graph=(2, 1)) for _ in range(8)]
    b = [layer3_trial(types=["flow", "meta"][: 1 + n % 2] * n) for n in range(1, 9)]
    row = rows_of(compare_model_configs({"A": a, "B": b}))["W2WR_FR", "A", "B"]
    rates = replicate_rates(model_samples(a), "A", replicates=DEFAULT_REPLICATES, seed=0)
    dropped = int(np.isnan(rates[:, PROPORTION_METRICS.index("W2WR_FR")]).sum())
    assert 0.05 * DEFAULT_REPLICATES < dropped < 0.18 * DEFAULT_REPLICATES
    assert row["clusterBootstrapReplicates"] == DEFAULT_REPLICATES - dropped
    low, high = row["clusterBootstrapCi"]
    assert low < high


def test_bad_bootstrap_arguments_are_refused():
    for replicates in (0, -1, 2.5, True, "2000"):
        with pytest.raises(ValueError, match=r"bootstrap replicates must be a whole number of at least 1; got "):
            compare_model_configs({"A": [], "B": []}, bootstrap_replicates=replicates)
    for seed in (-1, 1.5, False, None):
        with pytest.raises(ValueError, match=r"bootstrap seed must be a whole number of at least 0; got "):
            compare_model_configs({"A": [], "B": []}, bootstrap_seed=seed)


def test_the_output_stays_json_ready(three_models):
    result = compare_model_configs(three_models, bootstrap_replicates=200)
    assert json.loads(json.dumps(result, allow_nan=False)) == result


def beta_binomial_model(rng, n_trials, rate, correlation):
    """Trials whose items share a trial-level rate drawn from a beta distribution with mean ``rate`` and
    intra-trial correlation ``correlation`` (0: independent items); 3 to 12 judged items per trial."""
    trials = []
    for _ in range(n_trials):
        items = int(rng.integers(3, 13))
        if correlation:
            spread = 1 / correlation - 1
            p = rng.beta(rate * spread, (1 - rate) * spread)
        else:
            p = rate
        useful = int(rng.binomial(items, p))
        trials.append(layer3_trial(gv=[2] * useful + [0] * (items - useful)))
    return trials


def simulate(correlation, datasets=300, n_trials=40, replicates=500):
    """Datasets of two models with the same true GV useful rate 0.3: how often each 95% interval covers the
    true difference 0, how often the pooled z-test rejects at 0.05, and the median design effect."""
    rng = np.random.default_rng(20026)
    boot_covers = wald_covers = rejections = 0
    effects = []
    for dataset in range(datasets):
        a = beta_binomial_model(rng, n_trials, 0.3, correlation)
        b = beta_binomial_model(rng, n_trials, 0.3, correlation)
        result = compare_model_configs({"A": a, "B": b}, bootstrap_replicates=replicates, bootstrap_seed=dataset)
        row = next(row for row in result["layer3Comparisons"] if row["metric"] == "GV_UR")
        low, high = row["clusterBootstrapCi"]
        boot_covers += low <= 0 <= high
        low, high = row["zCi"]
        wald_covers += low <= 0 <= high
        rejections += row["pValue"] < 0.05
        effects.append(row["designEffect"])
    return boot_covers / datasets, wald_covers / datasets, rejections / datasets, float(np.median(effects))


def test_with_clustered_items_the_bootstrap_covers_and_the_pooled_z_test_does_not():
    # Intra-trial correlation 0.3 with 3-12 items a trial: a design effect near 1 + (7.5 - 1)·0.3 ≈ 3.
    boot_coverage, wald_coverage, rejection_rate, effect = simulate(correlation=0.3)
    assert 0.90 <= boot_coverage <= 0.98
    assert wald_coverage < 0.85
    assert rejection_rate > 0.15  # the nominal 5%, several times over
    assert 2.0 < effect < 4.5


def test_with_independent_items_both_cover_and_the_design_effect_is_about_1():
    boot_coverage, wald_coverage, rejection_rate, effect = simulate(correlation=0.0)
    assert 0.90 <= boot_coverage <= 0.98
    assert 0.90 <= wald_coverage <= 0.98
    assert rejection_rate < 0.10
    assert 0.8 < effect < 1.25
