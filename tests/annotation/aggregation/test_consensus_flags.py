"""Accepted quality flags in the merge (pure): what they leave out, what they reject, and how it is listed."""

from datetime import UTC, datetime

import pytest

from annotation.aggregation.consensus import Adjudicated, FlagExclusion, merge, merge_with_exclusions
from annotation.axes import AXES
from tests.annotation.aggregation.test_consensus import _records
from tests.annotation.conftest import rating

NOW = datetime(2025, 2, 1, 9, 30, tzinfo=UTC)


def _data():
    # Three annotators on items 1 and 2; c is far above the others on social.
    return _records(
        rating(1, "a", scores=(1, 2, 2, 1), conf=(1, 1, 1, 1)),
        rating(1, "b", scores=(2, 2, 2, 1), conf=(1, 1, 1, 1)),
        rating(1, "c", scores=(3, 3, 2, 1), conf=(0.8, 1, 1, 1)),
        rating(2, "a", scores=(2, 1, 1, 1), conf=(1, 1, 1, 1)),
        rating(2, "b", scores=(2, 1, 1, 1), conf=(1, 1, 1, 1)),
        rating(2, "c", scores=(4, 1, 1, 1), conf=(1, 1, 1, 1)),
    )


def _flag(flag=1, *, annotator="c", axes=("social",), items=None, kind="score_bias"):
    return FlagExclusion(flag=flag, kind=kind, axes=axes, annotator=annotator,
                         items=None if items is None else frozenset(items), reviewer="admin",
                         reviewed_at="2025-02-01T10:00:00+09:00", note="checked")  # fmt: skip


def test_an_annotator_flag_leaves_their_ratings_out_of_its_axis_only():
    result = merge(_data(), flag_exclusions=[_flag()], now=NOW)
    first, second = result.consensus
    assert first["n_used"] == {"social": 2, "avoidant": 3, "mechanical": 3, "self": 3}
    assert first["scores_mean"]["social"] == pytest.approx(1.5) and first["annotations"]["social"] == 2
    assert first["scores_mean"]["avoidant"] == pytest.approx(7 / 3)  # c still counts on avoidant
    assert second["scores_mean"]["social"] == 2.0
    assert first["flag_excluded"] == second["flag_excluded"] == {"social": ["c"]}
    assert result.flag_exclusions == [
        {"flag": 1, "kind": "score_bias", "annotator": "c", "axes": ["social"], "items": None, "ratings_excluded": 2,
         "items_rejected": 0, "reviewer": "admin", "reviewed_at": "2025-02-01T10:00:00+09:00", "note": "checked"}
    ]  # fmt: skip


def test_without_flags_nothing_changes_and_no_line_says_so():
    plain = merge(_data(), now=NOW)
    assert all("flag_excluded" not in line for line in plain.consensus) and plain.flag_exclusions == []
    assert plain.consensus[1]["scores_mean"]["social"] == pytest.approx(8 / 3)


def test_a_flag_on_one_rating_leaves_out_that_rating_only():
    result = merge(_data(), flag_exclusions=[_flag(items={"dialogue_002"}, axes=AXES)], now=NOW)
    first, second = result.consensus
    assert "flag_excluded" not in first and first["n_used"]["social"] == 3
    assert second["flag_excluded"] == {axis: ["c"] for axis in AXES}
    assert second["n_used"] == {axis: 2 for axis in AXES}
    assert result.flag_exclusions[0]["ratings_excluded"] == 4  # four axes of one rating


def test_an_item_flag_rejects_the_item_on_its_axes_unless_a_researcher_decided():
    item_flag = _flag(7, annotator=None, axes=("social", "self"), items={"dialogue_001"}, kind="item_disagreement")
    result = merge(_data(), flag_exclusions=[item_flag], now=NOW)
    assert [line["id"] for line in result.consensus] == ["dialogue_002"]
    [rejected] = result.rejected
    assert rejected["reasons"] == {"social": {"reason": "flag_accepted", "flags": [7]},
                                   "self": {"reason": "flag_accepted", "flags": [7]}}  # fmt: skip
    assert result.flag_exclusions[0]["items_rejected"] == 1
    decided = {
        "dialogue_001": {axis: Adjudicated(2, "agreed", "res", "2025-02-01T10:00:00Z") for axis in ("social", "self")}
    }
    again = merge(_data(), flag_exclusions=[item_flag], adjudications=decided, now=NOW)
    assert not again.rejected and again.consensus[0]["adjudicated"]["social"]["score"] == 2


def test_flags_on_other_annotators_or_items_change_nothing():
    result = merge(_data(), flag_exclusions=[_flag(annotator="zed"), _flag(2, items={"elsewhere"})], now=NOW)
    assert result.consensus == merge(_data(), now=NOW).consensus
    assert [entry["ratings_excluded"] for entry in result.flag_exclusions] == [0, 0]


def test_overlapping_flags_count_each_rating_once_and_a_flagged_axis_can_be_rejected_for_too_few():
    flags = [_flag(1), _flag(2, items={"dialogue_001"}), _flag(3, annotator="b")]
    result = merge(_data(), flag_exclusions=flags, now=NOW)
    assert [entry["ratings_excluded"] for entry in result.flag_exclusions] == [2, 0, 2]
    assert {line["id"] for line in result.rejected} == {"dialogue_001", "dialogue_002"}
    assert result.rejected[0]["reasons"]["social"] == {"reason": "too_few_ratings", "usable": 1, "required": 2}


def test_the_merge_summary_lists_the_exclusions_and_counts_them():
    item_flag = _flag(7, annotator=None, axes=("social",), items={"dialogue_001"}, kind="item_disagreement")
    result, summary = merge_with_exclusions(_data(), flag_exclusions=[_flag(), item_flag])
    assert summary["flag_exclusions"] == result.flag_exclusions and len(summary["flag_exclusions"]) == 2
    assert summary["ratings_excluded_by_flags"] == 2 and summary["items_rejected_by_flags"] == 1
