"""``core.query_params.required_id``: the id a form always sends, refused with the field and what is accepted."""

import pytest
from django.http import QueryDict

from core.query_params import ID_MAX, QueryParamError, required_id


@pytest.mark.parametrize(("text", "expected"), [("1", 1), ("12", 12), (" 7 ", 7), (str(ID_MAX), ID_MAX)])
def test_an_id_given_once_is_read(text, expected):
    assert required_id(QueryDict(f"batch={text}"), "batch") == expected
    assert required_id({"batch": text}, "batch") == expected  # a plain mapping too


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("", "missing: expected a whole number from 1 to 999999999999999999"),
        ("batch=", "missing: expected a whole number from 1 to 999999999999999999"),
        ("batch=%20", "missing: expected a whole number from 1 to 999999999999999999"),
        ("batch=abc", "expected a whole number from 1 to 999999999999999999, got 'abc'"),
        ("batch=0", "expected a whole number from 1 to 999999999999999999, got '0'"),
        ("batch=-1", "expected a whole number from 1 to 999999999999999999, got '-1'"),
        ("batch=1.5", "expected a whole number from 1 to 999999999999999999, got '1.5'"),
        ("batch=%EF%BC%91", "expected a whole number from 1 to 999999999999999999, got '１'"),
        ("batch=" + "9" * 19, "expected a whole number from 1 to 999999999999999999, got '" + "9" * 19 + "'"),
        ("batch=1&batch=1", "given 2 times: give it once"),
        ("batch=1&batch=2&batch=", "given 3 times: give it once"),
    ],
)
def test_anything_else_is_refused_naming_the_field_and_what_is_accepted(query, message):
    with pytest.raises(QueryParamError) as refused:
        required_id(QueryDict(query), "batch")
    assert refused.value.name == "batch" and refused.value.message == message
    assert str(refused.value) == f"batch: {message}"


def test_a_long_value_is_shown_cut():
    with pytest.raises(QueryParamError) as refused:
        required_id(QueryDict("batch=" + "x" * 1000), "batch")
    assert refused.value.message.endswith("got '" + "x" * 40 + "…'")
