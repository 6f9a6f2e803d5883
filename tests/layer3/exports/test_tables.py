"""The number formats and rows that the Markdown and LaTeX tables share."""

import math

import pytest

from layer3.exports.tables import comparison_rows, correction_note, fixed, metrics_rows, p_value, significant
from tests.layer3.exports.samples import comparison, document, summary


@pytest.mark.parametrize(
    ("value", "decimals", "text"),
    [(1.2345, 3, "1.234"), (1.2355, 3, "1.236"), (0.5, 3, "0.500"), (-0.0001, 3, "0.000"), (-2.345, 2, "-2.35"),
     (None, 3, None), (math.nan, 3, None), (2, 3, "2.000")],
)  # fmt: skip
def test_fixed_decimals(value, decimals, text):
    assert fixed(value, decimals) == text


@pytest.mark.parametrize(
    ("value", "text"),
    [(0.0457, "0.0457"), (0.5, "0.500"), (1.0, "1.00"), (0.001, "0.00100"), (0.012345, "0.0123"),
     (0.00099999, "< 0.001"), (0.0, "< 0.001"), (1e-12, "< 0.001"), (None, None), (0.99999, "1.00")],
)  # fmt: skip
def test_p_values_have_three_significant_digits_and_a_floor(value, text):
    assert p_value(value) == text


def test_significant_digits_never_use_exponent_notation():
    assert significant(0.05 / 110) == "0.000455"
    assert significant(0.05 / 10_000) == "0.00000500"
    assert significant(0.00099996) == "0.00100"


def test_overall_n_is_the_sum_of_the_trial_counts():
    doc = document(models=("A", "B", "C"))
    doc["byModel"][2]["trialCount"] = 7
    rows = metrics_rows(doc)
    assert [row.label for row in rows] == ["A", "B", "C", "Overall"]
    assert rows[-1].is_overall and rows[-1].n == 47


def test_missing_blocks_give_missing_values():
    doc = document(models=("A",), overall=None)
    doc["byModel"][0]["layer3"] = {"gvContentRelevance": None}
    rows = metrics_rows(doc)
    assert all(value is None for row in rows for value in row.values)


def test_a_test_without_p_value_is_not_performed_and_keeps_its_reason():
    doc = document(comparisons=[comparison(test=None, statistic=None, pValue=None, reason="no samples in B")])
    (row,) = comparison_rows(doc)
    assert not row.performed and row.reason == "no samples in B"


def test_holm_has_no_single_adjusted_alpha():
    doc = document()
    doc["statistics"]["summary"] = summary(correction="holm", adjustedAlpha=None)
    note = correction_note(doc)
    assert (note.correction, note.alpha, note.adjusted_alpha) == ("Holm", "0.05", None)


def test_no_statistics_gives_no_rows():
    assert comparison_rows(document(statistics=None)) == []
