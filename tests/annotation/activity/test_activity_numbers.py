"""The numbers of the activity page, checked against values worked out by hand (see conftest.activity_batch)."""

from datetime import date, timedelta

import numpy as np
import pytest

from annotation.activity.compute import day_window, seconds_medians
from annotation.activity.selectors import batch_activity
from annotation.aggregation.agreement import leave_one_out_kappa, pairwise_quadratic_kappa
from annotation.axes import AXES
from annotation.models import Batch
from annotation.selectors import stored_rating_set

pytestmark = pytest.mark.django_db


def _by_name(activity):
    return {a.name: a for a in activity.annotators}


def test_ratings_per_day_count_tokyo_days_across_midnight(activity_batch, today):
    activity = batch_activity(batch=activity_batch, today=today)
    days = activity.days
    assert len(days) == 30 and days[-1] == today and days[0] == today - timedelta(days=29)
    d = days.index(today - timedelta(days=3))
    rows = _by_name(activity)
    assert list(rows) == ["ann_a", "ann_b", "ann_c"]  # ann_x rated another batch only

    def nonzero(name):
        return {i - d: n for i, n in enumerate(rows[name].per_day) if n}

    assert nonzero("ann_a") == {0: 1, 1: 5}  # 23:50 and 00:10 Tokyo: two days, though one UTC day
    assert nonzero("ann_b") == {0: 3, 2: 3}  # 08:00 Tokyo is the evening before in UTC
    assert nonzero("ann_c") == {1: 4}  # the rating 40 days ago is outside the window
    assert [(a.total, a.in_window) for a in rows.values()] == [(6, 6), (6, 6), (5, 4)]
    assert activity.total == 17 and activity.in_window == 16 and activity.max_per_day == 5
    assert activity.day_rows[d].counts == (1, 3, 0) and activity.day_rows[d + 1].total == 9


def test_median_seconds_ignore_missing_times(activity_batch, today):
    rows = _by_name(batch_activity(batch=activity_batch, today=today))
    assert (rows["ann_a"].median_seconds, rows["ann_a"].n_timed) == (25.0, 4)
    assert (rows["ann_b"].median_seconds, rows["ann_b"].n_timed) == (7.0, 3)
    assert (rows["ann_c"].median_seconds, rows["ann_c"].n_timed) == (None, 0)


def test_skip_rate_counts_this_batchs_skipped_and_submitted_assignments(activity_batch, today):
    rows = _by_name(batch_activity(batch=activity_batch, today=today))
    assert (rows["ann_a"].skipped, rows["ann_a"].submitted) == (2, 4)
    assert rows["ann_a"].skip_rate == pytest.approx(2 / 6)
    assert (rows["ann_b"].skipped, rows["ann_b"].submitted, rows["ann_b"].skip_rate) == (0, 6, 0.0)
    assert rows["ann_c"].skip_rate is None  # imported ratings: the queue handed out nothing


def test_kappa_with_the_rest_is_the_engines_leave_one_out_kappa(activity_batch, today):
    rows = _by_name(batch_activity(batch=activity_batch, today=today))
    ratings = stored_rating_set(batch_name="b1")
    for axis in AXES:
        expected = leave_one_out_kappa(pairwise_quadratic_kappa(ratings.scores[axis]), ratings.n_raters)
        for r, name in enumerate(ratings.rater_ids):
            got = next(k for k in rows[name].kappa_axes if k.axis == axis)
            assert got.value == pytest.approx(expected[r][0], abs=1e-12) and got.reason == expected[r][1]
    for row in rows.values():
        values = [k.value for k in row.kappa_axes if k.value is not None]
        assert values and row.kappa_mean == pytest.approx(np.mean(values))
    assert [rows[n].n_with_others for n in ("ann_a", "ann_b", "ann_c")] == [6, 6, 5]


def test_kappa_mean_leaves_out_undefined_axes_and_says_why(db, today):
    from annotation.models import Annotation, Dialogue
    from tests.helpers import make_user

    batch = Batch.objects.create(name="flat")
    a, b = make_user("a1"), make_user("b1")
    for i in range(3):
        d = Dialogue.objects.create(external_id=f"f{i}", user_text="u", response_text="r", batch=batch)
        for user, social in ((a, 1 + i), (b, 1 + i)):
            Annotation.objects.create(dialogue=d, annotator=user, social_score=social, avoidant_score=2,
                                      mechanical_score=1 + i, self_score=3)  # fmt: skip
    row = batch_activity(batch=batch, today=today).annotators[0]
    by_axis = {k.axis: k for k in row.kappa_axes}
    assert by_axis["social"].value == pytest.approx(1.0) and by_axis["mechanical"].value == pytest.approx(1.0)
    assert by_axis["avoidant"].value is None and "expected disagreement 0" in by_axis["avoidant"].reason
    assert len(row.kappa_defined) == 2 and row.kappa_mean == pytest.approx(1.0)


def test_a_batch_without_ratings_has_no_annotators(db, today):
    activity = batch_activity(batch=Batch.objects.create(name="empty"), today=today)
    assert activity.annotators == () and activity.max_per_day == 0 and len(activity.days) == 30


def test_a_finished_batch_shows_the_thirty_days_up_to_its_last_rating(activity_batch, today):
    later = today + timedelta(days=60)
    activity = batch_activity(batch=activity_batch, today=later)
    assert activity.window.shifted and activity.window.last == today - timedelta(days=1)  # ann_b's D+2
    assert activity.in_window == 16


def test_day_window():
    assert day_window(today=date(2025, 3, 31), last_rating_day=date(2025, 3, 2)) == (
        day_window(today=date(2025, 3, 31), last_rating_day=None)
    )
    window = day_window(today=date(2025, 3, 31), last_rating_day=date(2025, 3, 1))
    assert (window.first, window.last, window.shifted) == (date(2025, 1, 31), date(2025, 3, 1), True)
    with pytest.raises(ValueError, match="days must be at least 1"):
        day_window(today=date(2025, 3, 31), last_rating_day=None, days=0)


def test_seconds_medians_per_column():
    seconds = np.array([[1.0, np.nan], [3.0, np.nan], [np.nan, np.nan], [10.0, 4.0]])
    assert seconds_medians(seconds) == [(3.0, 3), (4.0, 1)]
