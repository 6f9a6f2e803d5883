"""``core.json_strict.check_value``'s pre-checks change no answer: it finds what ``check_value_fully`` finds.

``check_value`` runs each exact check (lone surrogates and NUL, a key given twice, integers beyond 64 bits)
only when a cheap look at the text says its construct may be there; ``check_value_fully`` runs every check
on every text. On random and adversarial lines (keys given twice in any spelling and spacing, JSON's and
other whitespace, NaN and Infinity, lone surrogates, NUL, BOMs, nesting around 64 levels, long runs of
digits in numbers and in strings, bytes that are not UTF-8) both give the same value or the same finding,
and a JSONL file read either way gives the same located problems (file:line, JSON path, message).
Derandomised and bounded; no example database.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import orjson
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from core import json_strict
from core.json_strict import (
    BLANK,
    DUPLICATE_KEY,
    INT_RANGE,
    NUL,
    SURROGATE,
    TOO_DEEP,
    check_text,
    check_value,
    check_value_fully,
)
from core.jsonl import read_jsonl

BOUNDED = settings(
    max_examples=1000,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# JSON's whitespace drawn most often, and what only looks like whitespace (\v, \f, no-break and
# ideographic spaces, the line separator): not JSON's, so the text is refused where it stands between tokens.
SPACE = st.sampled_from(
    ["", " ", "  ", "\t", "\n", "\r", "\r\n", " \t ", "\n\n  "] * 6 + ["\x0b", "\x0c", "\u00a0", "\u3000", "\u2028"]
)
# Pieces of a string's content as written in the text: escapes of every kind (NUL, lone and paired
# surrogates, an escaped backslash before "u"), what looks like a key's end (quote, spacing, colon),
# long runs of digits, non-ASCII characters, and raw characters JSON refuses in a string.
PIECES = st.sampled_from(
    [
        "a", "social", "x y", "é", "あ", "😀", "\u00a0", "\u3000", ":", "{", "[", "]", "\x7f",
        '\\"', "\\\\", "\\n", "\\t", "\\/", "\\u0061", "\\u00e9", "\\u0000", "\\ud800", "\\uDBFF", "\\udc00",
        "\\ud83d\\ude00", "\\\\u0000", "\\\\ud800", '\\":', '\\" :', '\\"  :', '\\"\\t:', '\\"\t:',
        "1234567890", "1234567890123456789", "-9223372036854775809",
    ]
    * 4
    + ["\t", "\x00", "\ud800"]
)  # fmt: skip
STRINGS = st.lists(PIECES, max_size=4).map(lambda pieces: '"' + "".join(pieces) + '"')
# Keys from a small pool (so that one is often given twice, also spelt with escapes), or any string.
POOL = st.sampled_from(['"a"', '"b"', '"\\u0061"', '"social"', '"soci\\u0061l"', '"a "', '""'])
ODD_KEYS = st.sampled_from(['"a\\u0000"', '"\\ud800"', '"\\udc00"', '"\\"a"', '"a\\":"', '"a\\" :"'])
KEYS = st.one_of(POOL, POOL, POOL, ODD_KEYS, STRINGS)
NUMBERS = st.one_of(
    st.sampled_from(
        [
            "0", "-0", "1", "5", "0.9", "1.5e3", "1E-7", "1e400", "-1e400", "9223372036854775807",
            "9223372036854775808", "-9223372036854775808", "-9223372036854775809", "18446744073709551615",
            "18446744073709551616", "1234567890123456789012", "1234567890123456789.5", "0.12345678901234567890",
        ]
        * 3
        + ["NaN", "Infinity", "-Infinity", "00", "1.", "+1"]
    ),
    st.integers(-(2**70), 2**70).map(str),
)  # fmt: skip
SCALARS = st.one_of(STRINGS, NUMBERS, st.sampled_from(["true", "false", "null"]))


def _array(parts) -> str:
    space, items = parts
    return "[" + space + ",".join(f"{before}{item}{after}" for item, before, after in items) + "]"


def _object(parts) -> str:
    space, members = parts
    written = [f"{before}{key}{gap}:{after}{value}" for key, before, gap, after, value in members]
    return "{" + space + ",".join(written) + space + "}"


def _containers(children):
    arrays = st.tuples(SPACE, st.lists(st.tuples(children, SPACE, SPACE), max_size=4)).map(_array)
    members = st.tuples(KEYS, SPACE, SPACE, SPACE, children)
    objects = st.tuples(SPACE, st.lists(members, max_size=5)).map(_object)
    return st.one_of(arrays, objects)


VALUES = st.recursive(SCALARS, _containers, max_leaves=16)


@st.composite
def deep_values(draw) -> str:
    """A value wrapped in 60 to 70 arrays and objects (the limit is 64), or rarely past orjson's 1024."""
    depth = draw(st.one_of(st.integers(60, 70), st.just(1100)))
    kinds = draw(st.lists(st.booleans(), min_size=1, max_size=6))
    key = draw(KEYS)
    space = draw(SPACE)
    opened = closed = ""
    for level in range(depth):
        if kinds[level % len(kinds)]:
            opened, closed = opened + "[" + space, space + "]" + closed
        else:
            opened, closed = opened + "{" + key + ":" + space, space + "}" + closed
    return opened + draw(VALUES) + closed


RATING = {
    "id": "dialogue_000001",
    "annotator_id": "ann_001",
    "timestamp": "2025-01-01T10:00:00Z",
    "annotations": {"social": 4, "avoidant": 2, "mechanical": 2, "self": 1},
    "confidence": {"social": 0.9, "avoidant": 0.9, "mechanical": 0.9, "self": 0.9},
}


@st.composite
def ratings(draw) -> str:
    """A line of a ratings file as written by ``json.dumps``, changed at one place: a key given again
    (spelt as written or with escapes, with any spacing), a value replaced, or the spacing of a key."""
    text = json.dumps(RATING, separators=draw(st.sampled_from([(", ", ": "), (",", ":"), (",", " : ")])))
    change = draw(st.sampled_from(["none", "key again", "value", "spacing"]))
    if change == "key again":
        key = draw(st.sampled_from(['"id"', '"\\u0069d"', '"social"', '"self"', '"confidence"']))
        where = draw(st.sampled_from(["{", '"annotations": {', '"confidence": {']))
        if where in text:
            text = text.replace(where, where + key + draw(SPACE) + ":" + draw(SPACE) + draw(VALUES) + ",", 1)
    elif change == "value":
        text = text.replace('"ann_001"', draw(VALUES), 1)
    elif change == "spacing":
        text = text.replace('"self"', '"self"' + draw(SPACE), 1)
    return text


LINES = st.one_of(VALUES, deep_values(), ratings())


@st.composite
def raw_lines(draw) -> bytes:
    """A line as bytes: maybe a BOM first, spacing around, a line ending, maybe a byte that is not UTF-8."""
    text = draw(st.sampled_from(["", "", "", "\ufeff"])) + draw(SPACE) + draw(LINES) + draw(SPACE)
    text += draw(st.sampled_from(["", "\n", "\r\n", "\r"]))
    raw = text.encode("utf-8", "surrogatepass")  # a raw lone surrogate is not UTF-8: refused as such
    junk = draw(st.sampled_from([b""] * 12 + [b"\xff", b"\xc3", b"\xef\xbb\xbf"]))
    if junk:
        at = draw(st.integers(0, len(raw)))
        raw = raw[:at] + junk + raw[at:]
    return raw


def _fully(raw: bytes, *, strip_bom: bool = True):
    """``check_text`` with every rule checked exactly (``check_value_fully`` in place of ``check_value``)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(json_strict, "check_value", check_value_fully)
        return check_text(raw, strip_bom=strip_bom)


NAMES = {TOO_DEEP: "too deep", NUL: "NUL", SURROGATE: "surrogate", DUPLICATE_KEY: "key twice", INT_RANGE: "int range"}


def _outcome(result) -> str:
    value, finding = result
    if finding is not None:
        return NAMES.get(finding.template, "refused before the rules (not JSON, not UTF-8, past orjson's depth)")
    return "blank" if value is BLANK else "accepted"


@BOUNDED
@given(raw_lines(), st.booleans())
def test_the_pre_checks_change_no_answer(raw, strip_bom):
    fast = check_text(raw, strip_bom=strip_bom)
    assert fast == _fully(raw, strip_bom=strip_bom)
    event(_outcome(fast))


NOT_PARSED = object()


def _parsed(raw: bytes):
    """The value ``check_text`` asks the rules about, or ``NOT_PARSED`` (refused before, or blank)."""
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        value, finding = json_strict._parse_slowly(raw)
        return NOT_PARSED if finding is not None or value is BLANK else value


@BOUNDED
@given(st.one_of(LINES))
def test_check_value_and_check_value_fully_agree_on_every_parsed_value(text):
    raw = text.encode("utf-8", "surrogatepass")
    value = _parsed(raw)
    if value is not NOT_PARSED:
        assert check_value(raw, value) == check_value_fully(raw, value)
        event(_outcome((value, check_value(raw, value))))


@settings(BOUNDED, max_examples=60)
@given(st.lists(raw_lines().map(lambda raw: raw.replace(b"\n", b" ")), min_size=1, max_size=12))
def test_a_file_read_with_the_pre_checks_gives_the_same_located_problems(lines):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "ratings.jsonl"
        path.write_bytes(b"\n".join(lines) + b"\n")
        fast = [(number, str(item)) for number, item in read_jsonl(path)]
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(json_strict, "check_value", check_value_fully)
            full = [(number, str(item)) for number, item in read_jsonl(path)]
    assert fast == full


# Each rule's construct where the pre-checks look for it: both checks refuse it with the same finding.
REFUSED = [
    ('{"a": 1, "a": 2}', DUPLICATE_KEY, "$"),
    ('{"a"\t: 1, "a"\n:2}', DUPLICATE_KEY, "$"),
    ('{"a"  \r\n  :1,"\\u0061":2}', DUPLICATE_KEY, "$"),
    ('{"x": "\\":\\" :", "x" : {"k": [1, 2]}}', DUPLICATE_KEY, "$"),
    ('{"annotations": {"social": 1, "self": 2, "social" :3}}', DUPLICATE_KEY, "$"),
    ('{"a": "\\u0000"}', NUL, "$.a"),
    ('{"a": ["x", "\\ud800"]}', SURROGATE, "$.a[1]"),
    ('{"\\udc00": 1}', SURROGATE, "$.\\udc00"),
    ('{"n": [1, 9223372036854775808]}', INT_RANGE, "$.n[1]"),
    ('{"n": -9223372036854775809}', INT_RANGE, "$.n"),
    ("[" * 65 + "]" * 65, TOO_DEEP, "$" + "[0]" * 15 + "…"),
]


@pytest.mark.parametrize(("text", "template", "path"), REFUSED)
def test_each_rule_is_applied_where_the_pre_checks_look(text, template, path):
    raw = text.encode("utf-8")
    fast, full = check_text(raw), _fully(raw)
    assert fast == full
    assert fast[1].template == template and fast[1].path == path


# What the pre-checks let through without the exact check, and what they send to it to be accepted.
ACCEPTED = [
    '{"a": 1, "b": {"a": 2}}',
    '{"a": "\\\\u0000", "b": "\\\\ud800"}',  # an escaped backslash, then "u0000": text, not an escape
    '{"a": "\\":", "b" : "\\" :"}',  # what looks like a key's end inside a string
    '{"id": "1234567890123456789012", "n": 9223372036854775807, "m": -9223372036854775808}',
    '{"a" \t\n :1}',
    "[" * 64 + "]" * 64,
]


@pytest.mark.parametrize("text", ACCEPTED)
def test_what_the_rules_allow_is_accepted_with_or_without_the_pre_checks(text):
    raw = text.encode("utf-8")
    assert check_text(raw) == _fully(raw)
    assert check_text(raw)[1] is None
