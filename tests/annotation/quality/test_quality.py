"""Outlier detection on synthetic data with planted problems (pure, no database)."""

import json
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from annotation.axes import AXES
from annotation.io.dataset import rating_set
from annotation.io.records import AnnotationRecord
from annotation.quality.outliers import OutlierThresholds, detect_outliers, outlier_report

START = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)


def _truth(rng, n_items):
    # Skewed like real data: mostly 1, some 2-5.
    return {axis: rng.choice([1, 1, 1, 2, 2, 3, 4, 5], size=n_items) for axis in AXES}


def _build(behaviours: dict, n_items=60, seed=7):
    """behaviours: annotator -> function(item, axis, true_score, rng) -> score; plus optional seconds."""
    rng = np.random.default_rng(seed)
    truth = _truth(rng, n_items)
    records = []
    for name, (score_of, seconds_of) in behaviours.items():
        for item in range(n_items):
            scores = {axis: int(np.clip(score_of(item, axis, truth[axis][item], rng), 1, 5)) for axis in AXES}
            records.append(
                AnnotationRecord(
                    id=f"item_{item:03d}",
                    annotator_id=name,
                    timestamp=START + timedelta(seconds=30 * item),
                    scores=scores,
                    confidence=dict.fromkeys(AXES, 0.9),
                    seconds_spent=float(seconds_of(item, rng)),
                )
            )
    return rating_set(records)


def careful(item, axis, true, rng):
    return true + (rng.random() < 0.1) * rng.choice([-1, 1])


def normal_speed(item, rng):
    return 20 + rng.random() * 20


def _kinds(flags, subject):
    return {(f.kind, f.axis) for f in flags if f.subject == subject}


@pytest.fixture(scope="module")
def planted():
    behaviours = {f"good_{i}": (careful, normal_speed) for i in range(4)}
    behaviours["random"] = (lambda item, axis, true, rng: rng.integers(1, 6), normal_speed)
    behaviours["biased"] = (lambda item, axis, true, rng: true + 2 if axis == "social" else true, normal_speed)
    behaviours["flat"] = (lambda item, axis, true, rng: 1 if axis == "avoidant" else true, normal_speed)
    behaviours["fast"] = (careful, lambda item, rng: 1.5 + rng.random())
    behaviours["tired"] = (lambda item, axis, true, rng: true if item < 40 else rng.integers(1, 6), normal_speed)
    data = _build(behaviours)
    return data, detect_outliers(data)


def test_careful_annotators_are_not_flagged(planted):
    _data, flags = planted
    for i in range(4):
        assert _kinds(flags, f"good_{i}") == set()


def test_random_annotator_has_low_agreement_on_every_axis(planted):
    _data, flags = planted
    assert {axis for kind, axis in _kinds(flags, "random") if kind == "low_agreement"} == set(AXES)
    low = [f for f in flags if f.subject == "random" and f.kind == "low_agreement"]
    assert all(f.statistic < 0.6 and f.threshold == 0.6 for f in low)


def test_biased_annotator_is_flagged_on_the_biased_axis_only(planted):
    _data, flags = planted
    bias = [f for f in flags if f.subject == "biased" and f.kind == "score_bias"]
    assert [f.axis for f in bias] == ["social"]
    assert bias[0].statistic > 1.0 and "higher" in bias[0].message


def test_straight_liner_is_flagged(planted):
    _data, flags = planted
    assert ("straight_lining", "avoidant") in _kinds(flags, "flat")
    [flag] = [f for f in flags if f.subject == "flat" and f.kind == "straight_lining"]
    assert flag.details["modal_score"] == 1


def test_fast_annotator_is_flagged(planted):
    _data, flags = planted
    [flag] = [f for f in flags if f.kind == "too_fast"]
    assert flag.subject == "fast" and flag.statistic < 5 and flag.details["share_under_3s"] == 1.0


def test_late_session_drift_is_flagged(planted):
    _data, flags = planted
    [flag] = [f for f in flags if f.kind == "late_session_drift"]
    assert flag.subject == "tired" and flag.details["sessions"] == 1
    assert flag.details["late_deviation"] > flag.details["early_deviation"]


def test_items_with_wide_disagreement_are_flagged(planted):
    data, flags = planted
    items = [f for f in flags if f.kind == "item_disagreement"]
    assert items and all(f.subject_type == "item" and f.statistic > 2 for f in items)
    social = data.scores["social"][data.item_ids.index(items[0].subject)]
    assert max(s for s in social if s) - min(s for s in social if s) >= 2


def test_report_is_strict_json_with_counts(planted):
    data, _flags = planted
    report = outlier_report(data)
    json.dumps(report, allow_nan=False)
    assert report["counts"]["too_fast"] == 1
    assert report["thresholds"]["min_kappa"] == 0.6


def test_annotators_with_few_items_are_not_judged():
    data = _build({"a": (careful, lambda i, r: 1.0), "b": (careful, normal_speed)}, n_items=5)
    assert [f.kind for f in detect_outliers(data) if f.subject_type == "annotator"] == []


def test_thresholds_can_be_changed():
    data = _build({"a": (careful, lambda i, r: 8.0), "b": (careful, normal_speed)}, n_items=20)
    assert not [f for f in detect_outliers(data) if f.kind == "too_fast"]
    flags = detect_outliers(data, OutlierThresholds(fast_median_seconds=10))
    assert [f.subject for f in flags if f.kind == "too_fast"] == ["a"]
