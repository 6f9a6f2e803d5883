"""The agreement engine on the 0..2 judge-audit scales (issue #18), against sklearn, krippendorff and loop references.

A 0 is a genuine rating on these scales, so a missing rating is the sentinel ``JUDGE_MISSING`` (-1), passed
explicitly. Pure tests: no database.
"""

import math
import warnings

import krippendorff
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.metrics import cohen_kappa_score

from annotation.aggregation.agreement import (
    JUDGE_MISSING,
    JUDGE_SCALE,
    LEVELS,
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
from annotation.aggregation.agreement import core as agreement_core
from annotation.aggregation.agreement.bootstrap import PatternPairStats, kappa_from_sums, unique_patterns
from annotation.aggregation.agreement.core import check_ratings
from annotation.aggregation.agreement.gwet import gwet_weights
from tests.annotation.aggregation.test_agreement import assert_close, gwet_loop_reference, json_strict

TOL = 1e-9
JUDGE = {"categories": JUDGE_SCALE, "missing": JUDGE_MISSING}
LABELS = [0, 1, 2]

# -1 (missing) .. 2, with many genuine zeros: the value a broken engine would read as missing.
JUDGE_VALUES = [-1, -1, 0, 0, 0, 1, 2, 2]


# ---------------------------------------------------------------- references ----------------------------------


def given_mask(ratings: np.ndarray) -> np.ndarray:
    return ratings != JUDGE_MISSING


def sklearn_kappa(a: np.ndarray, b: np.ndarray) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return cohen_kappa_score(a, b, weights="quadratic", labels=LABELS)


def package_alpha(ratings: np.ndarray, level: str) -> float | None:
    """krippendorff.alpha on the matrix with the sentinel as NaN; None where the package finds it undefined."""
    data = ratings.T.astype(float)
    data[data == JUDGE_MISSING] = np.nan
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            value = krippendorff.alpha(reliability_data=data, level_of_measurement=level, value_domain=LABELS)
    except ValueError:  # "at least one unit with values assigned by at least two coders"
        return None
    return None if math.isnan(value) else float(value)


def agreement_loop_reference(ratings: np.ndarray, tolerance: int) -> float | None:
    agree = total = 0
    for row in ratings.tolist():
        given_ = [v for v in row if v != JUDGE_MISSING]
        for i in range(len(given_)):
            for j in range(i + 1, len(given_)):
                total += 1
                agree += abs(given_[i] - given_[j]) <= tolerance
    return agree / total if total else None


def assert_pairs_match_sklearn(ratings: np.ndarray, min_common: int = 2):
    """Every pair with a common item is reported, with sklearn's value on the common items or a reason."""
    result = pairwise_quadratic_kappa(ratings, **JUDGE, min_common=min_common)
    rated = given_mask(ratings)
    seen = set()
    for a, b, n, kappa, reason in zip(
        result.rater_a, result.rater_b, result.n_common, result.kappa, result.reason, strict=True
    ):
        common = rated[:, a] & rated[:, b]
        assert n == common.sum() >= 1
        seen.add((int(a), int(b)))
        if n < min_common:
            assert math.isnan(kappa) and "common item" in reason
            continue
        reference = sklearn_kappa(ratings[common, a], ratings[common, b])
        if math.isnan(reference):
            assert math.isnan(kappa) and reason.startswith("expected disagreement is 0")
        else:
            assert reason is None and abs(kappa - reference) <= TOL, (a, b, kappa, reference)
    n_raters = ratings.shape[1]
    expected = {(a, b) for a in range(n_raters) for b in range(a + 1, n_raters) if np.any(rated[:, a] & rated[:, b])}
    assert seen == expected
    return result


def synthetic_judge(n_items: int, n_raters: int, per_item: int, seed: int, accuracy: float = 0.8) -> np.ndarray:
    """Items rated 0..2 by ``per_item`` random raters (the rest -1); true labels skewed to 0 (not_relevant)."""
    rng = np.random.default_rng(seed)
    truth = rng.choice(3, size=n_items, p=[0.6, 0.25, 0.15])
    who = np.argsort(rng.random((n_items, n_raters)), axis=1)[:, :per_item]
    noise = np.clip(truth[:, None] + rng.choice([-1, 1], size=(n_items, per_item)), 0, 2)
    values = np.where(rng.random((n_items, per_item)) < accuracy, truth[:, None], noise)
    ratings = np.full((n_items, n_raters), JUDGE_MISSING, dtype=np.int64)
    np.put_along_axis(ratings, who, values, axis=1)
    return ratings


matrices = st.integers(0, 25).flatmap(
    lambda n: st.integers(2, 6).flatmap(lambda r: arrays(np.int64, (n, r), elements=st.sampled_from(JUDGE_VALUES)))
)
HYPOTHESIS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def seeded(seed: int) -> np.ndarray:
    """A synthetic audit with items rated once or by nobody, like a partly finished audit."""
    ratings = synthetic_judge(150, 5, 3, seed=seed)
    ratings[:8] = JUDGE_MISSING
    ratings[8:16, 1:] = JUDGE_MISSING
    return ratings


# ---------------------------------------------------------------- against the references ----------------------


@HYPOTHESIS
@given(matrices)
def test_pairwise_kappa_matches_sklearn_with_labels_0_1_2(ratings):
    assert_pairs_match_sklearn(ratings)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("min_common", [1, 2, 5])
def test_pairwise_kappa_matches_sklearn_seeded(seed, min_common):
    assert_pairs_match_sklearn(seeded(seed), min_common=min_common)


@HYPOTHESIS
@given(matrices, st.sampled_from(LEVELS))
def test_alpha_matches_krippendorff_with_value_domain_0_1_2(ratings, level):
    value, reason = krippendorff_alpha(ratings, level=level, **JUDGE)
    assert_close(value, package_alpha(ratings, level))
    assert (value is None) == (reason is not None)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("level", LEVELS)
def test_alpha_matches_krippendorff_seeded(seed, level):
    ratings = seeded(seed)
    value = krippendorff_alpha(ratings, level=level, **JUDGE)[0]
    assert value is not None
    assert_close(value, package_alpha(ratings, level))


@HYPOTHESIS
@given(matrices, st.sampled_from(["quadratic", "linear", "identity"]))
def test_gwet_matches_loop_reference(ratings, weights):
    value, reason = gwet_ac2(ratings, **JUDGE, weights=weights)
    assert_close(value, gwet_loop_reference(ratings, categories=LABELS, weights=weights))
    assert (value is None) == (reason is not None)


@pytest.mark.parametrize("seed", range(6))
def test_gwet_matches_loop_reference_seeded(seed):
    ratings = seeded(seed)
    for weights in ("quadratic", "linear", "identity"):
        value = gwet_ac2(ratings, **JUDGE, weights=weights)[0]
        assert value is not None
        assert_close(value, gwet_loop_reference(ratings, categories=LABELS, weights=weights))


def test_gwet_quadratic_weights_on_the_judge_scale():
    np.testing.assert_array_equal(gwet_weights(JUDGE_SCALE, "quadratic"), [[1, 0.75, 0], [0.75, 1, 0.75], [0, 0.75, 1]])


@HYPOTHESIS
@given(matrices, st.sampled_from([0, 1, 2]))
def test_pairwise_agreement_matches_pair_count(ratings, tolerance):
    value, reason = pairwise_agreement(ratings, tolerance=tolerance, **JUDGE)
    assert_close(value, agreement_loop_reference(ratings, tolerance))
    assert (value is None) == (reason is not None)


@pytest.mark.parametrize("seed", range(4))
def test_axis_kappa_and_leave_one_out_equal_sklearn_means(seed):
    ratings = seeded(seed)
    per_rater = leave_one_out_kappa(pairwise_quadratic_kappa(ratings, **JUDGE), ratings.shape[1])
    rated = given_mask(ratings)
    num_all = den_all = 0.0
    for rater in range(ratings.shape[1]):
        num = den = 0.0
        for other in range(ratings.shape[1]):
            common = rated[:, rater] & rated[:, other]
            if other == rater or common.sum() < 2:
                continue
            k = sklearn_kappa(ratings[common, rater], ratings[common, other])
            if math.isnan(k):
                continue
            num, den = num + common.sum() * k, den + common.sum()
            if other > rater:
                num_all, den_all = num_all + common.sum() * k, den_all + common.sum()
        assert abs(per_rater[rater][0] - num / den) <= TOL
    assert abs(axis_kappa(pairwise_quadratic_kappa(ratings, **JUDGE))[0] - num_all / den_all) <= TOL


# ---------------------------------------------------------------- 0 is a rating, not a missing one -------------


def test_a_zero_rating_next_to_missing_ratings_is_counted():
    ratings = np.array(
        [
            [0, 0, -1],
            [0, 1, 0],
            [1, 1, -1],
            [2, 2, 2],
            [-1, 2, 0],
            [0, -1, -1],
        ]
    )
    pair = pairwise_quadratic_kappa(ratings, **JUDGE)
    assert pair.n_common.tolist() == [4, 2, 3]  # (0, 1), (0, 2), (1, 2): every 0 counted
    a, b = ratings[:4, 0], ratings[:4, 1]
    assert abs(pair.kappa[0] - sklearn_kappa(a, b)) <= TOL
    assert prevalence(ratings, **JUDGE) == {"0": 6 / 13, "1": 3 / 13, "2": 4 / 13}
    assert pairwise_agreement(ratings, **JUDGE) == (6 / 9, None)  # 9 same-item pairs, 6 of them equal
    report = axis_report(ratings, ["judge", "ann_a", "ann_b"], n_boot=0, **JUDGE)
    json_strict(report)
    assert report["n_ratings"] == 13 and report["n_items"] == 5
    assert [a["n_items"] for a in report["annotators"]] == [4, 5, 3]


def test_the_judge_scale_equals_the_same_ratings_shifted_to_1_2_3():
    """0..2 with -1 missing is 1..3 with 0 missing: kappa, alpha, AC2, agreement and the bootstrap all agree."""
    ratings = seeded(3)
    shifted = ratings + 1
    one_two_three = {"categories": (1, 2, 3)}
    ids = list("abcde")
    judge = axis_report(ratings, ids, n_boot=200, seed=4, **JUDGE)
    plain = axis_report(shifted, ids, n_boot=200, seed=4, **one_two_three)
    for key in ("kappa", "ci95", "alpha", "ac2", "agreement_exact", "agreement_within_1", "pairs", "annotators"):
        assert judge[key] == plain[key], key
    assert list(judge["prevalence"].values()) == list(plain["prevalence"].values())
    for level in ("nominal", "ordinal", "interval"):  # ratio distances depend on the values, not only their spacing
        assert krippendorff_alpha(ratings, level=level, **JUDGE) == krippendorff_alpha(
            shifted, level=level, **one_two_three
        )


def test_all_zero_ratings_are_constant_not_missing():
    ratings = np.zeros((6, 3), dtype=np.int64)
    ratings[0, 2] = JUDGE_MISSING
    pair = pairwise_quadratic_kappa(ratings, **JUDGE)
    assert pair.n_common.tolist() == [6, 5, 5]
    assert all("same single score, 0, on all" in reason for reason in pair.reason)
    value, reason = axis_kappa(pair)
    assert value is None and "3 pair(s) with expected disagreement 0" in reason
    value, reason = krippendorff_alpha(ratings, **JUDGE)
    assert value is None and "every pairable rating is 0" in reason
    assert package_alpha(ratings, "ordinal") is None
    assert gwet_ac2(ratings, **JUDGE) == (1.0, None)  # AC2 stays defined when everyone agrees
    assert pairwise_agreement(ratings, **JUDGE) == (1.0, None)
    low, high, reason = bootstrap_kappa_ci(ratings, n_boot=50, **JUDGE)
    assert low is None and high is None and "undefined on the full data" in reason
    report = axis_report(ratings, ["a", "b", "c"], n_boot=50, **JUDGE)
    json_strict(report)
    assert report["kappa"] is None and report["passed"] is False and "kappa is undefined" in report["reason"]
    assert report["prevalence"] == {"0": 1.0, "1": 0.0, "2": 0.0}


@pytest.mark.parametrize("score", JUDGE_SCALE)
def test_one_single_category_everywhere_is_undefined_with_a_reason(score):
    ratings = np.full((5, 2), score)
    kappa, reason = axis_kappa(pairwise_quadratic_kappa(ratings, **JUDGE))
    assert kappa is None and "expected disagreement 0" in reason
    assert math.isnan(sklearn_kappa(ratings[:, 0], ratings[:, 1]))
    alpha, reason = krippendorff_alpha(ratings, **JUDGE)
    assert alpha is None and f"every pairable rating is {score}" in reason


def test_a_rater_with_no_ratings_changes_nothing_for_the_others():
    ratings = seeded(5)
    with_idle = np.column_stack([ratings[:, :2], np.full(ratings.shape[0], JUDGE_MISSING), ratings[:, 2:]])
    ids = ["r0", "r1", "idle", "r2", "r3", "r4"]
    report = axis_report(with_idle, ids, n_boot=100, **JUDGE)
    json_strict(report)
    assert report["annotators"][2] == {
        "annotator": "idle",
        "n_items": 0,
        "kappa_vs_rest": None,
        "reason": "this rater shares no item with any other rater",
    }
    assert all("idle" not in pair["annotators"] for pair in report["pairs"])
    without = axis_report(ratings, ["r0", "r1", "r2", "r3", "r4"], n_boot=100, **JUDGE)
    for key in ("kappa", "ci95", "alpha", "ac2", "agreement_exact", "agreement_within_1", "prevalence", "pairs"):
        assert report[key] == without[key], key
    assert report["annotators"][:2] + report["annotators"][3:] == without["annotators"]


# ---------------------------------------------------------------- bootstrap -----------------------------------


def test_bootstrap_is_reproducible_for_a_seed():
    ratings = synthetic_judge(400, 5, 3, seed=7)
    first = bootstrap_kappa_ci(ratings, n_boot=300, seed=11, **JUDGE)
    assert first == bootstrap_kappa_ci(ratings, n_boot=300, seed=11, **JUDGE)
    assert first != bootstrap_kappa_ci(ratings, n_boot=300, seed=12, **JUDGE)
    low, high, reason = first
    assert low < axis_kappa(pairwise_quadratic_kappa(ratings, **JUDGE))[0] < high and reason is None


def test_bootstrap_pattern_shortcut_equals_resampling_items():
    """One replicate through the pattern multinomial == sklearn's kappas on the resampled items."""
    ratings = seeded(8)
    idx, _ = check_ratings(ratings, **JUDGE)
    several = given_mask(ratings).sum(axis=1) >= 2
    multi, multi_idx = ratings[several], idx[several]
    patterns, frequency = unique_patterns(multi_idx)
    stats = PatternPairStats(patterns)
    point = axis_kappa(pairwise_quadratic_kappa(ratings, **JUDGE))[0]
    assert abs(kappa_from_sums(stats.sums(frequency[None, :]), 2)[0] - point) <= TOL
    codes = {row.tobytes(): p for p, row in enumerate(patterns)}
    rng = np.random.default_rng(0)
    for _ in range(4):
        draw = rng.integers(0, multi.shape[0], size=multi.shape[0])
        counts = np.zeros((1, patterns.shape[0]), dtype=np.int64)
        for item in draw:
            counts[0, codes[multi_idx[item].tobytes()]] += 1
        direct = axis_kappa(assert_pairs_match_sklearn(multi[draw]))[0]
        assert abs(kappa_from_sums(stats.sums(counts), 2)[0] - direct) <= TOL


# ---------------------------------------------------------------- the sentinel and the scale ------------------


def test_the_sentinel_may_be_any_value_outside_the_scale_and_the_slow_path_agrees(monkeypatch):
    ratings = seeded(2)
    reference = check_ratings(ratings, **JUDGE)[0]
    for missing in (3, 99, -7, 1 << 20):  # the last one is too far for the look-up table
        recoded = np.where(ratings == JUDGE_MISSING, missing, ratings)
        np.testing.assert_array_equal(check_ratings(recoded, JUDGE_SCALE, missing=missing)[0], reference)
    monkeypatch.setattr(agreement_core, "_LOOKUP_LIMIT", -1)  # force the searchsorted path
    np.testing.assert_array_equal(check_ratings(ratings, **JUDGE)[0], reference)
    small = ratings.astype(np.int8)
    np.testing.assert_array_equal(check_ratings(small, **JUDGE)[0], reference)


ALL_CALLS = (
    lambda r, **kw: pairwise_quadratic_kappa(r, **kw),
    lambda r, **kw: krippendorff_alpha(r, **kw),
    lambda r, **kw: gwet_ac2(r, **kw),
    lambda r, **kw: bootstrap_kappa_ci(r, **kw),
    lambda r, **kw: pairwise_agreement(r, **kw),
    lambda r, **kw: prevalence(r, **kw),
    lambda r, **kw: axis_report(r, list(range(r.shape[-1])), **kw),
)


@pytest.mark.parametrize(
    ("scale", "message"),
    [
        ({"categories": JUDGE_SCALE}, r"0 means 'missing' and cannot be a category; .* e\.g\. missing=-1"),
        ({"categories": JUDGE_SCALE, "missing": 2}, "2 means 'missing'"),
        ({"categories": (-1, 0, 1), "missing": JUDGE_MISSING}, r"-1 means 'missing' .* e\.g\. missing=-2"),
        ({"categories": JUDGE_SCALE, "missing": None}, "missing .* must be an integer; got None"),
        ({"categories": JUDGE_SCALE, "missing": -1.0}, "must be an integer; got -1.0"),
        ({"categories": JUDGE_SCALE, "missing": True}, "must be an integer; got True"),
    ],
)
def test_a_sentinel_that_is_a_category_or_not_an_integer_is_refused(scale, message):
    for call in ALL_CALLS:
        with pytest.raises(ValueError, match=message):
            call(np.array([[0, 1], [2, 2]]), **scale)


@pytest.mark.parametrize(
    ("ratings", "message"),
    [
        (np.array([[0, 3]]), r"1 value\(s\) outside categories \[0, 1, 2\] and -1 \(missing\): \[3\]"),
        (np.array([[0, -2], [5, -1]]), r"2 value\(s\) outside categories .*: \[-2, 5\]"),
        (np.array([[0, 1 << 40]]), r"outside categories .*: \[1099511627776\]"),  # the searchsorted path
        (np.array([[0.0, 1.0]]), r"integer dtype \(-1 = missing\)"),
    ],
)
def test_values_outside_the_scale_are_refused(ratings, message):
    for call in ALL_CALLS:
        with pytest.raises(ValueError, match=message):
            call(ratings, **JUDGE)
