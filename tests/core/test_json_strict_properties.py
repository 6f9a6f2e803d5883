"""Properties of the strict JSON boundary (``core.json_input.decode_json``, rules of ``core.json_strict``).

For arbitrary values written by ``json.dumps`` the decoder agrees with the standard library wherever the
rules allow the value (depth at most 64, no lone surrogate or NUL in a key or string, integers within
64 bits), and otherwise refuses with an ``InputError`` naming a JSON path; nesting deeper than 64, a
string holding a lone surrogate or NUL, an integer beyond 64 bits and a key given twice (written by hand,
in any spelling and spacing) are always refused. Derandomised and bounded; no example database.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.json_input import decode_json
from core.json_strict import DUPLICATE_KEY, INT_MAX, INT_MIN, INT_RANGE, MAX_DEPTH, NUL, SURROGATE, TOO_DEEP
from core.jsonl import InputError

BOUNDED = settings(
    max_examples=200,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# Characters of every kind, with the ones the rules are about (NUL, both halves of a surrogate pair,
# a character beyond the BMP, JSON's escapes) drawn often.
SPECIAL = ["\x00", "\ud800", "\udbff", "\udc00", "\udfff", "😀", '"', "\\", "\n", "é", "あ", ".", "[", "$"]
CHARACTERS = st.one_of(st.characters(exclude_categories=()), st.sampled_from(SPECIAL))
TEXT = st.text(CHARACTERS, max_size=12)
# no surrogates (category Cs), no NUL
SAFE_TEXT = st.text(st.characters(exclude_categories=("Cs",), exclude_characters="\x00"), max_size=12)
INTEGERS = st.one_of(
    st.integers(min_value=-(2**70), max_value=2**70),
    st.sampled_from([INT_MAX, INT_MAX + 1, INT_MIN, INT_MIN - 1, 10**30, -(10**30), 0]),
)
SCALARS = st.one_of(st.none(), st.booleans(), INTEGERS, st.floats(allow_nan=False, allow_infinity=False), TEXT)
VALUES = st.recursive(
    SCALARS,
    lambda children: st.one_of(st.lists(children, max_size=4), st.dictionaries(TEXT, children, max_size=4)),
    max_leaves=30,
)
SAFE_SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(INT_MIN, INT_MAX), st.floats(allow_nan=False, allow_infinity=False), SAFE_TEXT
)
SAFE_VALUES = st.recursive(
    SAFE_SCALARS,
    lambda children: st.one_of(st.lists(children, max_size=3), st.dictionaries(SAFE_TEXT, children, max_size=3)),
    max_leaves=12,
)
SPACE = st.text(st.sampled_from(" \t\n\r"), max_size=3)  # JSON's whitespace


def _depth(value) -> int:
    """Containers nested in ``value`` (0 for a scalar, 1 for ``[]``)."""
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((_depth(v) for v in value), default=0)
    return 0


def _unsafe_text(value) -> bool:
    if isinstance(value, str):
        return "\x00" in value or any("\ud800" <= c <= "\udfff" for c in value)
    if isinstance(value, dict):
        return any(_unsafe_text(k) or _unsafe_text(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_unsafe_text(v) for v in value)
    return False


def _big_integer(value) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return not INT_MIN <= value <= INT_MAX
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
    return any(_big_integer(v) for v in items)


def _refused(raw: bytes | str) -> list:
    """The problems ``decode_json`` refuses ``raw`` with (failing when it accepts it)."""
    with pytest.raises(InputError) as caught:
        decode_json(raw, source="body")
    problems = caught.value.problems
    assert problems, "an InputError without a problem"
    for problem in problems:
        assert isinstance(problem.path, str) and problem.path.startswith("$"), problem
        # The answer names the place in text any response, log or terminal can hold.
        problem.path.encode("utf-8")
        problem.message.encode("utf-8")
    return problems


@BOUNDED
@given(VALUES, st.booleans())
def test_a_value_round_trips_when_the_rules_allow_it_and_is_refused_with_a_path_otherwise(value, ascii_only):
    text = json.dumps(value, ensure_ascii=ascii_only)
    meaning = json.loads(text)  # what the text says: "\\ud83d\\ude00" is one character, not two halves
    raw = text.encode("utf-8", "surrogatepass")  # a lone surrogate written raw is not UTF-8
    if _depth(meaning) <= MAX_DEPTH and not _unsafe_text(meaning) and not _big_integer(meaning):
        assert decode_json(raw, source="body") == meaning
        return
    problems = _refused(raw)
    if _depth(meaning) > MAX_DEPTH:
        expected = TOO_DEEP
    elif _unsafe_text(meaning):
        expected = (NUL, SURROGATE) if ascii_only else None  # raw, a surrogate is refused as not UTF-8
    else:
        expected = INT_RANGE
    if expected is not None:
        assert problems[0].template in (expected if isinstance(expected, tuple) else (expected,)), problems


@BOUNDED
@given(st.integers(MAX_DEPTH + 1, 3000), st.lists(st.booleans(), min_size=1, max_size=8), SAFE_SCALARS, SPACE)
def test_nesting_deeper_than_64_is_always_refused(depth, kinds, leaf, space):
    opened = closed = ""
    for level in range(depth):
        if kinds[level % len(kinds)]:
            opened, closed = opened + "[" + space, space + "]" + closed
        else:
            opened, closed = opened + '{"k' + str(level) + '":' + space, space + "}" + closed
    problems = _refused(opened + json.dumps(leaf) + closed)
    assert "64" in problems[0].message, problems


@pytest.mark.parametrize(("depth", "accepted"), [(MAX_DEPTH - 1, True), (MAX_DEPTH, True), (MAX_DEPTH + 1, False)])
def test_64_levels_are_accepted_and_65_are_not(depth, accepted):
    raw = "[" * depth + "]" * depth
    if accepted:
        assert _depth(decode_json(raw, source="body")) == depth
    else:
        assert _refused(raw)[0].template == TOO_DEEP


@BOUNDED
@given(TEXT, SAFE_VALUES, st.sampled_from(["value", "key", "nested"]))
def test_a_string_with_a_lone_surrogate_or_a_nul_is_always_refused(text, other, where):
    if not _unsafe_text(json.loads(json.dumps(text))):
        text += "\x00" if len(text) % 2 else "\ud800"
    written = json.dumps(text)  # escapes: \ud800, \u0000
    body = {
        "value": '{"a": ' + json.dumps(other) + ', "b": ' + written + "}",
        "key": "{" + written + ": " + json.dumps(other) + "}",
        "nested": '[{"x": [' + json.dumps(other) + ", " + written + "]}]",
    }[where]
    assert _refused(body)[0].template in (NUL, SURROGATE)


@BOUNDED
@given(
    st.one_of(
        st.integers(max_value=INT_MIN - 1),
        st.integers(min_value=INT_MAX + 1),
        st.integers(19, 400).map(lambda digits: int("9" * digits)),
    ),
    st.booleans(),
    SAFE_VALUES,
)
def test_an_integer_beyond_64_bits_is_always_refused(number, negative, other):
    number = -(abs(number) + 1) if negative else number  # -(INT_MAX + 1) would be INT_MIN, which is allowed
    problems = _refused('{"other": ' + json.dumps(other) + ', "n": [' + str(number) + "]}")
    assert problems[0].template == INT_RANGE and problems[0].path == "$.n[0]", problems


@BOUNDED
@given(st.integers(INT_MIN, INT_MAX))
def test_an_integer_within_64_bits_is_read_exactly(number):
    assert decode_json(str(number), source="body") == number


@BOUNDED
@given(
    st.dictionaries(SAFE_TEXT, SAFE_VALUES, max_size=4),
    SAFE_TEXT,
    SAFE_VALUES,
    SAFE_VALUES,
    st.booleans(),
    st.integers(0, 3),
    SPACE,
    SPACE,
)
def test_a_key_given_twice_is_always_refused(others, key, first, second, escaped, depth, before, after):
    members = [json.dumps(k) + before + ":" + after + json.dumps(v) for k, v in others.items() if k != key]
    # The second time, the key may be spelt with escapes (\u0061 for a): the same key once read.
    again = json.dumps(key, ensure_ascii=True) if escaped else json.dumps(key, ensure_ascii=False)
    if escaped and key:
        again = '"' + "".join(f"\\u{ord(c):04x}" if ord(c) < 0x10000 else c for c in key) + '"'
    members.insert(0, json.dumps(key, ensure_ascii=False) + before + ":" + after + json.dumps(first))
    members.append(again + before + ":" + after + json.dumps(second))
    text = "{" + ("," + after).join(members) + "}"
    for _level in range(depth):
        text = '{"wrap":' + before + "[" + text + "]}"
    assert _refused(text.encode("utf-8", "surrogatepass"))[0].template == DUPLICATE_KEY


@pytest.mark.parametrize(
    ("raw", "path"),
    [
        (b'{"a": 1, "b": 12345678901234567890}', "$.b"),
        (b'{"a": "1234567890123456789012", "b": [99999999999999999999]}', "$.b[0]"),
        (b'{"a"\t: 1, "a": 2}', "$"),
        (b'{"a"\r\n: 1, "a" : 2}', "$"),
        (b'{"a"  : 1, "a": 2}', "$"),
        (b'{"a" \n: 1, "a": 2}', "$"),
    ],
)
def test_the_fast_pre_checks_still_send_big_integers_and_repeated_keys_to_the_exact_checks(raw, path):
    from core.json_strict import check_text

    value, finding = check_text(raw)
    assert value is None and finding is not None and finding.path == path


def test_nineteen_digits_in_a_string_or_below_64_bits_are_accepted():
    from core.json_strict import check_text

    value, finding = check_text(b'{"a": "12345678901234567890", "b": 9223372036854775807, "c": -9223372036854775808}')
    assert finding is None and value["b"] == 2**63 - 1


def _line(value, ascii_only: bool, spacing: str) -> bytes:
    text = json.dumps(value, ensure_ascii=ascii_only, separators=(",", spacing))
    return text.encode("utf-8", "surrogatepass")


@BOUNDED
@given(
    st.lists(st.tuples(VALUES, st.booleans(), st.sampled_from([":", ": ", " : ", "\t:", ":  "])), max_size=8),
    st.lists(st.sampled_from([b"", b"  ", b'{"a": 1, "a": 2}', b'{"a" :1,"a" :2}', b"[1, 2", b'"x"']), max_size=3),
)
def test_a_file_read_in_blocks_is_checked_as_each_line_alone(tmp_path_factory, lines, extra):
    """``read_jsonl`` gives, line by line, what ``check_text`` finds in each line alone."""
    from core.json_strict import BLANK, check_text
    from core.jsonl import Problem, read_jsonl

    raws = [_line(value, ascii_only, spacing) for value, ascii_only, spacing in lines] + extra
    path = tmp_path_factory.mktemp("jsonl") / "f.jsonl"
    path.write_bytes(b"".join(raw + b"\n" for raw in raws))
    expected = []
    for number, raw in enumerate(raws, start=1):
        value, finding = check_text(raw + b"\n", strip_bom=number == 1)
        if value is BLANK:
            continue
        if finding is not None:
            expected.append((number, finding.path, finding.template))
        elif not isinstance(value, dict):
            expected.append((number, "$", "expected a JSON object per line, got %(type_text)s"))
        else:
            expected.append((number, value))
    found = [
        (number, item.path, item.template) if isinstance(item, Problem) else (number, item)
        for number, item in read_jsonl(path)
    ]
    assert found == expected
