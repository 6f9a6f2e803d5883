"""Issue 41: the API's query parameters, read as the schema states them (``core.api_query``)."""

from datetime import UTC, datetime

import pytest
from django.http import QueryDict
from django.utils import translation

from core import api_query
from core.api_query import Choice, Flag, Integer, Moment, Pattern, QueryRefused, Text, read_query

SIZE = Integer(name="page_size", minimum=1, maximum=1000, default=50)


def refusal(query: str, *params) -> QueryRefused:
    with pytest.raises(QueryRefused) as caught:
        read_query(QueryDict(query), *params)
    return caught.value


def test_a_parameter_left_out_takes_its_default_and_an_undeclared_one_is_ignored():
    assert read_query(QueryDict("other=1"), SIZE, Text(name="q")) == {"page_size": 50, "q": None}


@pytest.mark.parametrize("query", ["page_size=", "page_size=5&page_size=5", "page_size=5&page_size=6"])
def test_a_parameter_given_empty_or_twice_is_refused_naming_it(query):
    assert refusal(query, SIZE).name == "page_size"


def test_the_refusal_is_in_the_readers_language():
    exc = refusal("page_size=1&page_size=2", SIZE)
    with translation.override("en"):
        assert exc.translated() == "given 2 times; give it once"
    with translation.override("ja"):
        assert exc.translated() == "2 回指定されています。1 回だけ指定してください"


@pytest.mark.parametrize("text", ["0", "1001", " 5", "5 ", "5.0", "1e3", "five", "+", "1" * 19])
def test_an_integer_is_digits_within_its_range(text):
    exc = refusal(f"page_size={text}", SIZE)
    assert exc.template == api_query.RANGE and exc.params["minimum"] == 1 and exc.params["maximum"] == 1000


@pytest.mark.parametrize(("text", "value"), [("1", 1), ("1000", 1000), ("%2B7", 7), ("050", 50)])
def test_an_integer_within_its_range_is_read(text, value):
    assert read_query(QueryDict(f"page_size={text}"), SIZE)["page_size"] == value


def test_a_text_has_its_length_and_keeps_its_spaces():
    q = Text(name="q", max_length=3)
    assert read_query(QueryDict("q=%20a%20"), q)["q"] == " a "
    assert refusal("q=abcd", q).template == api_query.TOO_LONG
    assert q.schema() == {"type": "string", "minLength": 1, "maxLength": 3, "pattern": "^[^\\x00]*$"}


def test_a_choice_is_one_of_its_values_exactly():
    status = Choice(name="status", choices=("open", "closed"))
    assert read_query(QueryDict("status=open"), status)["status"] == "open"
    for text in ("Open", " open", "opened"):
        assert refusal(f"status={text}", status).template == api_query.ONE_OF


def test_a_query_flag_takes_true_false_1_0_in_any_case_and_a_form_flag_only_true_or_false():
    query, form = Flag(name="f"), Flag(name="f", spellings=api_query.BOOLEAN_WORDS)
    assert [read_query(QueryDict(f"f={t}"), query)["f"] for t in ("true", "TRUE", "1", "false", "0")] == [
        True, True, True, False, False,
    ]  # fmt: skip
    assert [read_query(QueryDict(f"f={t}"), form)["f"] for t in ("true", "false")] == [True, False]
    for text in ("1", "0", "True", "yes", "on"):
        assert refusal(f"f={text}", form).template == api_query.TRUE_OR_FALSE
    assert refusal("f=yes", query).template == api_query.TRUE_OR_FALSE


def test_a_moment_is_a_date_at_midnight_here_or_an_rfc_3339_time_with_its_offset(settings):
    since = Moment(name="since")
    day = read_query(QueryDict("since=2025-01-31"), since)["since"]
    assert day == datetime(2025, 1, 30, 15, 0, tzinfo=UTC)  # midnight in Asia/Tokyo
    assert settings.TIME_ZONE == "Asia/Tokyo"
    moment = read_query(QueryDict("since=2025-01-31T09:00:00.5%2B09:00"), since)["since"]
    assert moment == datetime(2025, 1, 31, 0, 0, 0, 500000, tzinfo=UTC)
    assert read_query(QueryDict("since=2025-01-31T09:00:00Z"), since)["since"].hour == 9
    for text in ("2025-01-31T09:00:00", "2025-01-31 09:00:00Z", "2025-01-31T09:00Z", "2025-02-30", "yesterday",
                 "2025-01-31T09:00:00 09:00", "20250131"):  # fmt: skip
        assert refusal(f"since={text}", since).template == api_query.MOMENT, text


def test_a_moment_past_the_calendar_in_utc_is_its_first_or_last_instant():
    since = Moment(name="since")
    assert read_query(QueryDict("since=0001-01-01"), since)["since"] == datetime.min.replace(tzinfo=UTC)
    late = read_query(QueryDict("since=9999-12-31T23:59:59-23:59"), since)["since"]
    assert late == datetime.max.replace(tzinfo=UTC)


def test_a_pattern_is_matched_whole_then_read():
    family = Pattern(name="family", pattern=r"seed|[1-9][0-9]{0,2}", reader=lambda t: t if t == "seed" else int(t),
                     message="expected seed or a number, got %(value)s")  # fmt: skip
    assert read_query(QueryDict("family=12"), family)["family"] == 12
    for text in ("seedling", "012", " seed", "1234"):
        assert refusal(f"family={text}", family).params == {"value": repr(text)}


def test_the_schema_of_each_kind_is_what_it_reads():
    assert SIZE.openapi() == {
        "name": "page_size", "in": "query", "required": False,
        "schema": {"type": "integer", "minimum": 1, "maximum": 1000, "default": 50},
    }  # fmt: skip
    assert Choice(name="s", choices=("a", "b")).schema() == {"type": "string", "enum": ["a", "b"]}
    assert Flag(name="f").schema() == {"type": "boolean"}
    assert Moment(name="m").schema()["anyOf"] == [
        {"type": "string", "format": "date"}, {"type": "string", "format": "date-time"},
    ]  # fmt: skip


def test_a_text_holding_a_nul_character_is_refused():
    """PostgreSQL cannot compare a text holding one: a filter on it answered 500 before issue 41."""
    assert refusal("q=a%00b", Text(name="q")).template == api_query.NUL
    assert Text(name="q").schema()["pattern"] == "^[^\\x00]*$"
