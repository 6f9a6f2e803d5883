"""A comparison of two Layer3 versions as CSV, Markdown and LaTeX (pure Python; the body is ``Comparison.as_dict``).

- CSV: one long table, its first column ``section``: ``test`` (one row per model config × metric), ``changed``
  (a matched pair whose figure or verdicts changed), ``unmatched`` (a trial without a counterpart). Every text
  cell goes through ``core.spreadsheet_cells.neutralise_formula``, so a trial id such as ``=HYPERLINK(...)``
  is data in a spreadsheet, never a formula; numbers are written as numbers.
- Markdown: the two versions, the matching, the table with the family and α′ under it, the changed trials and
  the unmatched ones; text escaped with ``core.markdown_text.escape_markdown``.
- LaTeX: the table for a paper (booktabs), text escaped with ``layer3.exports.latex.escape_latex``.
"""

from __future__ import annotations

import csv
import io

from core.markdown_text import escape_markdown
from core.spreadsheet_cells import neutralise_formula
from layer3.exports.latex import escape_latex
from layer3.exports.tables import fixed, p_value, significant

COMPARE_FORMATS = ("csv", "markdown", "latex")
MEDIA_TYPES = {
    "csv": "text/csv; charset=utf-8",
    "markdown": "text/markdown; charset=utf-8",
    "latex": "application/x-tex",
}
EXTENSIONS = {"csv": "csv", "markdown": "md", "latex": "tex"}
CSV_COLUMNS = (
    "section", "modelConfig", "metric", "trialA", "trialB", "side", "pairing", "test", "nA", "nB", "valueA",
    "valueB", "difference", "statistic", "pValue", "adjustedPValue", "significant", "judgeA", "judgeB",
    "reasonCode", "reason", "changedItems", "unmatchedReason",
)  # fmt: skip
TEST_NAMES = {
    "wilcoxon_signed_rank": "Wilcoxon",
    "mcnemar_exact": "McNemar (exact)",
    "mcnemar_chi2": "McNemar (chi2, cc)",
    "mann_whitney_u": "Mann–Whitney U",
    "two_proportion_z": "z (2 prop.)",
}


def _cell(value: object) -> object:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value) if isinstance(value, float) else value
    return neutralise_formula(str(value))


def to_csv(document: dict) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(CSV_COLUMNS)
    for row in document["rows"]:
        writer.writerow([_cell(v) for v in _values({"section": "test", **row})])
    for row in document["changed"]:
        writer.writerow([_cell(v) for v in _values({"section": "changed", **row})])
    for row in document["unmatched"]:
        trial = "trialA" if row["side"] == "A" else "trialB"
        values = {"section": "unmatched", "modelConfig": row["modelConfig"], "side": row["side"],
                  "unmatchedReason": row["reason"], trial: row["trialId"]}  # fmt: skip
        writer.writerow([_cell(v) for v in _values(values)])
    return buffer.getvalue()


def _values(row: dict) -> list:
    return [row.get(name) for name in CSV_COLUMNS]


def _side(side: dict) -> str:
    if side.get("runId") is None:
        return f"batch {side['batch']}"
    judge = side.get("runJudge") or "none"
    return f"batch {side['batch']}, run {side['runId']} ({side['runStatus']}, {side['runCreatedAt']}, judge {judge})"


def _number(row: dict, key: str) -> str:
    """A, B or Δ to four decimals (the figures are rates, means and counts), "–" when missing."""
    return fixed(row.get(key), 4) or "–"


def _family(summary: dict | None) -> str:
    if not summary:
        return ""
    alpha_prime = significant(summary["adjustedAlpha"], 3) if summary["adjustedAlpha"] else "–"
    return (
        f"Bonferroni over {summary['familySize']} tests (11 metrics × {len(summary['modelConfigs'])} model configs), "
        f"α = {summary['alpha']:g}, α′ = {alpha_prime}; paired: Wilcoxon signed-rank (continuous), McNemar per item "
        f"(exact below {summary['mcnemarExactBelow']} discordant pairs, else χ² with continuity correction); "
        "unpaired: §7 Mann–Whitney U / two-proportion z."
    )


def _tex_family(summary: dict) -> str:
    alpha_prime = significant(summary["adjustedAlpha"], 3) if summary["adjustedAlpha"] else "--"
    return (
        f"Bonferroni over {summary['familySize']} tests (11 metrics $\\times$ {len(summary['modelConfigs'])} model "
        f"configs), $\\alpha = {summary['alpha']:g}$, $\\alpha' = {alpha_prime}$; paired: Wilcoxon signed-rank "
        f"(continuous), McNemar per item (exact below {summary['mcnemarExactBelow']} discordant pairs, else "
        "$\\chi^2$ with continuity correction); unpaired: Mann--Whitney $U$ / two-proportion $z$ (seed \\S 7)."
    )


def _missing_note(document: dict) -> str | None:
    if not document["snapshotMissing"]:
        return None
    sides = " and ".join(document["snapshotMissing"])
    return f"No per-trial snapshot of run {sides}: it ended before snapshots were kept (or has not ended)."


def to_markdown(document: dict) -> str:
    e = escape_markdown
    lines = ["# Layer3 comparison", "", f"- A: {e(_side(document['a']))}", f"- B: {e(_side(document['b']))}"]
    missing = _missing_note(document)
    if missing:
        return "\n".join([*lines, "", missing, ""])
    match = document["matching"]
    lines += [
        f"- Matching: {e(match['rule'])}; {match['pairs']} pairs ({match['pairsById']} by id, "
        f"{match['pairsByKey']} by key), unmatched {match['unmatchedA']} in A and {match['unmatchedB']} in B",
        "",
        "| Model | Metric | Test | n | A | B | Δ (B − A) | p | adj. p | | Note |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|---|---|",
    ]
    for row in document["rows"]:
        n = row["nA"] if row["nA"] == row["nB"] else f"{row['nA']}/{row['nB']}"
        cells = [e(row["modelConfig"]), row["metric"], TEST_NAMES.get(row["test"], row["test"]), str(n),
                 _number(row, "valueA"), _number(row, "valueB"), _number(row, "difference"),
                 p_value(row["pValue"]) or "–", p_value(row["adjustedPValue"]) or "–", row["mark"],
                 e(row["reason"] or "")]  # fmt: skip
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", e(_family(document["summary"])), "", "## Changed trials", ""]
    if document["changed"]:
        lines += [
            "| Model | Trial A | Trial B | Metric | A | B | Δ | Verdicts changed |",
            "|---|---|---|---|---:|---:|---:|---:|",
        ]
        for row in document["changed"]:
            cells = [e(row["modelConfig"]), e(row["trialA"]), e(row["trialB"]), row["metric"], _number(row, "valueA"),
                     _number(row, "valueB"), _number(row, "difference"), str(row["changedItems"])]  # fmt: skip
            lines.append("| " + " | ".join(cells) + " |")
    else:
        lines.append("None.")
    lines += ["", "## Unmatched trials", ""]
    lines += [
        f"- {row['side']}: {e(row['trialId'])} ({e(row['modelConfig'])}, {row['reason']})"
        for row in document["unmatched"]
    ]
    if not document["unmatched"]:
        lines.append("None.")
    return "\n".join(lines) + "\n"


def _tex_number(row: dict, key: str) -> str:
    text = _number(row, key)
    return "--" if text == "–" else f"${text}$"


def to_latex(document: dict) -> str:
    t = escape_latex
    lines = ["% Layer3 comparison", f"% A: {t(_side(document['a']))}", f"% B: {t(_side(document['b']))}"]
    missing = _missing_note(document)
    if missing:
        return "\n".join([*lines, f"% {t(missing)}", ""])
    lines += [
        "\\begin{table}[htbp]",
        "\\centering",
        "\\small",
        "\\begin{tabular}{llllrrrrl}",
        "\\toprule",
        "Model & Metric & Test & $n$ & A & B & $\\Delta$ & adj.\\ $p$ & \\\\",
        "\\midrule",
    ]
    for row in document["rows"]:
        n = str(row["nA"]) if row["nA"] == row["nB"] else f"{row['nA']}/{row['nB']}"
        adjusted = p_value(row["adjustedPValue"])
        test = t(TEST_NAMES.get(row["test"], row["test"])).replace("–", "--")
        note = t(row["mark"]) if row["mark"] else ("n/a" if row["reason"] else "")
        cells = [t(row["modelConfig"]), t(row["metric"]), test, n, _tex_number(row, "valueA"),
                 _tex_number(row, "valueB"), _tex_number(row, "difference"),
                 f"${adjusted}$" if adjusted else "--", note]  # fmt: skip
        lines.append(" & ".join(cells) + " \\\\")
    lines += [
        "\\bottomrule",
        "\\end{tabular}",
        f"\\caption{{Layer3 comparison, B $-$ A. {_tex_family(document['summary'])}}}",
        "\\end{table}",
        "",
    ]
    return "\n".join(lines)


def render(document: dict, fmt: str) -> str:
    """The comparison in ``fmt`` (one of ``COMPARE_FORMATS``; ValueError naming them otherwise)."""
    if fmt == "csv":
        return to_csv(document)
    if fmt == "markdown":
        return to_markdown(document)
    if fmt == "latex":
        return to_latex(document)
    raise ValueError(f"unknown format {fmt!r}; accepted: {', '.join(COMPARE_FORMATS)}")
