"""The ratings reader's fast path (``records._fast_annotation``) agrees with its detailed checks.

On valid ratings it makes the same ``AnnotationRecord`` as ``_parse_annotation_checked`` (equal, frozen,
the same field types); on ratings the detailed checks refuse it makes none, so every problem is still
found and named. Derandomised and bounded; no example database.
"""

from __future__ import annotations

import dataclasses
import json
from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from annotation.axes import AXES
from annotation.io.records import AnnotationRecord, _fast_annotation, _parse_annotation_checked, load_annotations
from core.names import id_problem

BOUNDED = settings(
    max_examples=300, derandomize=True, database=None, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)

IDS = st.text(min_size=1, max_size=12).filter(lambda text: text.strip() and id_problem(text) is None)
ANNOTATORS = st.from_regex(r"\A[\w.@+-]{1,20}\Z").filter(lambda text: id_problem(text) is None)
ZONES = st.sampled_from([UTC, timezone(timedelta(hours=9)), timezone(timedelta(hours=-5, minutes=-30))])
STAMPS = st.builds(
    lambda when, zone, z: when.replace(tzinfo=zone).isoformat().replace("+00:00", "Z" if z else "+00:00"),
    st.datetimes(datetime(2000, 1, 1), datetime(2030, 1, 1)),
    ZONES,
    st.booleans(),
)
CONFIDENCE = st.one_of(st.floats(0, 1), st.sampled_from([0, 1]))
SECONDS = st.one_of(st.none(), st.floats(0, 86_400), st.integers(0, 86_400))


@st.composite
def valid_ratings(draw) -> dict:
    row = {
        "id": draw(IDS),
        "annotator_id": draw(ANNOTATORS),
        "timestamp": draw(STAMPS),
        "annotations": {axis: draw(st.integers(1, 5)) for axis in draw(st.permutations(AXES))},
        "confidence": {axis: draw(CONFIDENCE) for axis in draw(st.permutations(AXES))},
    }
    seconds = draw(SECONDS)
    if seconds is not None or draw(st.booleans()):
        row["seconds_spent"] = seconds
    return row


# One field made wrong in a way the detailed checks name.
WRONG = st.sampled_from(
    [
        ("id", ""), ("id", "   "), ("id", 5), ("id", "x" * 201), ("annotator_id", "a b"), ("annotator_id", ""),
        ("annotator_id", "a" * 151), ("timestamp", "2025-01-01T10:00:00"), ("timestamp", "yesterday"),
        ("timestamp", 0), ("annotations", {"social": 1}), ("annotations", []), ("confidence", None),
        ("seconds_spent", -1), ("seconds_spent", 86_401), ("seconds_spent", True), ("seconds_spent", "1"),
        ("annotations.social", 0), ("annotations.self", 6), ("annotations.avoidant", 2.0),
        ("annotations.mechanical", True), ("confidence.social", 1.5), ("confidence.self", -0.1),
        ("confidence.avoidant", "0.5"), ("confidence.mechanical", False), ("annotations.extra", 1),
        ("id", "=1+1"), ("id", " -2"), ("id", "a\tb"), ("id", "x\r"), ("id", "\x85x"), ("id", "＠x"),
        ("annotator_id", "@ann"), ("annotator_id", "+ann"), ("annotator_id", "-ann"),
    ]
)  # fmt: skip


@BOUNDED
@given(valid_ratings(), st.integers(1, 10**6))
def test_the_fast_path_makes_the_record_the_detailed_checks_make(row, line):
    fast = _fast_annotation(row, "f.jsonl", line)
    checked, problems = _parse_annotation_checked(row, file="f.jsonl", line=line)
    assert problems == []
    assert fast is not None and type(fast) is AnnotationRecord
    assert fast == checked
    assert list(fast.scores) == list(checked.scores) == list(AXES)
    assert list(fast.confidence) == list(checked.confidence) == list(AXES)
    assert all(type(v) is float for v in fast.confidence.values())
    assert fast.seconds_spent is None or type(fast.seconds_spent) is float
    with pytest.raises(dataclasses.FrozenInstanceError):
        fast.id = "other"  # type: ignore[misc]


@BOUNDED
@given(valid_ratings(), WRONG)
def test_the_fast_path_makes_no_record_of_what_the_detailed_checks_refuse(row, wrong):
    field, value = wrong
    if "." in field:
        outer, inner = field.split(".")
        row[outer][inner] = value
    else:
        row[field] = value
    _checked, problems = _parse_annotation_checked(row, file="f.jsonl", line=1)
    assert problems, row
    assert _fast_annotation(row, "f.jsonl", 1) is None


def test_a_file_read_through_the_fast_path_gives_the_records_of_the_detailed_checks(tmp_path):
    rows = [
        '{"id": "d1", "annotator_id": "a1", "timestamp": "2025-01-01T10:00:00Z", "seconds_spent": 3,'
        ' "annotations": {"social": 1, "avoidant": 2, "mechanical": 3, "self": 4},'
        ' "confidence": {"social": 1, "avoidant": 0.5, "mechanical": 0, "self": 0.25}}',
        '{"id": "d2", "annotator_id": "a1", "timestamp": "2025-01-01T19:00:00+09:00",'
        ' "annotations": {"self": 5, "social": 1, "avoidant": 2, "mechanical": 3},'
        ' "confidence": {"social": 0.9, "avoidant": 0.9, "mechanical": 0.9, "self": 0.9}}',
    ]
    path = tmp_path / "ratings.jsonl"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    records = load_annotations([path])
    expected = [_parse_annotation_checked(json.loads(row), file=str(path), line=n)[0] for n, row in enumerate(rows, 1)]
    assert records == expected
