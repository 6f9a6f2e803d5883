"""iter_markdown: GitHub pipe tables that a label cannot break or inject into."""

import pytest

from layer3.exports.formats import iter_markdown
from layer3.exports.markdown import escape_markdown
from tests.layer3.exports.samples import comparison, document, summary

INJECTIONS = ["<script>alert(1)</script>", "a|b", "R&D", "50%", "snake_case", "back\\slash", "{x}", "*bold*",
              "`code`", "[link](http://x.example)", "=HYPERLINK(\"x\")", "+1", "-2", "line\nbreak", "$x$"]  # fmt: skip


def render(doc):
    return "".join(iter_markdown(doc))


def split_cells(line):
    """A pipe-table row's cells as GitHub splits them: ``\\`` escapes the next character."""
    assert line.startswith("| ") and line.endswith(" |")
    cells, current, chars = [], "", iter(line[1:-1])
    for char in chars:
        if char == "\\":
            current += char + next(chars)
        elif char == "|":
            cells.append(current.strip())
            current = ""
        else:
            current += char
    return [*cells, current.strip()]


def table_lines(text):
    return [line for line in text.splitlines() if line.startswith("|")]


def test_golden_structure_of_two_models_and_two_comparisons():
    text = render(document())
    assert text.startswith(
        "# Layer3 results: pilot-2026-11\n\n- Experiment: exp-1\n- Evaluated at: 2026-11-26T10:00:00.000Z\n"
    )
    lines = table_lines(text)
    # metrics: header, delimiter, A, B, Overall; statistics: header, delimiter, two rows
    assert len(lines) == 5 + 4
    assert lines[0] == (
        "| Model | n | GV\\_CR | GV\\_UR | W2WR\\_FR | W2WR\\_MR | W2WR\\_SYR | W2WR\\_SC | W2WR\\_CR | WS\\_ENT "
        "| GC\\_NC | GC\\_EC | GC\\_DEN |"
    )
    assert split_cells(lines[2]) == ["A", "20", "1.000", "0.500", "0.600", "—", "0.100", "—", "—", "2.300",
                                     "5.250", "4.000", "0.200"]  # fmt: skip
    assert split_cells(lines[4])[:3] == ["**Overall**", "40", "1.234"]
    assert split_cells(lines[7]) == [
        "GV\\_CR",
        "A vs B",
        "U",
        "123.50",
        "0.0123",
        "0.0246",
        "r = 0.420 (medium)",
        "\\*",
    ]
    assert split_cells(lines[8]) == ["GV\\_UR", "A vs B", "z", "-2.35", "< 0.001", "< 0.001", "h = -0.610 (medium)",
                                     "\\*\\*\\*"]  # fmt: skip
    note = text.split("**Note.**")[1]
    assert "Bonferroni correction for m = 110 comparisons: α = 0.05, α′ = 0.000455." in note
    assert "\\|r\\| = 0.1 / 0.3 / 0.5" in note and "\\|h\\| = 0.2 / 0.5 / 0.8" in note
    assert "\\*\\*\\* adjusted p < 0.001" in note


def test_every_row_of_a_table_has_as_many_cells_as_its_header():
    doc = document(models=INJECTIONS, comparisons=[comparison(a=label, b="B") for label in INJECTIONS])
    lines = table_lines(render(doc))
    metrics, statistics = lines[: len(INJECTIONS) + 3], lines[len(INJECTIONS) + 3 :]
    assert {len(split_cells(line)) for line in metrics} == {13}
    assert {len(split_cells(line)) for line in statistics} == {8}
    assert len(statistics) == 2 + len(INJECTIONS)


@pytest.mark.parametrize("label", INJECTIONS)
def test_a_label_renders_as_its_own_text(label):
    markdown_it = pytest.importorskip("markdown_it")
    parser = markdown_it.MarkdownIt("commonmark").enable(["table", "strikethrough"])
    html = parser.render(render(document(models=[label], batchId=label, comparisons=[])))
    assert "<script" not in html and "<a " not in html and "<code>" not in html and "<em>" not in html
    shown = " ".join(label.split())
    expected = shown.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
    assert f'<td style="text-align:left">{expected}</td>' in html
    assert f"<h1>Layer3 results: {expected}</h1>" in html
    assert html.count("<tr>") == 1 + 2  # header, the model, Overall


def test_escape_markdown_puts_everything_on_one_line():
    assert escape_markdown("a\r\nb\tc") == "a b c"
    assert escape_markdown("a|b") == "a\\|b"


def test_one_model_and_no_comparisons():
    text = render(document(models=["A"], comparisons=[]))
    assert len(table_lines(text)) == 4
    assert "No pairwise comparisons were made." in text
    assert "**Note.**" not in text


def test_none_values_and_no_evaluation_date_show_dashes():
    doc = document(models=["A"], evaluatedAt=None, experimentId="", overall=None)
    doc["byModel"][0]["layer3"] = None
    text = render(doc)
    assert "- Experiment: —\n- Evaluated at: not evaluated\n" in text
    assert table_lines(text)[3] == "| **Overall** | 20 | " + " | ".join(["—"] * 11) + " |"


def test_a_test_that_was_not_performed_shows_its_reason():
    doc = document(comparisons=[comparison(test=None, statistic=None, pValue=None, reason="nA < 2 | tie")])
    row = split_cells(table_lines(render(doc))[-1])
    assert row == ["GV\\_CR", "A vs B", "—", "not performed: nA \\< 2 \\| tie", "—", "—", "—", ""]


def test_holm_note_explains_the_step_down_threshold():
    doc = document()
    doc["statistics"]["summary"] = summary(correction="holm", adjustedAlpha=None)
    assert "Holm correction for m = 110 comparisons: α = 0.05, α′ steps down" in render(doc)
