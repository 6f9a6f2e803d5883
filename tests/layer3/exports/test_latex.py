"""iter_latex: booktabs tables, escaped data, and a document that compiles."""

import re
import shutil
import subprocess

import pytest
from hypothesis import given
from hypothesis import strategies as st

from layer3.exports.formats import iter_latex
from layer3.exports.latex import escape_latex
from tests.layer3.exports.samples import BASELINE, GPT, comparison, different_judges, document, summary

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
    assert (
        "  \\par\\smallskip\n  \\begin{minipage}{\\linewidth}\n    \\raggedright\n"
        "    GV\\_CR and W2WR\\_SC are means over the trials"
    ) in metrics
    assert (
        "\n    \\par\\emph{Judges} (kind:model:prompt) of the judged metrics:\n"
        "    GV\\_CR, GV\\_UR judged by llm:\\allowbreak{}gpt-4o:\\allowbreak{}layer3.gv\\_relevance@1 "
        "(A, B, Overall).\n  \\end{minipage}\n"
    ) in metrics
    assert "\\begin{tabular}{llcrrrllrr}" in statistics
    assert (
        "Mark & \\begin{tabular}[b]{@{}r@{}}$p_A - p_B$\\\\ {[}95\\% CI{]}\\end{tabular} & $D_{\\mathrm{eff}}$ \\\\\n"
    ) in statistics
    assert rows_of(statistics) == [
        "GV\\_CR & A vs B & $U$ & $123.50$ & 0.0123 & 0.0246 & \\begin{tabular}[t]{@{}l@{}}$r$ = $0.420$\\\\ (medium)"
        "\\end{tabular} & $^{*}$ &  &  \\\\",
        "GV\\_UR & A vs B & $z$ & $-2.35$ & $< 0.001$ & $< 0.001$ & \\begin{tabular}[t]{@{}l@{}}$h$ = $-0.610$\\\\ "
        "(medium)\\end{tabular} & $^{***}$ & \\begin{tabular}[t]{@{}r@{}}$-0.123$\\\\ $[-0.251, 0.005]$\\end{tabular} "
        "& $3.59$ \\\\",
    ]
    assert (
        "Bonferroni correction over the seed's family of $m = 110$ comparisons (11 metrics $\\times$ 10 pairs, "
        "seed 002 \\S{}7.2): $\\alpha = 0.05$, $\\alpha' = 0.000455$.\n    Across layers the seed's family is "
        "$m = 210$ ($\\alpha' = 0.000238$)."
    ) in statistics
    assert "2000 replicates resampling whole trials, seed 20260" in statistics
    assert (
        "The $z$-tests treat items as independent while items cluster within trials: where the cluster-bootstrap "
        "interval is wider than the $z$ interval (design effect $> 1$) the $z$-test's $p$ is optimistic, so trust "
        "the bootstrap interval."
    ) in statistics
    assert text.isascii()


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
    assert {len(unescaped_cells(row)) for row in rows_of(statistics)} == {10}
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
    assert row == (
        "GV\\_CR & A vs B & -- & \\multicolumn{4}{l}{\\emph{not performed: n\\_A \\textless{} 2}} &  &  &  \\\\"
    )


def test_none_values_and_holm_correction():
    doc = document(models=["A"], evaluatedAt=None, experimentId="", overall=None)
    doc["statistics"]["summary"] = summary(correction="holm", adjustedAlpha=None)
    text = render(doc)
    assert "Experiment: --; evaluated at: not evaluated." in text
    metrics, statistics = tables(text)
    assert rows_of(metrics)[-1] == "Overall & 20 & " + " & ".join(["--"] * 11) + " \\\\"
    assert (
        "Holm correction over the seed's family of $m = 110$ comparisons (11 metrics $\\times$ 10 pairs, seed 002 "
        "\\S{}7.2): $\\alpha = 0.05$, $\\alpha'$ steps down (Holm: the $k$-th smallest $p$ is compared with "
        "$\\alpha/(m-k+1)$; the comparisons not tested count with $p = 1$)."
    ) in statistics


@pytest.mark.parametrize(
    ("changes", "sentence"),
    [
        ({"family": "tests-run", "familySize": 2, "comparisons": 2, "adjustedAlpha": 0.025},
         "Bonferroni correction over the $m = 2$ tests performed: $\\alpha = 0.05$, $\\alpha' = 0.0250$."),
        ({"family": 1000, "familySize": 1000, "comparisons": 1000, "adjustedAlpha": 0.00005},
         "Bonferroni correction over a family of $m = 1000$ set by the analyst: $\\alpha = 0.05$, "
         "$\\alpha' = 0.0000500$."),
    ],
)  # fmt: skip
def test_the_note_states_the_family_and_its_alpha(changes, sentence):
    doc = document()
    doc["statistics"]["summary"] = summary(**changes)
    (_, statistics) = tables(render(doc))
    assert f"\\emph{{Note.}} {sentence}\n    Across layers the seed's family is $m = 210$" in statistics


def test_a_long_reason_is_listed_under_the_table_and_marked_in_its_row():
    doc = document(comparisons=[different_judges(), different_judges("GV_CR"), comparison(pValue=None, reason="x")])
    (_, statistics) = tables(render(doc))
    refused_ur, refused_cr, short = rows_of(statistics)
    assert refused_ur == (
        "GV\\_UR & A vs B & $z$ & \\multicolumn{4}{l}{\\emph{not performed}$^{\\mathrm{a}}$} &  & -- & -- \\\\"
    )
    assert (
        refused_cr
        == "GV\\_CR & A vs B & $U$ & \\multicolumn{4}{l}{\\emph{not performed}$^{\\mathrm{a}}$} &  &  &  \\\\"
    )
    assert "\\multicolumn{4}{l}{\\emph{not performed: x}}" in short
    assert (
        "\\par\\emph{Not performed:} $^{\\mathrm{a}}$ model A was judged by llm:gpt-4o:layer3.gv\\_relevance@1 and "
        "model B by baseline:baseline-tfidf@1:layer3.gv\\_relevance@1; figures of different judges are not compared.\n"
    ) in statistics


def test_reasons_are_lettered_in_the_order_of_their_rows():
    reasons = [f"a reason long enough to be listed under the table, number {i}" for i in range(28)]
    doc = document(comparisons=[comparison(pValue=None, reason=reason) for reason in reasons])
    (_, statistics) = tables(render(doc))
    marks = re.findall(r"\\emph\{not performed\}\$\^\{\\mathrm\{([a-z]+)\}\}\$", statistics)
    assert marks == [*"abcdefghijklmnopqrstuvwxyz", "aa", "ab"]
    assert "$^{\\mathrm{ab}}$ a reason long enough to be listed under the table, number 27." in statistics


def test_judges_per_config_and_several_judges_in_the_footnote():
    doc = document(models=("A", "B", "C"), gv_judges={"A": (GPT,), "B": (BASELINE,), "C": (GPT, BASELINE)})
    metrics, _ = tables(render(doc))
    rows = rows_of(metrics)
    assert rows[2].startswith("C & 20 & --$^{\\dagger}$ & --$^{\\dagger}$ & 0.600 & -- &")
    assert rows[3].startswith("Overall & 60 & --$^{\\dagger}$ & --$^{\\dagger}$ & 0.600")
    assert rows[0].startswith("A & 20 & 1.000 & 0.500 &")
    assert (
        "GV\\_CR, GV\\_UR judged by llm:gpt-4o:layer3.gv\\_relevance@1 (A) and "
        "baseline:baseline-tfidf@1:layer3.gv\\_relevance@1 (B); several judges, so not shown ($^{\\dagger}$): C "
        "(judged by 2 judges (baseline:baseline-tfidf@1:layer3.gv\\_relevance@1; llm:gpt-4o:layer3.gv\\_relevance@1): "
        "see byJudge); Overall (judged by 2 judges"
    ) in metrics.replace("\\allowbreak{}", "")


def test_nothing_judged_means_no_judge_footnote():
    metrics, _ = tables(render(document(gv_judges={})))
    assert "Judges" not in metrics and "judged by" not in metrics
    assert "GV\\_CR and W2WR\\_SC are means over the trials" in metrics


@pytest.mark.parametrize("label", INJECTIONS)
def test_a_judge_label_is_escaped(label):
    (metrics,) = tables(render(document(models=["A"], comparisons=[], gv_judges={"A": (label,)})))
    assert f"judged by {escape_latex(label)} (A, Overall)." in metrics.replace("\\allowbreak{}", "")
    (several,) = tables(render(document(models=["A"], comparisons=[], gv_judges={"A": (label, "x")})))
    assert escape_latex(label) in several
    for text in (metrics, several):
        note = text.split("\\emph{Judges}")[1]
        stripped = re.sub(
            r"\\(textbackslash|textasciitilde|textasciicircum|textless|textgreater|textbar)\{\}", "", note
        )
        stripped = re.sub(r"\\[&%$#_{}]", "", stripped)
        stripped = stripped.replace("$^{\\dagger}$", "").replace("\\end{minipage}", "").replace("\\end{table}", "")
        stripped = stripped.replace("\\allowbreak{}", "")
        assert not set(stripped) & set("\\&%$#_{}~^<>|"), stripped


ENGINES = [engine for engine in ("pdflatex", "lualatex") if shutil.which(engine)]


@pytest.mark.skipif(not ENGINES, reason="no pdflatex or lualatex on this machine")
@pytest.mark.parametrize("engine", ENGINES or ["none"])
def test_the_output_compiles_in_a_document(engine, tmp_path):
    labels = [label for label in INJECTIONS]
    judges = {label: (f"llm:{label}:p@1",) for label in labels}
    judges[labels[0]] = (GPT, BASELINE, f"llm:{labels[1]}:p@1")  # several judges: no value, a marker
    doc = document(models=labels, comparisons=[comparison(a=label, b="B") for label in labels], gv_judges=judges)
    doc["statistics"]["layer3Comparisons"] += [
        comparison("GC_DEN", test=None, statistic=None, pValue=None, reason="all values tied ~ {x} & 100%"),
        different_judges(a=labels[2], judge_a=f"llm:{labels[3]}:p@1"),
        comparison("W2WR_CR", test="two_proportion_z", difference=0.5, zCi=[0.1, 0.9], clusterBootstrapCi=[-0.1, 1.0],
                   designEffect=2.0, effectSizeType="cohens_h"),
    ]  # fmt: skip
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


def test_a_named_batch_is_titled_by_its_name_and_labelled_by_its_id():
    text = render(document(batchId="7", batchName="pilot_50%"))
    assert "\\subsection*{Layer3 results: pilot\\_50\\%}\nBatch id: 7; Experiment: exp-1;" in text
    assert "\\label{tab:layer3-metrics-7}" in text and "\\label{tab:layer3-statistics-7}" in text
