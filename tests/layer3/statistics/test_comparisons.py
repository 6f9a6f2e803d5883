"""compare_model_configs: every metric for every pair of model configs, against the reference libraries."""

import json
import math
from fractions import Fraction
from itertools import combinations

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.proportion import confint_proportions_2indep, proportions_ztest

from layer3.statistics import LAYER3_METRICS, REASON_CODES, compare_model_configs, model_samples
from layer3.statistics.bootstrap import DEFAULT_REPLICATES
from tests.layer3.statistics.reference import multipletests
from tests.layer3.statistics.trials import error_trial, judge_label, layer3_trial

TOL = 1e-9
MANN_WHITNEY = {"GV_CR", "W2WR_SC", "WS_ENT", "GC_NC", "GC_EC", "GC_DEN"}
JUDGES = {"GV_CR": "gv", "GV_UR": "gv", "W2WR_SC": "w2wr", "W2WR_CR": "w2wr"}
INTERVAL_KEYS = ["difference", "zCi", "clusterBootstrapCi", "clusterBootstrapReplicates", "designEffect"]
RESULT_KEYS = [
    "metric",
    "modelA",
    "modelB",
    "test",
    "statistic",
    "pValue",
    "adjustedPValue",
    "significant",
    "mark",
    "effectSize",
    "effectSizeType",
    "effectMagnitude",
    "nA",
    "nB",
    "valueA",
    "valueB",
    "reason",
    "reasonCode",
    "reasonParams",
    "judgeA",
    "judgeB",
    "difference",
    "zCi",
    "clusterBootstrapCi",
    "clusterBootstrapReplicates",
    "designEffect",
]
SUMMARY_KEYS = [
    "totalTests",
    "performedTests",
    "significantCount",
    "correction",
    "alpha",
    "adjustedAlpha",
    "comparisons",
    "modelConfigs",
    "effectSizeThresholds",
    "family",
    "familySize",
    "bootstrap",
]
WIDGETS = ["brainstorm_cards", "emotion_palette", "priority_matrix", "timeline", "matrix", "card_sort"]


def random_model(rng, strength, n_trials=40):
    """Trials of one model config whose metrics grow with ``strength``, and the samples they were made from."""
    trials, values, counts = [], {m: [] for m in MANN_WHITNEY}, {}

    def add(metric, successes, n):
        old = counts.get(metric, (0, 0))
        counts[metric] = (old[0] + successes, old[1] + n)

    score_p = np.array([3.0, 2.0, 1.0 + strength]) / (6.0 + strength)
    type_p = np.array([1.0 + strength, 1.0, 1.0 + strength / 2, 0.5]) / (3.5 + 1.5 * strength)
    for _ in range(n_trials):
        if rng.random() < 0.08:
            trials.append(error_trial())
            continue
        gv = rng.choice(3, size=int(rng.integers(0, 7)), p=score_p).tolist()
        types = rng.choice(["flow", "meta", "sync", "unknown"], size=int(rng.integers(0, 9)), p=type_p).tolist()
        sc = rng.choice(3, size=int(rng.integers(0, 6)), p=score_p[::-1]).tolist()
        widgets = rng.choice(WIDGETS[: 2 + strength], size=int(rng.integers(1, 8))).tolist()
        nodes = int(rng.integers(1, 4 + 2 * strength))
        graph = (nodes, int(rng.integers(0, nodes * 2)))
        trial = layer3_trial(gv=gv, types=types, sc=sc, widgets=widgets, graph=graph)
        trials.append(trial)

        add("GV_UR", gv.count(2), len(gv))
        if gv:
            values["GV_CR"].append(sum(gv) / len(gv))
        for metric, kind in (("W2WR_FR", "flow"), ("W2WR_MR", "meta"), ("W2WR_SYR", "sync")):
            add(metric, types.count(kind), len(types))
        add("W2WR_CR", sc.count(2), len(sc))
        if sc:
            values["W2WR_SC"].append(sum(sc) / len(sc))
        values["WS_ENT"].append(trial["widgetDiversity"]["entropy"])
        values["GC_NC"].append(graph[0])
        values["GC_EC"].append(graph[1])
        values["GC_DEN"].append(trial["graphComplexity"]["density"])
    return trials, values, counts


def reference_rows(data, method, alpha=0.05):
    """Each (metric, pair) with scipy / statsmodels, corrected by multipletests over all 110."""
    rows = []
    for metric in LAYER3_METRICS:
        for a, b in combinations(sorted(data), 2):
            if metric in MANN_WHITNEY:
                x, y = data[a][1][metric], data[b][1][metric]
                test = stats.mannwhitneyu(x, y, alternative="two-sided")
                wins = sum(1 for u in x for v in y if u > v) - sum(1 for u in x for v in y if u < v)
                effect = float(Fraction(wins, len(x) * len(y)))
                rows.append((metric, a, b, test.statistic, test.pvalue, effect, len(x), len(y), np.mean(x), np.mean(y)))
            else:
                (x_a, n_a), (x_b, n_b) = data[a][2][metric], data[b][2][metric]
                z, p = proportions_ztest([x_a, x_b], [n_a, n_b])
                effect = 2 * math.asin(math.sqrt(x_a / n_a)) - 2 * math.asin(math.sqrt(x_b / n_b))
                rows.append((metric, a, b, z, p, effect, n_a, n_b, x_a / n_a, x_b / n_b))
    reject, adjusted, _, _ = multipletests([row[4] for row in rows], alpha=alpha, method=method)
    return rows, adjusted, reject


@pytest.fixture(scope="module")
def five_models():
    rng = np.random.default_rng(20020)
    return {label: random_model(rng, strength) for strength, label in enumerate("EDCBA")}


@pytest.mark.parametrize("method", ["bonferroni", "holm"])
def test_five_models_times_eleven_metrics_equal_the_references(five_models, method):
    result = compare_model_configs({label: trials for label, (trials, _, _) in five_models.items()}, correction=method)
    rows, adjusted, _ = reference_rows(five_models, method)
    comparisons = result["layer3Comparisons"]
    assert len(comparisons) == len(rows) == 110

    for got, (metric, a, b, statistic, p, effect, n_a, n_b, value_a, value_b), adj in zip(
        comparisons, rows, adjusted, strict=True
    ):
        assert list(got) == RESULT_KEYS
        assert (got["metric"], got["modelA"], got["modelB"]) == (metric, a, b)
        assert got["test"] == ("mann_whitney_u" if metric in MANN_WHITNEY else "two_proportion_z")
        assert got["effectSizeType"] == ("rank_biserial" if metric in MANN_WHITNEY else "cohens_h")
        assert got["reason"] is got["reasonCode"] is got["reasonParams"] is None
        judge = judge_label(block=JUDGES[metric]) if metric in JUDGES else None
        assert got["judgeA"] == got["judgeB"] == judge
        if metric in MANN_WHITNEY:
            assert all(got[key] is None for key in INTERVAL_KEYS)
        else:
            low, high = confint_proportions_2indep(n_a * value_a, n_a, n_b * value_b, n_b, method="wald")
            assert got["difference"] == pytest.approx(value_a - value_b, abs=TOL, rel=0)
            assert got["zCi"] == pytest.approx([float(low), float(high)], abs=TOL, rel=0)
            boot_low, boot_high = got["clusterBootstrapCi"]
            assert boot_low < got["difference"] < boot_high
            assert got["clusterBootstrapReplicates"] == DEFAULT_REPLICATES
            assert 0.2 < got["designEffect"] < 5
        assert got["statistic"] == pytest.approx(float(statistic), abs=TOL, rel=0)
        assert got["pValue"] == pytest.approx(float(p), abs=TOL, rel=0)
        assert got["adjustedPValue"] == pytest.approx(float(adj), abs=TOL, rel=0)
        assert got["effectSize"] == pytest.approx(effect, abs=TOL, rel=0)
        assert (got["nA"], got["nB"]) == (n_a, n_b)
        assert got["valueA"] == pytest.approx(float(value_a), abs=TOL, rel=0)
        assert got["valueB"] == pytest.approx(float(value_b), abs=TOL, rel=0)
        assert got["significant"] is bool(adj < 0.05)
        expected_mark = "***" if adj < 0.001 else "**" if adj < 0.01 else "*" if adj < 0.05 else ""
        assert got["mark"] == expected_mark

    summary = result["summary"]
    assert list(summary) == SUMMARY_KEYS
    assert summary["totalTests"] == summary["performedTests"] == summary["comparisons"] == 110
    assert summary["family"] == "seed" and summary["familySize"] == 110
    assert summary["adjustedAlpha"] == 0.05 / 110
    assert summary["bootstrap"] == {"replicates": DEFAULT_REPLICATES, "seed": 0, "level": 0.95, "unit": "trial"}
    assert summary["correction"] == method
    assert summary["alpha"] == 0.05
    assert summary["modelConfigs"] == ["A", "B", "C", "D", "E"]
    assert summary["effectSizeThresholds"] == {"rank_biserial": [0.1, 0.3, 0.5], "cohens_h": [0.2, 0.5, 0.8]}
    assert summary["significantCount"] == sum(1 for adj in adjusted if adj < 0.05)
    assert 0 < summary["significantCount"] < 110  # the data give the test both outcomes to check
    assert {row["mark"] for row in comparisons} == {"***", "**", "*", ""}


def test_bonferroni_significance_is_p_below_alpha_over_110(five_models):
    result = compare_model_configs({label: trials for label, (trials, _, _) in five_models.items()})
    for row in result["layer3Comparisons"]:
        assert row["significant"] is (row["pValue"] * 110 < 0.05)


def test_output_is_metric_major_with_sorted_pairs(five_models):
    shuffled = {label: five_models[label][0] for label in ["C", "A", "E", "B", "D"]}
    comparisons = compare_model_configs(shuffled)["layer3Comparisons"]
    pairs = list(combinations("ABCDE", 2))
    expected = [(metric, a, b) for metric in LAYER3_METRICS for a, b in pairs]
    assert [(row["metric"], row["modelA"], row["modelB"]) for row in comparisons] == expected


def test_swapping_the_data_of_two_models_flips_the_signs():
    larger = [layer3_trial(graph=(n, n), types=["flow"] * n + ["meta"]) for n in range(5, 15)]
    smaller = [layer3_trial(graph=(n, 0), types=["meta"] * n + ["flow"]) for n in range(1, 11)]
    forward = compare_model_configs({"A": larger, "B": smaller})["layer3Comparisons"]
    backward = compare_model_configs({"A": smaller, "B": larger})["layer3Comparisons"]
    for one, other in zip(forward, backward, strict=True):
        if one["reason"] is None:
            assert one["effectSize"] == pytest.approx(-other["effectSize"], abs=1e-12)
            assert one["pValue"] == pytest.approx(other["pValue"], abs=1e-12)
    by_metric = {row["metric"]: row for row in forward}
    assert by_metric["GC_NC"]["effectSize"] > 0 and by_metric["W2WR_FR"]["statistic"] > 0


def mixed_models():
    judged = [
        layer3_trial(gv=[2, 1], types=["flow", "sync"], sc=[2], widgets=["a", "b"], graph=(2, 1)),
        layer3_trial(gv=[0, 0, 1], types=["flow"], sc=[1, 0], widgets=["a"], graph=(3, 3)),
        error_trial(),
    ]
    unjudged = [layer3_trial(types=["flow"], widgets=["a", "b", "c"], graph=(4, 2)), error_trial()]
    no_gv = [layer3_trial(gv=[], types=["meta"], widgets=["a"], graph=(2, 0))]
    return {"A": judged, "B": unjudged, "C": no_gv, "D": [error_trial()]}


def test_undefined_tests_are_null_with_a_reason_and_json_encodes_without_nan():
    result = compare_model_configs(mixed_models())
    text = json.dumps(result, allow_nan=False)
    assert json.loads(text) == result

    undefined = [row for row in result["layer3Comparisons"] if row["pValue"] is None]
    assert undefined and all(row["reason"] for row in undefined)
    assert all(row["reasonCode"] in REASON_CODES and isinstance(row["reasonParams"], dict) for row in undefined)
    assert {row["reasonCode"] for row in undefined} == {"empty_group", "pooled_proportion_zero"}
    for row in undefined:
        assert row["statistic"] is row["adjustedPValue"] is row["effectSize"] is row["effectMagnitude"] is None
        assert row["significant"] is False and row["mark"] == ""
    rows = {(row["metric"], row["modelA"], row["modelB"]): row for row in result["layer3Comparisons"]}
    assert rows["GV_CR", "A", "B"]["reason"] == "no trials with GV_CR in model B"
    assert rows["GV_CR", "A", "B"]["reasonCode"] == "empty_group"
    assert rows["GV_CR", "A", "B"]["reasonParams"] == {"models": ["B"], "metric": "GV_CR", "unit": "trials"}
    assert rows["GV_CR", "A", "B"]["valueA"] == pytest.approx((1.5 + 1 / 3) / 2)
    assert rows["GV_CR", "A", "B"]["valueB"] is None
    assert rows["GV_UR", "B", "C"]["reason"] == "no evaluated generatedValue items for GV_UR in models B and C"
    assert rows["GV_UR", "B", "C"]["reasonParams"] == {"models": ["B", "C"], "metric": "GV_UR", "unit": "judged_items"}
    assert rows["W2WR_MR", "A", "B"]["reason"].startswith("pooled proportion is 0")  # 0 of 3 and 0 of 1
    assert rows["W2WR_MR", "A", "B"]["reasonCode"] == "pooled_proportion_zero"
    assert rows["W2WR_MR", "A", "B"]["reasonParams"] == {"n": 4}
    assert rows["W2WR_FR", "B", "C"]["reason"] is None  # 1 of 1 against 0 of 1
    assert rows["W2WR_SC", "A", "D"]["reason"] == "no trials with W2WR_SC in model D"


def test_the_seeds_family_counts_every_metric_and_pair_performed_or_not():
    result = compare_model_configs(mixed_models())
    performed = [row for row in result["layer3Comparisons"] if row["pValue"] is not None]
    summary = result["summary"]
    assert summary["totalTests"] == summary["familySize"] == summary["comparisons"] == 11 * 6
    assert summary["performedTests"] == len(performed) < 11 * 6
    assert summary["adjustedAlpha"] == 0.05 / 66
    for row in performed:
        assert row["adjustedPValue"] == pytest.approx(min(1.0, row["pValue"] * 66), abs=1e-15)


def test_the_tests_run_family_counts_only_performed_tests():
    result = compare_model_configs(mixed_models(), family="tests-run")
    performed = [row for row in result["layer3Comparisons"] if row["pValue"] is not None]
    summary = result["summary"]
    assert summary["totalTests"] == 11 * 6
    assert summary["performedTests"] == summary["comparisons"] == summary["familySize"] == len(performed) < 11 * 6
    assert summary["family"] == "tests-run"
    assert summary["adjustedAlpha"] == 0.05 / len(performed)
    for row in performed:
        assert row["adjustedPValue"] == pytest.approx(min(1.0, row["pValue"] * len(performed)), abs=1e-15)


def plain(value):
    """True when ``value`` is made only of dicts, lists, str, int, float, bool and None (no numpy types)."""
    if isinstance(value, dict):
        return all(type(key) is str and plain(item) for key, item in value.items())
    if isinstance(value, list):
        return all(plain(item) for item in value)
    return value is None or type(value) in (str, int, float, bool)


@pytest.mark.parametrize("method", ["bonferroni", "holm"])
def test_all_numbers_are_plain_python(five_models, method):
    assert plain(compare_model_configs(mixed_models(), correction=method))
    assert plain(compare_model_configs({k: v[0] for k, v in five_models.items()}, correction=method))


@pytest.mark.parametrize("trials_by_model", [{}, {"A": [layer3_trial(graph=(3, 2))]}])
def test_fewer_than_two_model_configs_compare_nothing(trials_by_model):
    result = compare_model_configs(trials_by_model)
    assert result["layer3Comparisons"] == []
    summary = result["summary"]
    assert (summary["totalTests"], summary["performedTests"], summary["comparisons"]) == (0, 0, 0)
    assert summary["adjustedAlpha"] is None and summary["significantCount"] == 0
    assert (summary["family"], summary["familySize"]) == ("seed", 0)
    assert summary["modelConfigs"] == sorted(trials_by_model)
    json.dumps(result, allow_nan=False)


def test_holm_summary_and_rejections_equal_statsmodels(five_models):
    result = compare_model_configs({k: v[0] for k, v in five_models.items()}, correction="holm", alpha=0.01)
    _, adjusted, reject = reference_rows(five_models, "holm", alpha=0.01)
    assert result["summary"]["adjustedAlpha"] == 0.01 / 110
    assert [row["significant"] for row in result["layer3Comparisons"]] == [adj < 0.01 for adj in adjusted]
    assert result["summary"]["significantCount"] == int(reject.sum())


def test_precomputed_model_samples_give_the_same_result(five_models):
    trials = {k: v[0] for k, v in five_models.items()}
    assert compare_model_configs({k: model_samples(v) for k, v in trials.items()}) == compare_model_configs(trials)
    assert compare_model_configs({k: iter(v) for k, v in trials.items()}) == compare_model_configs(trials)


def test_alpha_sets_significance_and_the_single_star():
    rng = np.random.default_rng(5)
    a = [layer3_trial(graph=(int(n), 1)) for n in rng.integers(2, 9, 12)]
    b = [layer3_trial(graph=(int(n), 1)) for n in rng.integers(3, 10, 12)]
    row = next(r for r in compare_model_configs({"A": a, "B": b}, alpha=0.5)["layer3Comparisons"] if r["pValue"])
    assert row["metric"] == "WS_ENT" or row["metric"].startswith("GC_")
    p = row["adjustedPValue"]
    assert row["significant"] is (p < 0.5)
    assert row["mark"] == ("***" if p < 0.001 else "**" if p < 0.01 else "*" if p < 0.5 else "")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"correction": "fdr_bh"}, "correction must be one of 'bonferroni', 'holm'; got 'fdr_bh'"),
        ({"alpha": 0}, "alpha must be a number between 0 and 1 (exclusive); got 0"),
        ({"alpha": 1.5}, "got 1.5"),
        ({"alpha": "0.05"}, "got '0.05'"),
    ],
)
def test_bad_arguments_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        compare_model_configs({"A": [], "B": []}, **kwargs)


def test_labels_must_be_strings():
    with pytest.raises(ValueError, match="model config labels must be strings; got 1"):
        compare_model_configs({1: [], "B": []})
