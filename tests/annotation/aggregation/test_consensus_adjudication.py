"""Adjudicated axes win in the consensus and are marked (pure, no database)."""

import json
from datetime import UTC, datetime

import pytest

from annotation.aggregation.consensus import Adjudicated, merge, merge_with_exclusions
from tests.annotation.aggregation.test_consensus import _records, _social

NOW = datetime(2025, 2, 1, 9, 30, tzinfo=UTC)
DECISION = Adjudicated(score=4, reason="the response flatters", by="res", at="2025-02-01T09:00:00Z")


def _item_id(data, index=0):
    return data.item_ids[index]


def test_an_adjudicated_axis_replaces_the_merged_score_and_is_marked():
    data = _records(_social(1, "a", 2), _social(1, "b", 3))
    [line] = merge(data, now=NOW, adjudications={_item_id(data): {"social": DECISION}}).consensus
    assert line["annotations"] == {"social": 4, "avoidant": 1, "mechanical": 1, "self": 1}
    assert list(line["annotations"]) == ["social", "avoidant", "mechanical", "self"]  # axis order kept
    assert line["scores_mean"]["social"] == 4.0
    assert line["adjudicated"] == {
        "social": {"score": 4, "merged": 2.5, "reason": "the response flatters", "by": "res",
                   "at": "2025-02-01T09:00:00Z"},
    }  # fmt: skip
    json.dumps(line, allow_nan=False)  # exportable as it is


def test_an_item_rejected_for_its_spread_is_merged_once_the_wide_axis_is_adjudicated():
    data = _records(_social(1, "a", 1), _social(1, "b", 5))
    plain = merge(data, now=NOW)
    assert plain.consensus == [] and plain.rejected[0]["reasons"]["social"]["reason"] == "spread_too_wide"
    decided = merge(data, now=NOW, adjudications={_item_id(data): {"social": DECISION}})
    assert decided.rejected == []
    assert decided.consensus[0]["annotations"]["social"] == 4
    assert decided.consensus[0]["adjudicated"]["social"]["merged"] == pytest.approx(3.0)


def test_an_item_with_too_few_ratings_on_an_axis_is_merged_when_that_axis_is_adjudicated():
    data = _records(_social(1, "a", 3))  # one rating: every axis has too few
    all_axes = dict.fromkeys(("social", "avoidant", "mechanical", "self"), DECISION)
    partly = merge(data, now=NOW, adjudications={_item_id(data): {"social": DECISION}})
    assert partly.consensus == [] and "social" not in partly.rejected[0]["reasons"]
    [line] = merge(data, now=NOW, adjudications={_item_id(data): all_axes}).consensus
    assert line["annotations"] == dict.fromkeys(all_axes, 4)
    json.dumps(line, allow_nan=False)


def test_items_without_decisions_are_unchanged_and_unmarked():
    data = _records(_social(1, "a", 2), _social(1, "b", 2), _social(2, "a", 1), _social(2, "b", 3))
    plain = merge(data, now=NOW).consensus
    decided = merge(data, now=NOW, adjudications={_item_id(data, 1): {"social": DECISION}}).consensus
    assert decided[0] == plain[0] and "adjudicated" not in decided[0]
    assert decided[1]["adjudicated"]["social"]["score"] == 4


def test_the_summary_counts_adjudicated_items():
    data = _records(_social(1, "a", 2), _social(1, "b", 3), _social(2, "a", 2), _social(2, "b", 2))
    _result, summary = merge_with_exclusions(data, adjudications={_item_id(data): {"social": DECISION}})
    assert summary["adjudicated_items"] == 1
