"""The ratings' JSONL and CSV writers put lines together from memoised pieces (issue 31): every line must be what
the plain writers give, the JSON encoder's record and ``iter_csv`` of ``rating_row``, for any values."""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from annotation.axes import AXES
from annotation.io.exports import line_writer
from annotation.io.records import format_timestamp
from annotation.io.sheets import RATING_COLUMNS, iter_csv, iter_ratings_csv, rating_row

_encode = json.JSONEncoder(ensure_ascii=False, allow_nan=False).encode
TEXT = st.text(st.characters(codec="utf-8"), max_size=12) | st.sampled_from(
    ['=HYPERLINK("x")', "<script>alert(1)</script>", '"\\\n\t', "＝1+1", " -2", "dialogue_001"]
)
STAMP = st.sampled_from([
    datetime(2025, 1, 1, 10, tzinfo=UTC), datetime(2025, 1, 1, 10, 0, 0, 123456, tzinfo=UTC),
    datetime(2025, 1, 1, 19, tzinfo=timezone(timedelta(hours=9))),
])  # fmt: skip
SCORE = st.integers(1, 5)
CONFIDENCE = st.sampled_from([0.0, 1.0, 0.9, 0.1 + 0.2, 1e-7, 0.5]) | st.integers(0, 1)
SECONDS = st.none() | st.floats(0, 1e6, allow_nan=False) | st.integers(0, 10**6)
ROW = st.tuples(TEXT, TEXT, STAMP, SECONDS, st.lists(SCORE, min_size=4, max_size=4),
                st.lists(CONFIDENCE, min_size=4, max_size=4))  # fmt: skip


def _reference_line(dialogue_id, annotator, created_at, seconds, values) -> str:
    n = len(AXES)
    record = {"id": dialogue_id, "annotator_id": annotator, "timestamp": format_timestamp(created_at),
              "annotations": dict(zip(AXES, values[:n], strict=True)),
              "confidence": dict(zip(AXES, values[n:], strict=True))}  # fmt: skip
    if seconds is not None:
        record["seconds_spent"] = seconds
    return _encode(record) + "\n"


@settings(max_examples=200, deadline=None)
@given(st.lists(ROW, max_size=30))
def test_the_jsonl_lines_are_the_encoders(rows):
    write = line_writer()
    for dialogue_id, annotator, stamp, seconds, scores, confidences in rows + rows:  # the second time from memory
        values = [*scores, *confidences]
        assert write(dialogue_id, annotator, stamp, seconds, values) == _reference_line(
            dialogue_id, annotator, stamp, seconds, values
        )


@settings(max_examples=200, deadline=None)
@given(st.lists(ROW, max_size=30), st.sampled_from(["web", "import", "=cmd", "spreadsheet"]))
def test_the_csv_rows_are_iter_csvs(rows, source):
    sheet_rows = [(d, a, t, source, s, *scores, *conf) for d, a, t, s, scores, conf in rows + rows]
    expected = "".join(iter_csv(RATING_COLUMNS, (rating_row(row) for row in sheet_rows)))
    assert "".join(iter_ratings_csv(iter(sheet_rows))) == expected


def test_one_and_one_point_zero_stay_apart():
    write = line_writer()
    first = write("d", "a", datetime(2025, 1, 1, tzinfo=UTC), None, [1, 1, 1, 1, 1, 1, 1, 1])
    second = write("d", "a", datetime(2025, 1, 1, tzinfo=UTC), None, [1, 1, 1, 1, 1.0, 1.0, 1.0, 1.0])
    assert first.endswith('"self": 1}}\n') and second.endswith('"self": 1.0}}\n')


@pytest.mark.parametrize("bad", [math.nan, math.inf])
def test_a_nan_is_refused_as_by_the_encoder(bad):
    with pytest.raises(ValueError):
        line_writer()("d", "a", datetime(2025, 1, 1, tzinfo=UTC), bad, [1, 1, 1, 1, 0.5, 0.5, 0.5, 0.5])
    with pytest.raises(ValueError):
        "".join(iter_ratings_csv([("d", "a", "t", "web", bad, 1, 1, 1, 1, 0.5, 0.5, 0.5, 0.5)]))
