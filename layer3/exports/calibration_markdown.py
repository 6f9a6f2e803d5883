"""A judge audit's calibration report as GitHub Markdown (pure Python); ``calibration`` says what it shows.

Every text from the report goes through ``escape_markdown``: a name such as ``gpt|4_o`` or reasoning
with ``<script>`` cannot end a cell, start emphasis or inject HTML. Figures are ``calibration_tables``'.
"""

from __future__ import annotations

from core.markdown_text import escape_markdown
from layer3.exports.calibration_tables import (
    CI_NOTE,
    Confusion,
    Figure,
    annotator_rows,
    audit_facts,
    bias_rows,
    calibrated_judges,
    confusion,
    disagreements,
    headline,
    human_figures,
    judge_name,
    judge_rows,
    pair_rows,
    rate,
)

MD_MISSING = "—"


def _md(figure: Figure) -> str:
    text = escape_markdown(figure.text(MD_MISSING))
    if figure.value is None and figure.reason:
        text += f" ({escape_markdown(figure.reason)})"
    return text


def _md_n(n: object) -> str:
    return MD_MISSING if n is None else escape_markdown(n)


def _md_row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |\n"


def calibration_markdown(report: dict) -> str:
    """The report as GitHub Markdown: a title, the audit's facts, then its tables."""
    facts = audit_facts(report, escape_markdown, MD_MISSING)
    top = headline(report)
    human = human_figures(report)
    out = [
        f"# Judge calibration: {facts['name']}\n\n"
        f"- Audit {facts['id']} ({facts['kind']}) of Layer3 batch {facts['batch']}, created {facts['created']}\n"
        f"- Sample: {facts['sample']}" + (f": {facts['annotators']}" if facts["annotators"] else "") + "\n"
        f"- Scale: {facts['scale']}\n"
        f"- Consensus: {facts['consensus']}\n\n"
    ]
    if top.judge is not None:
        out.append(
            f"**Judge κ {_md(top.kappa)} vs human–human κ {_md(top.human_kappa)}** "
            f"({escape_markdown(top.judge)}; quadratic weighted κ, {CI_NOTE}.)\n\n"
        )
    out.append("## The judge against people\n\n")
    out.append(_md_row(["Judge", "n", "κ vs humans", "κ vs consensus", "AC2 vs consensus", "Exact vs consensus",
                        "Exact, reweighted to the batch"]))  # fmt: skip
    out.append(_md_row([":---"] + ["---:"] * 6))
    rows = judge_rows(report)
    has_floor = any(row.baseline for row in rows)
    for row in rows:
        name = escape_markdown(row.name) + (" (offline baseline, floor)" if row.baseline else "")
        out.append(_md_row([name, _md_n(row.n), _md(row.kappa_humans), _md(row.kappa), _md(row.ac2), _md(row.exact),
                            _md(row.exact_reweighted)]))  # fmt: skip
    floor = " The offline baseline judge (a TF-IDF heuristic) is the floor an LLM judge must beat." if has_floor else ""
    out.append(
        "\nκ: quadratic weighted kappa; AC2: Gwet's AC2 (quadratic weights); exact: share of identical scores; "
        f"n: items; {CI_NOTE}.{floor}\n\n"
    )
    out.append("## Agreement between people\n\n")
    out.append(_md_row(["Statistic", "Value"]) + _md_row([":---", "---:"]))
    for label, figure in (("κ (annotator pairs)", human.kappa), ("Krippendorff's α", human.alpha),
                          ("Gwet's AC2", human.ac2), ("Exact agreement", human.exact)):  # fmt: skip
        out.append(_md_row([label, _md(figure)]))
    out.append(f"\nItems rated by two or more people: {_md_n(human.n)}.\n\n")
    pairs = pair_rows(report)
    if pairs:
        out.append(_md_row(["Annotator", "Annotator", "n", "κ"]) + _md_row([":---", ":---", "---:", "---:"]))
        for pair in pairs:
            out.append(_md_row([escape_markdown(pair.first), escape_markdown(pair.second), _md_n(pair.n),
                                _md(pair.kappa)]))  # fmt: skip
        out.append("\n")
    for judge in calibrated_judges(report):
        out.append(_md_judge(judge, report))
    out.append(_md_rate(report))
    return "".join(out)


def _md_judge(judge: dict, report: dict) -> str:
    name = escape_markdown(judge_name(judge))
    out = [f"## {name}\n\n### Against each annotator\n\n"]
    rows = annotator_rows(judge)
    if rows:
        out.append(_md_row(["Annotator", "n", "κ", "AC2", "Exact"]) + _md_row([":---"] + ["---:"] * 4))
        for row in rows:
            out.append(_md_row([escape_markdown(row.annotator), _md_n(row.n), _md(row.kappa), _md(row.ac2),
                                _md(row.exact)]))  # fmt: skip
    else:
        out.append("No annotator has rated an item yet.\n")
    out.append("\n" + _md_confusion(confusion(judge, report)))
    out.append("### Bias per model configuration\n\n")
    bias = bias_rows(judge)
    if bias:
        out.append(_md_row(["Model config", "n", "Mean difference (judge − people)"]))
        out.append(_md_row([":---", "---:", "---:"]))
        for row in bias:
            out.append(_md_row([escape_markdown(row.model_config), _md_n(row.n), _md(row.difference)]))
        out.append("\nA positive difference: the judge scores higher than people do.\n\n")
    else:
        out.append("No model configuration has rated items yet.\n\n")
    out.append("### Items where the judge disagrees with every annotator\n\n")
    items = disagreements(judge, report)
    if not items:
        out.append("None.\n\n")
        return "".join(out)
    out.append(_md_row(["Item", "Model config", "Judge", "People", "Judged unit", "Judge's reasoning"]))
    out.append(_md_row([":---"] * 6))
    for item in items:
        out.append(_md_row([escape_markdown(item.key), escape_markdown(item.model_config), escape_markdown(item.judge),
                            escape_markdown(item.humans), escape_markdown(item.item),
                            escape_markdown(item.reasoning)]))  # fmt: skip
    out.append("\n")
    return "".join(out)


def _md_confusion(matrix: Confusion) -> str:
    rows_are, columns_are = escape_markdown(matrix.rows_are), escape_markdown(matrix.columns_are)
    out = [f"### Confusion matrix (rows: {rows_are}, columns: {columns_are})\n\n"]
    head = [f"{rows_are} / {columns_are}"] + [escape_markdown(f"{v} {label}") for v, label in matrix.labels]
    out.append(_md_row([*head, "Total"]) + _md_row([":---"] + ["---:"] * (len(matrix.labels) + 1)))
    for (value, label), cells, total in matrix.rows:
        counts = [f"**{cell.count}**" if cell.agree else str(cell.count) for cell in cells]
        out.append(_md_row([escape_markdown(f"{value} {label}"), *counts, str(total)]))
    out.append(_md_row(["Total", *(str(t) for t in matrix.column_totals), str(matrix.total)]))
    out.append("\nBold: the judge and the consensus gave the same score.\n\n")
    return "".join(out)


def _md_rate(report: dict) -> str:
    figures = rate(report)
    if figures is None:
        return ""
    label = escape_markdown(figures.label)
    out = [f"## Rate correction: {label}\n\n"]
    out.append(_md_row(["Estimate", label]) + _md_row([":---", "---:"]))
    for key, value in figures.judge_batch:
        out.append(_md_row([f"Judge {escape_markdown(key)} on the whole batch", escape_markdown(value or MD_MISSING)]))
    out.append(_md_row(["Judge on the audited sample", _md(figures.judge_sample) + _md_of(figures.judge_sample)]))
    out.append(_md_row(["People on the audited sample", _md(figures.human) + _md_of(figures.human)]))
    out.append(
        f"\nThe share of units scored {escape_markdown(figures.value)}; the sample estimates are reweighted to the "
        f"batch by the sampling weights, with {CI_NOTE}.\n"
    )
    return "".join(out)


def _md_of(figure: Figure) -> str:
    return "" if figure.n is None else f" (n = {figure.n})"
