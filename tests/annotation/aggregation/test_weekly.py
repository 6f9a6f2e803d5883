"""Weekly leave-one-out kappa (seed 000 B.3.2) against a direct sklearn computation. No database."""

import warnings
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from annotation.aggregation.agreement import leave_one_out_kappa, pairwise_quadratic_kappa
from annotation.aggregation.weekly import NO_WEEK, week_codes, week_label, week_monday, weekly_kappa_vs_rest

LABELS = [1, 2, 3, 4, 5]


def _epoch(*args) -> float:
    return datetime(*args, tzinfo=UTC).timestamp()


def _reference(ratings: np.ndarray, weeks: np.ndarray, rater: int, week: int, min_common: int = 2):
    """The definition, spelled out with sklearn: None where undefined."""
    mine = (ratings[:, rater] > 0) & (weeks[:, rater] == week)
    kappas, sizes = [], []
    for other in range(ratings.shape[1]):
        if other == rater:
            continue
        common = mine & (ratings[:, other] > 0)
        if common.sum() < min_common:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # sklearn warns (and returns NaN) when expected disagreement is 0
            kappa = cohen_kappa_score(
                ratings[common, rater], ratings[common, other], weights="quadratic", labels=LABELS
            )
        if np.isnan(kappa):
            continue
        kappas.append(kappa)
        sizes.append(common.sum())
    if not sizes:
        return None
    return float(np.average(kappas, weights=sizes))


def _seeded(seed: int, n_items: int = 240, n_raters: int = 5, n_weeks: int = 6):
    rng = np.random.default_rng(seed)
    truth = rng.integers(1, 6, size=n_items)
    noise = rng.integers(-1, 2, size=(n_items, n_raters)) * (rng.random((n_items, n_raters)) < 0.4)
    ratings = np.clip(truth[:, None] + noise, 1, 5).astype(np.int8)
    ratings[rng.random((n_items, n_raters)) < 0.35] = 0  # missing
    monday = 20_089  # 2025-01-06, a Monday
    weeks = monday + 7 * rng.integers(0, n_weeks, size=(n_items, n_raters))
    weeks[ratings == 0] = NO_WEEK
    return ratings, weeks


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_weekly_kappa_matches_sklearn_pair_by_pair(seed):
    ratings, weeks = _seeded(seed)
    result = weekly_kappa_vs_rest(ratings, weeks, ["a", "b", "c", "d", "e"])
    assert result.kappa.shape == (5, result.week_codes.size)
    assert list(result.week_codes) == sorted(set(weeks[ratings > 0].tolist()))
    checked = 0
    for r in range(5):
        for w, code in enumerate(result.week_codes):
            expected = _reference(ratings, weeks, r, code)
            if expected is None:
                assert np.isnan(result.kappa[r, w]) and result.reasons[r][w]
            else:
                assert result.kappa[r, w] == pytest.approx(expected, abs=1e-12)
                assert result.reasons[r][w] is None
                checked += 1
    assert checked > 20


def test_a_week_with_undefined_kappa_is_nan_with_a_reason_not_zero():
    # Week 0: ann_0 rates items 0-2, which ann_1 also rated: defined. Week 7: ann_0 rates items 3-4 and ann_1
    # gave both the same single score as ann_0: expected disagreement 0, kappa undefined. Week 14: ann_0 rates
    # item 5, which nobody else rated. ann_2 rates nothing.
    ratings = np.array([[1, 2, 0], [3, 3, 0], [5, 4, 0], [2, 2, 0], [2, 2, 0], [4, 0, 0]], dtype=np.int8)
    weeks = np.array([[0, 0, NO_WEEK], [0, 0, NO_WEEK], [0, 7, NO_WEEK], [7, 7, NO_WEEK], [7, 7, NO_WEEK],
                      [14, NO_WEEK, NO_WEEK]])  # fmt: skip
    result = weekly_kappa_vs_rest(ratings, weeks, ["ann_0", "ann_1", "ann_2"])
    assert list(result.week_codes) == [0, 7, 14]
    assert result.kappa[0, 0] == pytest.approx(_reference(ratings, weeks, 0, 0))
    assert np.isnan(result.kappa[0, 1]) and _reference(ratings, weeks, 0, 7) is None
    assert "expected disagreement 0" in result.reasons[0][1]
    assert result.value(0, 1) is None
    assert np.isnan(result.kappa[0, 2]) and "no other annotator rated the 1 item(s)" in result.reasons[0][2]
    # ann_1's items 2-4 (week 7) mix ann_0's weeks: their pair kappa uses ann_0's ratings whenever made.
    assert result.kappa[1, 0] == pytest.approx(_reference(ratings, weeks, 1, 0))
    assert result.kappa[1, 1] == pytest.approx(_reference(ratings, weeks, 1, 7))
    assert result.reasons[2] == ["no ratings in this week"] * 3
    assert result.n_rated[0].tolist() == [3, 2, 1] and result.n_common[0].tolist() == [3, 2, 0]


def test_too_few_common_items_is_undefined():
    ratings = np.array([[1, 2], [3, 3], [4, 5]], dtype=np.int8)
    weeks = np.array([[0, 0], [0, 0], [7, 0]])
    result = weekly_kappa_vs_rest(ratings, weeks, ["x", "y"])
    assert np.isnan(result.kappa[0, 1])
    assert "1 pair(s) with fewer than 2 common items" in result.reasons[0][1]


def test_one_week_equals_the_overall_leave_one_out_kappa():
    ratings, weeks = _seeded(7)
    weeks = np.where(ratings > 0, 0, NO_WEEK)
    result = weekly_kappa_vs_rest(ratings, weeks, list(range(5)))
    overall = leave_one_out_kappa(pairwise_quadratic_kappa(ratings), 5)
    assert result.kappa[:, 0] == pytest.approx([value for value, _ in overall], abs=1e-12)


def test_no_ratings_at_all_gives_no_weeks():
    result = weekly_kappa_vs_rest(np.zeros((3, 2), dtype=np.int8), np.full((3, 2), NO_WEEK), ["a", "b"])
    assert result.week_codes.size == 0 and result.kappa.shape == (2, 0)


def test_input_errors_name_the_problem():
    ratings = np.array([[1, 2]], dtype=np.int8)
    with pytest.raises(ValueError, match="weeks must have the shape"):
        weekly_kappa_vs_rest(ratings, np.zeros((2, 2)), ["a", "b"])
    with pytest.raises(ValueError, match="1 given rating"):
        weekly_kappa_vs_rest(ratings, np.array([[0, NO_WEEK]]), ["a", "b"])
    with pytest.raises(ValueError, match="got 1 rater ids for 2"):
        weekly_kappa_vs_rest(ratings, np.zeros((1, 2), dtype=np.int64), ["a"])


def test_week_codes_follow_iso_weeks_in_the_given_time_zone():
    epoch = np.array([_epoch(2025, 1, 5, 14, 59), _epoch(2025, 1, 5, 15, 0), _epoch(2024, 12, 30, 0, 0), np.nan])
    utc = week_codes(epoch)
    assert [week_label(c) for c in utc[:3]] == ["2025-W01", "2025-W01", "2025-W01"]
    assert utc[3] == NO_WEEK
    # 2025-01-05 15:00 UTC is Monday 00:00 in Tokyo: the next ISO week there.
    tokyo = week_codes(epoch, tz=ZoneInfo("Asia/Tokyo"))
    assert [week_label(c) for c in tokyo[:3]] == ["2025-W01", "2025-W02", "2025-W01"]
    assert week_monday(tokyo[1]).isoformat() == "2025-01-06"
    assert tokyo[1] - tokyo[0] == 7


def test_week_codes_are_exact_across_daylight_saving_changes():
    berlin = ZoneInfo("Europe/Berlin")
    # DST ends 2025-10-26 03:00 CEST -> 02:00 CET; the week turns at local midnight on Monday 2025-10-27.
    epoch = np.array([_epoch(2025, 10, 26, 22, 59), _epoch(2025, 10, 26, 23, 0), _epoch(2025, 10, 26, 0, 30)])
    labels = [week_label(c) for c in week_codes(epoch, tz=berlin)]
    assert labels == ["2025-W43", "2025-W44", "2025-W43"]
    assert week_label(week_codes(np.array([_epoch(2021, 1, 3, 12)]))[0]) == "2020-W53"


@pytest.mark.parametrize("seed", [0, 1])
def test_a_zero_to_two_scale_gives_the_kappas_of_the_same_ratings_shifted_to_one_to_three(seed):
    rng = np.random.default_rng(seed)
    ratings = rng.integers(1, 4, size=(60, 4))
    ratings[rng.random(ratings.shape) < 0.3] = 0
    weeks = 20_089 + 7 * rng.integers(0, 3, size=ratings.shape)
    weeks[ratings == 0] = NO_WEEK
    shifted = weekly_kappa_vs_rest(ratings, weeks, list("abcd"), categories=(1, 2, 3))
    judge = np.where(ratings == 0, -1, ratings - 1)  # 0..2 with -1 missing: a 0 is a rating
    direct = weekly_kappa_vs_rest(judge, weeks, list("abcd"), categories=(0, 1, 2), missing=-1)
    np.testing.assert_allclose(direct.kappa, shifted.kappa, atol=1e-12, equal_nan=True)
    assert (direct.week_codes == shifted.week_codes).all()
