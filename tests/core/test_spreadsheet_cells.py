"""neutralise_formula: text a spreadsheet would run as a formula gets a leading quote, nothing else changes;
the .xlsx forms of a text: exact for a string cell (``xlsx_string``), neutralised (``xlsx_cell_text``)."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.spreadsheet_cells import is_formula_like, neutralise_formula, xlsx_cell_text, xlsx_string


@pytest.mark.parametrize(
    "text",
    [
        '=HYPERLINK("http://x.example","click")',
        "=1+1",
        "+1",
        "-2",
        "@SUM(A1:A2)",
        "=cmd|' /C calc'!A0",
        "\t=1",
        "\tplain",
        "\rplain",
        " =1+1",
        "\n@SUM(A1)",
        "\u3000=1",  # an ideographic space first
        "＝1+1",
        "＋1",
        "－2",
        "＠SUM(A1)",
        "-",
    ],
)
def test_formula_like_text_gets_a_leading_quote(text):
    assert neutralise_formula(text) == "'" + text


@pytest.mark.parametrize(
    "text",
    ["", "A", "モデルA", "1-2", "a=b", "2+2", "'=1+1", " plain", "e-mail", "t-0001", "3.14", "100%", "#REF!"],
)
def test_other_text_is_unchanged(text):
    assert neutralise_formula(text) == text


@given(st.text())
def test_neutralising_twice_changes_nothing_more(text):
    once = neutralise_formula(text)
    assert neutralise_formula(once) == once
    assert once in (text, "'" + text)


@given(st.text())
def test_a_neutralised_cell_is_never_formula_like(text):
    assert not is_formula_like(neutralise_formula(text))


@pytest.mark.parametrize(
    ("text", "exact", "neutralised"),
    [
        ("=1+1", "=1+1", "'=1+1"),
        ("-2+3", "-2+3", "'-2+3"),
        ("\t@SUM(A1)", "\t@SUM(A1)", "'\t@SUM(A1)"),
        ("\r=1\r\nx", "\n=1\nx", "'\n=1\nx"),
        ("a\rb", "a\nb", "a\nb"),
        ("plain", "plain", "plain"),
    ],
)
def test_the_xlsx_forms_of_a_text(text, exact, neutralised):
    assert xlsx_string(text) == exact  # for a cell forced to the string type: shown as it is
    assert xlsx_cell_text(text) == neutralised  # as the exports write it: prefixed, as before
