"""JavaScript semantics the metrics reproduce: Math.round, Object.keys order, toISOString."""

import math
from datetime import UTC, datetime, timedelta, timezone

import pytest

from layer3.metrics import jscompat
from layer3.metrics.jscompat import is_array_index, js_iso_now, js_iso_timestamp, js_key_order, js_round


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (2.5, 3.0),  # Python's round(2.5) is 2
        (3.5, 4.0),
        (0.5, 1.0),  # round(0.5) is 0
        (-2.5, -2.0),  # halves go towards +infinity, also when negative
        (-3.5, -3.0),
        (-2.6, -3.0),
        (2.4999999999999996, 2.0),
        (0.49999999999999994, 0.0),  # floor(x + 0.5) would give 1 here
        (4503599627370497.0, 4503599627370497.0),  # 2**52 + 1: x + 0.5 would round to the next even double
    ],
)
def test_js_round_takes_halves_towards_plus_infinity_like_math_round(value, expected):
    assert js_round(value, 0) == expected


def test_js_round_of_a_negative_value_under_one_half_gives_a_positive_zero():
    # Math.round(-0.2) is -0, which JSON.stringify writes as 0; Python's -0.0 would be written "-0.0".
    result = js_round(-0.2, 0)
    assert result == 0
    assert math.copysign(1.0, result) == 1.0


def test_js_round_with_decimals_differs_from_python_round_on_exact_binary_halves():
    assert js_round(0.125, 2) == 0.13
    assert round(0.125, 2) == 0.12
    assert js_round(0.03125, 4) == 0.0313
    assert round(0.03125, 4) == 0.0312
    assert js_round(-0.125, 2) == -0.12


def test_js_round_passes_infinity_and_nan_through():
    assert js_round(math.inf, 4) == math.inf
    assert js_round(-math.inf, 4) == -math.inf
    assert math.isnan(js_round(math.nan, 4))


def test_key_order_puts_array_indices_first_in_numeric_order_like_object_keys():
    obj = dict.fromkeys(["b", "10", "2", "a", "01", "-1", "1.5", "4294967295", "4294967294", "0"], 0)
    assert list(js_key_order(obj)) == ["0", "2", "10", "4294967294", "b", "a", "01", "-1", "1.5", "4294967295"]


def test_key_order_without_index_keys_is_the_dict_itself():
    obj = {"b": 1, "a": 2, "9lives": 3}
    assert js_key_order(obj) is obj


@pytest.mark.parametrize(
    ("key", "expected"),
    [
        ("0", True),
        ("42", True),
        ("4294967294", True),
        ("4294967295", False),
        ("007", False),
        ("", False),
        ("１", False),
    ],
)
def test_array_index_is_the_canonical_decimal_form_below_two_to_the_32_minus_one(key, expected):
    assert is_array_index(key) is expected


def test_iso_timestamp_has_milliseconds_and_z_like_to_iso_string():
    moment = datetime(2025, 1, 2, 3, 4, 5, 678901, tzinfo=UTC)
    assert js_iso_timestamp(moment) == "2025-01-02T03:04:05.678Z"


def test_iso_timestamp_converts_other_zones_to_utc():
    tokyo = timezone(timedelta(hours=9))
    assert js_iso_timestamp(datetime(2025, 1, 1, 8, 0, tzinfo=tokyo)) == "2024-12-31T23:00:00.000Z"


def test_iso_timestamp_pads_early_years_to_four_digits():
    assert js_iso_timestamp(datetime(999, 1, 1, tzinfo=UTC)) == "0999-01-01T00:00:00.000Z"


def test_iso_timestamp_refuses_a_naive_datetime():
    with pytest.raises(ValueError, match="timezone-aware"):
        js_iso_timestamp(datetime(2025, 1, 1))


def test_iso_now_is_the_current_utc_time_to_the_millisecond():
    before = datetime.now(UTC)
    stamp = js_iso_now()
    after = datetime.now(UTC)
    moment = datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)
    assert before.replace(microsecond=before.microsecond // 1000 * 1000) <= moment <= after


def test_iso_now_formats_each_new_second_afresh(monkeypatch):
    ticks = iter([1_700_000_000_123_456_789, 1_700_000_000_999_000_000, 1_700_000_001_004_000_000])
    monkeypatch.setattr(jscompat.time, "time_ns", lambda: next(ticks))
    assert [js_iso_now() for _ in range(3)] == [
        "2023-11-14T22:13:20.123Z",
        "2023-11-14T22:13:20.999Z",
        "2023-11-14T22:13:21.004Z",
    ]
