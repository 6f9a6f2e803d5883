"""iter_markdown: GitHub pipe tables that a label cannot break or inject into."""

import pytest

from layer3.exports.formats import iter_markdown
from layer3.exports.markdown import escape_markdown
from tests.layer3.exports.samples import BASELINE, GPT, comparison, different_judges, document, summary

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
    assert "\n- GV\\_CR, GV\\_UR judged by llm:gpt-4o:layer3.gv\\_relevance@1 (A, B, Overall).\n" in text
    assert lines[0] == (
        "| Model | n | GV\\_CR | GV\\_UR | W2WR\\_FR | W2WR\\_MR | W2WR\\_SYR | W2WR\\_SC | W2WR\\_CR | WS\\_ENT "
        "| GC\\_NC | GC\\_EC | GC\\_DEN |"
    )
    assert split_cells(lines[2]) == ["A", "20", "1.000", "0.500", "0.600", "—", "0.100", "—", "—", "2.300",
                                     "5.250", "4.000", "0.200"]  # fmt: skip
    assert split_cells(lines[4])[:3] == ["**Overall**", "40", "1.234"]
    assert split_cells(lines[5])[-2:] == ["pA − pB [cluster bootstrap 95% CI]", "Deff"]
    assert split_cells(lines[7]) == [
        "GV\\_CR",
        "A vs B",
        "U",
        "123.50",
        "0.0123",
        "0.0246",
        "r = 0.420 (medium)",
        "\\*",
        "",
        "",
    ]
    assert split_cells(lines[8]) == ["GV\\_UR", "A vs B", "z", "-2.35", "< 0.001", "< 0.001", "h = -0.610 (medium)",
                                     "\\*\\*\\*", "-0.123 [-0.251, 0.005]", "3.59"]  # fmt: skip
    note = text.split("**Note.**")[1]
    assert (
        "Bonferroni correction over the seed's family of m = 110 comparisons (11 metrics × 10 pairs, seed 002 §7.2): "
        "α = 0.05, α′ = 0.000455. Across layers the seed's family is m = 210 (α′ = 0.000238)."
    ) in note
    assert "2000 replicates resampling whole trials, seed 20260" in note
    assert (
        "The z-tests treat items as independent while items cluster within trials: where the cluster-bootstrap "
        "interval is wider than the z interval (design effect > 1) the z-test's p is optimistic, so trust the "
        "bootstrap interval."
    ) in note
    assert "\\|r\\| = 0.1 / 0.3 / 0.5" in note and "\\|h\\| = 0.2 / 0.5 / 0.8" in note
    assert "\\*\\*\\* adjusted p < 0.001" in note


def test_every_row_of_a_table_has_as_many_cells_as_its_header():
    doc = document(models=INJECTIONS, comparisons=[comparison(a=label, b="B") for label in INJECTIONS])
    lines = table_lines(render(doc))
    metrics, statistics = lines[: len(INJECTIONS) + 3], lines[len(INJECTIONS) + 3 :]
    assert {len(split_cells(line)) for line in metrics} == {13}
    assert {len(split_cells(line)) for line in statistics} == {10}
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
    assert row == ["GV\\_CR", "A vs B", "—", "not performed: nA \\< 2 \\| tie", "—", "—", "—", "", "", ""]


def test_holm_note_explains_the_step_down_threshold():
    doc = document()
    doc["statistics"]["summary"] = summary(correction="holm", adjustedAlpha=None)
    assert (
        "Holm correction over the seed's family of m = 110 comparisons (11 metrics × 10 pairs, seed 002 §7.2): "
        "α = 0.05, α′ steps down (Holm: the k-th smallest p is compared with α / (m − k + 1); the comparisons not "
        "tested count with p = 1)."
    ) in render(doc)


@pytest.mark.parametrize(
    ("changes", "sentence"),
    [
        ({}, "Bonferroni correction over the seed's family of m = 110 comparisons (11 metrics × 10 pairs, seed 002 "
             "§7.2): α = 0.05, α′ = 0.000455."),
        ({"family": "tests-run", "familySize": 2, "comparisons": 2, "adjustedAlpha": 0.025},
         "Bonferroni correction over the m = 2 tests performed: α = 0.05, α′ = 0.0250."),
        ({"family": 1000, "familySize": 1000, "comparisons": 1000, "adjustedAlpha": 0.00005},
         "Bonferroni correction over a family of m = 1000 set by the analyst: α = 0.05, α′ = 0.0000500."),
        ({"family": "tests-run", "correction": "holm", "familySize": 2, "comparisons": 2, "adjustedAlpha": None},
         "Holm correction over the m = 2 tests performed: α = 0.05, α′ steps down (Holm: the k-th smallest p is "
         "compared with α / (m − k + 1))."),
    ],
)  # fmt: skip
def test_the_note_states_the_family_and_its_alpha(changes, sentence):
    doc = document()
    doc["statistics"]["summary"] = summary(**changes)
    note = render(doc).split("**Note.** ")[1]
    assert note.startswith(sentence)
    assert "Across layers the seed's family is m = 210 (α′ = 0.000238)." in note


def test_a_test_refused_for_different_judges_shows_the_engines_reason_and_no_interval():
    doc = document(comparisons=[different_judges()])
    row = split_cells(table_lines(render(doc))[-1])
    assert row[3] == (
        "not performed: model A was judged by llm:gpt-4o:layer3.gv\\_relevance@1 and model B by "
        "baseline:baseline-tfidf@1:layer3.gv\\_relevance@1; figures of different judges are not compared"
    )
    assert row[-2:] == ["—", "—"]


def test_only_mann_whitney_tests_leave_out_the_bootstrap_sentence():
    assert "cluster-bootstrap" not in render(document(comparisons=[comparison()])).split("**Note.**")[1]


def test_different_judges_per_config_are_listed_in_the_footnote():
    doc = document(models=("A", "B", "C", "D", "E"), gv_judges={"A": (GPT,), "B": (GPT,), "C": (BASELINE,),
                                                               "D": (BASELINE,), "E": (BASELINE,)})  # fmt: skip
    text = render(doc)
    overall = split_cells(table_lines(text)[7])
    assert overall[:4] == ["**Overall**", "100", "—†", "—†"]
    assert split_cells(table_lines(text)[4])[2:4] == ["1.667", "0.500"]  # C: one judge, shown
    assert (
        "- GV\\_CR, GV\\_UR judged by llm:gpt-4o:layer3.gv\\_relevance@1 (A, B) and "
        "baseline:baseline-tfidf@1:layer3.gv\\_relevance@1 (C, D, E); several judges, so not shown (†): Overall "
        "(judged by 2 judges (baseline:baseline-tfidf@1:layer3.gv\\_relevance@1; llm:gpt-4o:layer3.gv\\_relevance@1): "
        "see byJudge).\n"
    ) in text


def test_a_config_with_several_judges_shows_a_marker_in_its_judged_cells_only():
    doc = document(models=("A", "B"), gv_judges={"A": (GPT,), "B": (GPT, BASELINE)})
    lines = table_lines(render(doc))
    assert split_cells(lines[3]) == ["B", "20", "—†", "—†", "0.600", "—", "0.100", "—", "—", "2.300", "5.250",
                                     "4.000", "0.200"]  # fmt: skip
    assert "†" not in lines[2]


def test_nothing_judged_means_no_footnote():
    assert "judged by" not in render(document(gv_judges={}))
    assert "Judges (kind:model:prompt)" not in render(document(gv_judges={}))


@pytest.mark.parametrize("label", INJECTIONS)
def test_a_judge_label_renders_as_its_own_text(label):
    markdown_it = pytest.importorskip("markdown_it")
    parser = markdown_it.MarkdownIt("commonmark").enable(["table", "strikethrough"])
    doc = document(models=["A"], comparisons=[], gv_judges={"A": (label,)})
    html = parser.render(render(doc))
    assert "<script" not in html and "<a " not in html and "<code>" not in html and "<em>" not in html
    shown = " ".join(label.split())
    expected = shown.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
    assert f"<li>GV_CR, GV_UR judged by {expected} (A, Overall).</li>" in html
    several = parser.render(render(document(models=["A"], comparisons=[], gv_judges={"A": (label, "x")})))
    assert "<script" not in several and "<em>" not in several and html.count("<tr>") == 3


def test_a_named_batch_is_titled_by_its_name_and_says_its_id():
    text = render(document(batchId="7", batchName="pilot <b>|x"))
    assert text.startswith("# Layer3 results: pilot \\<b\\>\\|x\n\n- Batch id: 7\n- Experiment: exp-1\n")
    assert "Batch id" not in render(document(batchId="7", batchName="7"))
