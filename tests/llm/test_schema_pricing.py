"""Pure parts of the gateway: reply parsing and validation, prices and token estimates."""

import pytest

from llm import pricing
from llm.schema import ReplyError, parse_reply, strip_code_fences, validate

SCHEMA = {
    "type": "object",
    "properties": {
        "score": {"type": "integer", "enum": [0, 1, 2]},
        "label": {"type": "string", "enum": ["wrong", "redundant", "correct"]},
        "reasoning": {"type": "string"},
        "tags": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["score", "label", "reasoning"],
    "additionalProperties": False,
}


@pytest.mark.parametrize(
    "text",
    [
        '{"score": 2, "label": "correct", "reasoning": "ok"}',
        '```json\n{"score": 2, "label": "correct", "reasoning": "ok"}\n```',
        '```\n{"score": 2, "label": "correct", "reasoning": "ok"}```',
        'Here is my evaluation:\n{"score": 2, "label": "correct", "reasoning": "ok"}\nThanks.',
    ],
)
def test_replies_in_the_usual_wrappings_parse(text):
    assert parse_reply(text, SCHEMA) == {"score": 2, "label": "correct", "reasoning": "ok"}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty"),
        ("useful", "not JSON"),
        ('{"score": 2, "label": "correct"', "not JSON"),
        ('{"score": "2", "label": "correct", "reasoning": "x"}', '$.score: "2" is not of type integer'),
        ('{"score": 3, "label": "correct", "reasoning": "x"}', "$.score: 3 is not one of 0, 1, 2"),
        ('{"score": true, "label": "correct", "reasoning": "x"}', "$.score: true is not of type integer"),
        ('{"score": 1, "label": "correct"}', "$: missing required key 'reasoning'"),
        ('{"score": 1, "label": "correct", "reasoning": "x", "extra": 1}', "unexpected key 'extra'"),
        ('{"score": 1, "label": "correct", "reasoning": "x", "tags": ["a", 2]}', "$.tags[1]: 2 is not of type string"),
        ("[1, 2]", "$: [1, 2] is not of type object"),
    ],
)
def test_bad_replies_say_where_and_what_is_accepted(text, message):
    with pytest.raises(ReplyError) as error:
        parse_reply(text, SCHEMA)
    assert message in str(error.value)


def test_numbers_ranges_and_lengths():
    schema = {"type": "number", "minimum": 1, "maximum": 5}
    assert validate(3.5, schema) == [] and validate(0, schema) == ["$: 0 is below the minimum 1"]
    assert validate("abc", {"type": "string", "maxLength": 2}) == ["$: text longer than 2 characters"]
    assert strip_code_fences("  plain  ") == "plain"


def test_prices_costs_and_dated_model_names():
    table = pricing.price_table({"gpt-4o": {"input_usd": 2.5, "output_usd": 10}}, usd_jpy=150)
    price = pricing.price_for(table, "gpt-4o-2024-08-06")
    assert price == pricing.Price(2.5, 10.0, 375.0, 1500.0)
    assert price.cost(1_000_000, 500_000) == pytest.approx((7.5, 1125.0))
    assert pricing.price_for(table, "llama3") is None


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"m": 3}, "must be an object"),
        ({"m": {"input_usd": 1}}, "output_usd"),
        ({"m": {"input_usd": -1, "output_usd": 1}}, "negative"),
    ],
)
def test_bad_price_tables_name_the_entry(config, message):
    with pytest.raises(ValueError, match=message):
        pricing.price_table(config, usd_jpy=150)


def test_token_estimates_count_japanese_heavier_than_ascii():
    japanese = pricing.estimate_tokens([{"role": "user", "content": "転職するか迷っています"}])
    english = pricing.estimate_tokens([{"role": "user", "content": "I am torn about a new job"}])
    assert japanese == round(11 * 0.9 + 4) and english == round(25 * 0.3 + 4)
    estimate = pricing.estimate_cost([100, 300], cached=1, output_tokens_per_call=50, calibration=0.5, price=None)
    assert (estimate.calls, estimate.tokens_in, estimate.tokens_out, estimate.cost_usd, estimate.priced) == (
        2, 200, 100, 0.0, False,
    )  # fmt: skip
