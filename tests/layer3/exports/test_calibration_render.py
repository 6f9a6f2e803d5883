"""calibration_markdown and calibration_latex: the calibration report's tables, rounded once, escaped everywhere."""

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from layer3.exports.calibration import (
    calibration_filename,
    calibration_json,
    calibration_latex,
    calibration_markdown,
)
from layer3.exports.calibration_tables import confusion, headline, rate, signed
from tests.layer3.calibration_fixture import SCRIPT, gv_report, hostile, stat, w2wr_report
from tests.layer3.exports.test_markdown import split_cells

ROOT = Path(__file__).resolve().parents[3]


def table_after(text, heading):
    """The pipe-table lines of the first table after ``heading``."""
    rest = text[text.index(heading) :]
    lines = []
    for line in rest.splitlines()[1:]:
        if line.startswith("|"):
            lines.append(line)
        elif lines:
            break
    return lines


def tex_tables(text):
    return re.findall(r"\\begin\{table\}.*?\\end\{table\}", text, flags=re.DOTALL)


def tex_rows(table):
    body = table.split("\\midrule\n")[1].split("\\bottomrule")[0]
    return [line.strip() for line in body.splitlines() if line.strip().endswith("\\\\")]


def tex_cells(row):
    return [cell.strip() for cell in re.split(r"(?<!\\)&", row.removesuffix("\\\\"))]


def test_the_headline_rounds_kappa_to_two_decimals():
    top = headline(gv_report())
    assert top.judge == "gpt-4o-mini @ layer3.gv_relevance@1"
    assert top.kappa.text("–") == "0.71 [0.64, 0.78]" and top.human_kappa.value == "0.74"
    assert headline(w2wr_report()).human_kappa.value is None
    assert "no item has two or more ratings" in headline(w2wr_report()).human_kappa.reason


def test_rates_are_percentages_to_one_decimal_and_differences_carry_their_sign():
    figures = rate(gv_report())
    assert figures.label == "GV useful rate" and figures.headline_batch == "62.0%"
    assert figures.human.text("–") == "55.0% [47.0%, 63.0%]" and figures.human.n == 180
    assert figures.judge_sample.text("–") == "60.4% [54.1%, 66.8%]"
    assert [signed(v) for v in (0.1389, -0.0556, 0.0, -0.001, None)] == ["+0.14", "-0.06", "0.00", "0.00", None]


def test_the_confusion_matrix_has_totals_and_shades_relative_to_its_largest_count():
    report = gv_report()
    matrix = confusion(report["judges"][0], report)
    assert [label for _, label in matrix.labels] == ["not_relevant", "generic", "useful"]
    assert [total for _, _, total in matrix.rows] == [41, 69, 70]
    assert matrix.column_totals == [38, 69, 73] and matrix.total == 180
    cells = [cell for _, row, _ in matrix.rows for cell in row]
    assert [cell.agree for cell in cells] == [True, False, False, False, True, False, False, False, True]
    assert max(cell.level for cell in cells) == 5 == cells[8].level  # 60, the largest
    assert cells[6].level == 1 and cells[0].level == 3  # 1 → the lightest shade above empty; 31 of 60
    empty = confusion({"confusion": {"matrix": [[0, 0, 0]] * 3}}, report)
    assert {cell.level for _, row, _ in empty.rows for cell in row} == {0}


def test_markdown_golden_structure_of_the_gv_report():
    text = calibration_markdown(gv_report())
    assert text.startswith("# Judge calibration: pilot GV audit\n\n- Audit 7 (GV) of Layer3 batch pilot, created ")
    assert "**Judge κ 0.71 \\[0.64, 0.78\\] vs human–human κ 0.74 \\[0.68, 0.79\\]**" in text
    judges = table_after(text, "## The judge against people")
    assert split_cells(judges[0]) == ["Judge", "n", "κ vs humans", "κ vs consensus", "AC2 vs consensus",
                                      "Exact vs consensus", "Exact, reweighted to the batch"]  # fmt: skip
    assert split_cells(judges[2]) == ["gpt-4o-mini @ layer3.gv\\_relevance@1", "180", "0.71 \\[0.64, 0.78\\]",
                                      "0.68 \\[0.60, 0.76\\]", "0.77 \\[0.71, 0.83\\]", "76.1% \\[69.4%, 82.2%\\]",
                                      "74.4% \\[67.2%, 81.0%\\]"]  # fmt: skip
    assert split_cells(judges[3])[0].endswith("(offline baseline, floor)") and len(judges) == 4
    matrix = table_after(text, "### Confusion matrix")
    assert [split_cells(line) for line in matrix[2:]] == [
        ["0 not\\_relevant", "**31**", "8", "2", "41"],
        ["1 generic", "6", "**52**", "11", "69"],
        ["2 useful", "1", "9", "**60**", "70"],
        ["Total", "38", "69", "73", "180"],
    ]
    annotators = table_after(text, "### Against each annotator")
    assert split_cells(annotators[-1])[2] == "— (only 1 common item(s); at least 2 needed)"
    bias = table_after(text, "### Bias per model configuration")
    assert [split_cells(line)[2] for line in bias[2:]] == ["+0.14 \\[+0.02, +0.25\\]", "-0.06 \\[-0.17, +0.06\\]", "—"]
    rates = table_after(text, "## Rate correction: GV useful rate")
    assert split_cells(rates[-1]) == ["People on the audited sample", "55.0% \\[47.0%, 63.0%\\] (n = 180)"]
    assert split_cells(rates[2]) == ["Judge gpt-4o-mini@layer3.gv\\_relevance@1 on the whole batch", "62.0%"]
    disagreements = table_after(text, "### Items where the judge disagrees with every annotator")
    assert len(disagreements) == 4 and split_cells(disagreements[2])[:4] == ["A-00003:g2", "A", "2 useful", "0, 0, 1"]


def test_markdown_of_an_audit_without_human_agreement_says_why_and_has_no_floor():
    text = calibration_markdown(w2wr_report())
    assert "(W2WR)" in text and "Scale: 0 = wrong, 1 = redundant, 2 = correct" in text
    assert "vs human–human κ — (no item has two or more ratings" in text
    assert "floor" not in text and "No annotator" not in text
    assert "w1.selected → w2.center" in text  # the W2WR binding's two ends
    assert "## Rate correction: W2WR correctness rate" in text


def test_a_batch_judged_offline_is_calibrated_through_its_baseline():
    report = gv_report()
    report["judges"] = []
    assert headline(report).judge == "baseline @ layer3.baseline@1"
    text = calibration_markdown(report)
    assert "## baseline @ layer3.baseline@1\n" in text and text.count("### Confusion matrix") == 1
    assert "\\textbf{20} & 15 & 10" in calibration_latex(report)


@pytest.mark.parametrize("render", [calibration_markdown, calibration_latex])
def test_a_report_without_judges_rate_or_rows_still_renders(render):
    bare = {"audit": {"id": 1, "name": "empty", "kind": "gv", "batch": "b"}, "scale": gv_report()["scale"],
            "humans": {}, "judges": [], "baseline": None, "rate": None}  # fmt: skip
    text = render(bare)
    assert "empty" in text and "None" not in text.replace("None.", "")


def test_markdown_escapes_every_name_and_the_reasoning():
    text = calibration_markdown(hostile(gv_report()))
    assert SCRIPT not in text and "<b>" not in text
    assert "\\<script\\>alert(1)\\</script\\>" in text
    for line in text.splitlines():
        if line.startswith("|"):
            assert all("|" not in cell.replace("\\|", "") for cell in split_cells(line)), line
    judges = table_after(text, "## The judge against people")
    assert len({len(split_cells(line)) for line in judges}) == 1  # a pipe in a name does not add a cell
    assert split_cells(judges[2])[0] == "gpt\\|4\\_o %\\& \\<script\\>alert(1)\\</script\\> @ layer3.gv\\_relevance@1"
    assert "# Judge calibration: audit\\_1 \\| 50% \\& \\<script\\>" in text
    assert "cfg\\|A\\_1 \\& 2%" in text and "x\\|y \\<script\\>" in text and "p\\|1" in text
    assert "Specific to the concern \\<script\\>alert(1)\\</script\\> \\& 50% \\| snake\\_case" in text


def test_latex_golden_structure_of_the_gv_report():
    text = calibration_latex(gv_report())
    assert text.startswith("% Judge calibration of audit pilot GV audit (batch pilot), generated by jaiml.\n")
    assert "% Requires \\usepackage{booktabs} in the preamble.\n" in text
    assert "Judge $\\kappa$ = 0.71 [0.64, 0.78] vs human--human $\\kappa$ = 0.74 [0.68, 0.79]" in text
    tables = tex_tables(text)
    assert len(tables) == 6  # judges, humans, annotators, confusion, bias, rate
    for table in tables:
        for command in ("\\toprule", "\\bottomrule", "\\caption{", "\\label{tab:calibration-", "\\centering"):
            assert table.count(command) == 1, command
    judges = tables[0]
    assert "\\begin{tabular}{lrrrrrr}" in judges and "\\multicolumn{4}{c}{vs consensus}" in judges
    rows = tex_rows(judges)
    assert tex_cells(rows[0]) == ["gpt-4o-mini @ layer3.gv\\_relevance@1", "180", "0.71 [0.64, 0.78]",
                                  "0.68 [0.60, 0.76]", "0.77 [0.71, 0.83]", "76.1\\% [69.4\\%, 82.2\\%]",
                                  "74.4\\% [67.2\\%, 81.0\\%]"]  # fmt: skip
    assert "(baseline, floor)" in rows[1] and "\\addlinespace" in judges
    confusion_table = next(t for t in tables if "tab:calibration-confusion-7" in t)
    assert "\\textbf{31} & 8 & 2 & 41" in confusion_table and "Total & 38 & 69 & 73 & 180" in confusion_table
    bias = next(t for t in tables if "tab:calibration-bias-7" in t)
    assert "$+0.14$ [$+0.02$, $+0.25$]" in bias and "$-0.06$ [$-0.17$, $+0.06$]" in bias
    assert "C & 60 & --" in bias
    annotators = next(t for t in tables if "tab:calibration-annotators-7" in t)
    assert "\\emph{--: only 1 common item(s); at least 2 needed.}" in annotators
    rate_table = next(t for t in tables if "tab:calibration-rate-7" in t)
    assert "People, audited sample & 55.0\\% [47.0\\%, 63.0\\%] & 180" in rate_table
    assert "\\begin{itemize}\n  \\item \\texttt{A-00003:g2}" in text


def test_latex_escapes_every_name_and_the_reasoning():
    text = calibration_latex(hostile(gv_report()))
    assert SCRIPT not in text and "<" not in text and ">" not in text
    assert "gpt\\textbar{}4\\_o \\%\\& \\textless{}script\\textgreater{}" in text
    assert "cfg\\textbar{}A\\_1 \\& 2\\%" in text
    assert (
        "Specific to the concern \\textless{}script\\textgreater{}alert(1)\\textless{}/script\\textgreater{} \\& 50\\%"
        in text
    )
    for table in tex_tables(text):
        rows = tex_rows(table)
        widths = {len(tex_cells(row)) for row in rows if "multicolumn" not in row}
        assert len(widths) == 1, table  # no & from the data splits a cell
    for line in text.splitlines():  # no unescaped comment, subscript or parameter character from the data
        if not line.startswith("%"):
            assert not re.search(r"(?<!\\)[%#_]", line), line


def test_json_is_the_report_and_filenames_are_ascii():
    report = hostile(gv_report())
    assert json.loads(calibration_json(report)) == report
    assert calibration_json(report).endswith("}\n") and "\\u" not in calibration_json(gv_report())
    assert calibration_filename("pilot", "markdown", 7) == "layer3-pilot-calibration-7.md"
    assert calibration_filename("転職 b/1", "latex") == "layer3-___b_1-calibration.tex"
    assert calibration_filename("b", "json", None) == "layer3-b-calibration.json"
    with pytest.raises(ValueError, match="csv"):
        calibration_filename("b", "csv")
    with pytest.raises(ValueError):
        calibration_json({"audit": {}, "humans": {"kappa": stat(float("nan"))}})


ENGINES = [engine for engine in ("lualatex", "pdflatex") if shutil.which(engine)]


@pytest.mark.skipif(not ENGINES, reason="no pdflatex or lualatex on this machine")
@pytest.mark.parametrize("engine", ENGINES or ["none"])
def test_the_latex_compiles_in_a_document(engine, tmp_path):
    body = calibration_latex(hostile(gv_report())) + calibration_latex(w2wr_report())
    if engine == "pdflatex":  # no CJK fonts there: the Japanese item text is replaced
        body = re.sub(r"[^\x00-\x7f→]", "?", body).replace("→", "$\\to$")
    (tmp_path / "calibration.tex").write_text(body, encoding="utf-8")
    (tmp_path / "paper.tex").write_text(
        "\\documentclass{article}\n\\usepackage{booktabs}\n"
        + ("\\usepackage{fontspec}\n" if engine == "lualatex" else "\\usepackage[T1]{fontenc}\n")
        + "\\begin{document}\n\\input{calibration}\n\\end{document}\n",
        encoding="utf-8",
    )
    result = subprocess.run(
        [engine, "-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape", "paper.tex"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout[-3000:]


def test_the_renderers_load_no_framework():
    check = (
        "import sys\n"
        "import layer3.exports.calibration, layer3.exports.calibration_tables, layer3.panel.calibration_card\n"
        "from tests.layer3.calibration_fixture import gv_report\n"
        "layer3.exports.calibration.calibration_latex(gv_report())\n"
        "layer3.panel.calibration_card.calibration_cards([gv_report()])\n"
        "print(','.join(sorted(n for n in sys.modules if n.split('.')[0] in ('django', 'rest_framework', 'celery'))))\n"
    )
    result = subprocess.run([sys.executable, "-c", check], cwd=ROOT, capture_output=True, text=True, check=True)
    assert result.stdout.strip() == ""
