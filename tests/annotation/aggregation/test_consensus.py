"""Merge rules of seed A.6 (pure, no database)."""

import json
from datetime import UTC, datetime

import pytest

from annotation.aggregation.consensus import merge
from annotation.io.dataset import rating_set
from annotation.io.records import parse_annotation
from tests.annotation.conftest import rating

NOW = datetime(2025, 2, 1, 9, 30, tzinfo=UTC)


def _records(*rows):
    out = []
    for row in rows:
        record, problems = parse_annotation(row, file="t", line=1)
        assert not problems, problems
        out.append(record)
    return rating_set(out)


def _social(item: int, annotator: str, score: int, conf: float = 1.0):
    return rating(item, annotator, scores=(score, 1, 1, 1), conf=(conf, 1, 1, 1))


def test_weighted_average_is_the_confidence_weighted_mean_rounded_half_up():
    data = _records(_social(1, "a", 1, 0.9), _social(1, "b", 3, 0.9), _social(1, "c", 2, 0.8))
    [line] = merge(data, method="weighted_average", now=NOW).consensus
    assert line["scores_mean"]["social"] == pytest.approx((0.9 * 1 + 0.9 * 3 + 0.8 * 2) / 2.6)
    assert line["annotations"]["social"] == 2
    assert line["confidence"]["social"] == pytest.approx((0.9 + 0.9 + 0.8) / 3)


def test_half_is_rounded_up_not_to_even():
    data = _records(_social(1, "a", 2), _social(1, "b", 3), _social(2, "a", 3), _social(2, "b", 4))
    lines = merge(data, now=NOW).consensus
    assert [(line["scores_mean"]["social"], line["annotations"]["social"]) for line in lines] == [(2.5, 3), (3.5, 4)]


def test_ratings_below_min_confidence_are_left_out():
    data = _records(_social(1, "a", 1, 0.9), _social(1, "b", 1, 0.9), _social(1, "c", 3, 0.6))
    [line] = merge(data, now=NOW).consensus
    assert line["annotations"]["social"] == 1 and line["n_used"]["social"] == 2
    assert line["n_annotators"] == 3


def test_excluded_annotator_is_left_out_of_that_axis_only():
    data = _records(_social(1, "a", 1), _social(1, "b", 2), _social(1, "c", 3))
    [line] = merge(data, excluded={"social": [2]}, now=NOW).consensus
    assert line["n_used"] == {"social": 2, "avoidant": 3, "mechanical": 3, "self": 3}
    assert line["scores_mean"]["social"] == 1.5


def test_median_of_an_even_count_is_the_mean_of_the_middle_two():
    data = _records(_social(1, "a", 1), _social(1, "b", 2), _social(1, "c", 3), _social(1, "d", 3))
    [line] = merge(data, method="median", now=NOW).consensus
    assert line["scores_mean"]["social"] == 2.5 and line["annotations"]["social"] == 3


def test_majority_takes_the_most_frequent_then_the_larger_confidence_then_the_lower_score():
    data = _records(
        _social(1, "a", 2), _social(1, "b", 2), _social(1, "c", 3),
        _social(2, "a", 2, 0.8), _social(2, "b", 3, 0.9),
        _social(3, "a", 2, 0.9), _social(3, "b", 3, 0.9),
    )  # fmt: skip
    lines = merge(data, method="majority", now=NOW).consensus
    assert [line["annotations"]["social"] for line in lines] == [2, 3, 2]


def test_items_with_too_few_usable_ratings_are_rejected_with_reasons():
    data = _records(_social(1, "a", 1), _social(1, "b", 1, 0.5), _social(2, "a", 1), _social(2, "b", 1))
    result = merge(data, now=NOW)
    assert [line["id"] for line in result.consensus] == ["dialogue_002"]
    [rejected] = result.rejected
    assert rejected["id"] == "dialogue_001"
    assert rejected["reasons"] == {"social": {"reason": "too_few_ratings", "usable": 1, "required": 2}}
    assert rejected["ratings"]["b"]["social"] == 1
    assert result.rejected_by_axis["social"] == {"too_few_ratings": 1, "spread_too_wide": 0}


def test_items_whose_ratings_span_more_than_two_points_are_rejected():
    data = _records(_social(1, "a", 1), _social(1, "b", 4), _social(2, "a", 1), _social(2, "b", 3))
    result = merge(data, now=NOW)
    assert [line["id"] for line in result.consensus] == ["dialogue_002"]
    assert result.rejected[0]["reasons"]["social"] == {"reason": "spread_too_wide", "min": 1, "max": 4, "max_spread": 2}


def test_consensus_line_keeps_the_seed_shape_and_is_strict_json():
    data = _records(_social(1, "a", 1), _social(1, "b", 2))
    [line] = merge(data, method="median", now=NOW).consensus
    seed_keys = {"id", "annotator_id", "timestamp", "annotations", "confidence"}
    assert set(line) == seed_keys | {"scores_mean", "n_annotators", "n_used", "method"}
    assert line["annotator_id"] == "consensus" and line["timestamp"] == "2025-02-01T09:30:00Z"
    assert line["method"] == "median"
    assert all(isinstance(v, int) for v in line["annotations"].values())
    json.dumps(line, allow_nan=False)
    parsed, problems = parse_annotation(line, file="consensus", line=1)
    assert not problems and parsed.annotator_id == "consensus"


def test_unknown_method_is_refused():
    with pytest.raises(ValueError, match="unknown method 'mode'; use one of weighted_average, median, majority"):
        merge(_records(_social(1, "a", 1)), method="mode")


def test_half_up_survives_floating_point_error():
    # (0.7 * 1 + 0.7 * 1 + 0.7 * 1 + 0.7 * 3) / 2.8 is exactly 1.5, but 1.4999999999999998 in floating point.
    data = _records(*(_social(1, name, score, 0.7) for name, score in zip("abcd", (1, 1, 1, 3), strict=True)))
    [line] = merge(data, now=NOW).consensus
    assert line["scores_mean"]["social"] == pytest.approx(1.5)
    assert line["annotations"]["social"] == 2
