"""iter_latex: booktabs tables, escaped data, and a document that compiles."""

import re
import shutil
import subprocess

import pytest
from hypothesis import given
from hypothesis import strategies as st

from layer3.exports.formats import iter_latex
from layer3.exports.latex import escape_latex
from tests.layer3.exports.samples import comparison, document, summary

SPECIALS = "\\&%$#_{}~^<>|"
INJECTIONS = ["<script>alert(1)</script>", "a|b", "R&D", "50%", "snake_case", "back\\slash", "{x}", "~^",
              "#1", "$x$", "=HYPERLINK(\"x\")", "+1", "-2", "line\n\nbreak", "\\end{tabular}", "a%b"]  # fmt: skip


def render(doc):
    return "".join(iter_latex(doc))


def rows_of(table):
    """The body rows between \\midrule and \\bottomrule (lines ending with ``\\\\``)."""
    body = table.split("\\midrule\n")[1].split("\\bottomrule")[0]
    return [line.strip() for line in body.splitlines() if line.strip().endswith("\\\\")]


def tables(text):
    return re.findall(r"\\begin\{table\}.*?\\end\{table\}", text, flags=re.DOTALL)


def unescaped_cells(row):
    """A row's cells split on unescaped ``&``."""
    return re.split(r"(?<!\\)&", row.removesuffix("\\\\"))


def test_golden_structure_of_two_models_and_two_comparisons():
    text = render(document())
    assert text.startswith("% Layer3 results of batch pilot-2026-11")
    assert "% Requires \\usepackage{booktabs} in the preamble.\n" in text
    assert (
        "\\subsection*{Layer3 results: pilot-2026-11}\nExperiment: exp-1; evaluated at: 2026-11-26T10:00:00.000Z."
        in text
    )
    metrics, statistics = tables(text)
    for table in (metrics, statistics):
        for command in ("\\toprule", "\\midrule", "\\bottomrule", "\\caption{", "\\label{tab:layer3-", "\\centering"):
            assert table.count(command) == 1, command
    assert "\\begin{tabular}{lrrrrrrrrrrrr}" in metrics
    assert (
        "    \\toprule\n"
        "     &  & \\multicolumn{2}{c}{GV} & \\multicolumn{5}{c}{W2WR} & \\multicolumn{1}{c}{WS} "
        "& \\multicolumn{3}{c}{GC} \\\\\n"
        "    \\cmidrule(lr){3-4} \\cmidrule(lr){5-9} \\cmidrule(lr){10-10} \\cmidrule(lr){11-13}\n"
        "    Model & $n$ & CR & UR & FR & MR & SYR & SC & CR & ENT & NC & EC & DEN \\\\\n"
        "    \\midrule\n"
    ) in metrics
    assert rows_of(metrics) == [
        "A & 20 & 1.000 & 0.500 & 0.600 & -- & 0.100 & -- & -- & 2.300 & 5.250 & 4.000 & 0.200 \\\\",
        "B & 20 & 1.333 & 0.500 & 0.600 & -- & 0.100 & -- & -- & 2.300 & 5.250 & 4.000 & 0.200 \\\\",
        "Overall & 40 & 1.234 & 0.500 & 0.600 & -- & 0.100 & -- & -- & 2.300 & 5.250 & 4.000 & 0.200 \\\\",
    ]
    assert "\\begin{tabular}{llcrrrll}" in statistics
    assert rows_of(statistics) == [
        "GV\\_CR & A vs B & $U$ & $123.50$ & 0.0123 & 0.0246 & $r$ = $0.420$ (medium) & $^{*}$ \\\\",
        "GV\\_UR & A vs B & $z$ & $-2.35$ & $< 0.001$ & $< 0.001$ & $h$ = $-0.610$ (medium) & $^{***}$ \\\\",
    ]
    assert "Bonferroni correction for $m = 110$ comparisons: $\\alpha = 0.05$, $\\alpha' = 0.000455$." in statistics


@pytest.mark.parametrize(
    ("text", "escaped"),
    [("\\", "\\textbackslash{}"), ("&", "\\&"), ("%", "\\%"), ("$", "\\$"), ("#", "\\#"), ("_", "\\_"),
     ("{", "\\{"), ("}", "\\}"), ("~", "\\textasciitilde{}"), ("^", "\\textasciicircum{}"), ("<", "\\textless{}"),
     (">", "\\textgreater{}"), ("|", "\\textbar{}"), ("a\\b{c}", "a\\textbackslash{}b\\{c\\}"), ("a\n\nb", "a b"),
     ("モデルA", "モデルA")],
)  # fmt: skip
def test_escape_latex(text, escaped):
    assert escape_latex(text) == escaped


@given(st.text())
def test_escaped_text_has_no_active_character_left(text):
    escaped = escape_latex(text)
    for command in ("\\textbackslash{}", "\\textasciitilde{}", "\\textasciicircum{}", "\\textless{}",
                    "\\textgreater{}", "\\textbar{}"):  # fmt: skip
        escaped = escaped.replace(command, "")
    escaped = re.sub(r"\\[&%$#_{}]", "", escaped)
    assert not set(escaped) & set(SPECIALS + "\n\r")


def test_every_label_is_escaped_and_rows_keep_their_cell_count():
    doc = document(models=INJECTIONS, comparisons=[comparison(a=label, b="B") for label in INJECTIONS])
    doc["batchId"] = doc["experimentId"] = "50% of {x}_y"
    text = render(doc)
    metrics, statistics = tables(text)
    assert {len(unescaped_cells(row)) for row in rows_of(metrics)} == {13}
    assert {len(unescaped_cells(row)) for row in rows_of(statistics)} == {8}
    assert len(rows_of(metrics)) == len(INJECTIONS) + 1
    for label in INJECTIONS:
        assert escape_latex(label) in metrics
    assert "\\end{tabular}" not in escape_latex("\\end{tabular}")
    assert "50\\% of \\{x\\}\\_y" in text
    assert "\\label{tab:layer3-metrics-50--of--x--y}" in metrics


def test_one_model_and_no_comparisons_gives_one_table():
    text = render(document(models=["A"], comparisons=[]))
    (metrics,) = tables(text)
    assert len(rows_of(metrics)) == 2
    assert "No pairwise comparisons were made." in text


def test_a_test_that_was_not_performed_shows_its_reason_across_the_result_columns():
    doc = document(comparisons=[comparison(test=None, statistic=None, pValue=None, reason="n_A < 2")])
    (_, statistics) = tables(render(doc))
    (row,) = rows_of(statistics)
    assert row == "GV\\_CR & A vs B & -- & \\multicolumn{4}{l}{\\emph{not performed: n\\_A \\textless{} 2}} &  \\\\"


def test_none_values_and_holm_correction():
    doc = document(models=["A"], evaluatedAt=None, experimentId="", overall=None)
    doc["statistics"]["summary"] = summary(correction="holm", adjustedAlpha=None)
    text = render(doc)
    assert "Experiment: --; evaluated at: not evaluated." in text
    metrics, statistics = tables(text)
    assert rows_of(metrics)[-1] == "Overall & 20 & " + " & ".join(["--"] * 11) + " \\\\"
    assert "Holm correction for $m = 110$ comparisons: $\\alpha = 0.05$, $\\alpha'$ steps down" in statistics


ENGINES = [engine for engine in ("pdflatex", "lualatex") if shutil.which(engine)]


@pytest.mark.skipif(not ENGINES, reason="no pdflatex or lualatex on this machine")
@pytest.mark.parametrize("engine", ENGINES or ["none"])
def test_the_output_compiles_in_a_document(engine, tmp_path):
    labels = [label for label in INJECTIONS]
    doc = document(models=labels, comparisons=[comparison(a=label, b="B") for label in labels])
    doc["statistics"]["layer3Comparisons"].append(
        comparison("GC_DEN", test=None, statistic=None, pValue=None, reason="all values tied ~ {x} & 100%")
    )
    doc["batchId"] = "pilot_2026 #1 {x} 50% \\"
    (tmp_path / "layer3.tex").write_text(render(doc), encoding="utf-8")
    (tmp_path / "paper.tex").write_text(
        "\\documentclass{article}\n\\usepackage{booktabs}\n\\begin{document}\n\\input{layer3.tex}\n"
        "See Table~\\ref{tab:layer3-metrics-pilot-2026--1--x--50---}.\n\\end{document}\n",
        encoding="utf-8",
    )
    result = subprocess.run(
        [engine, "-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape", "paper.tex"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout[-3000:]
    assert (tmp_path / "paper.pdf").exists()
    assert "Undefined control sequence" not in result.stdout
