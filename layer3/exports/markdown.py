"""A batch's Layer3 results as Markdown: GitHub pipe tables and a note (pure Python).

Every text from the data (batch name, experiment id, model labels, metric names, reasons, marks)
goes through ``escape_markdown``: a label cannot close a cell, start emphasis, code, a link or math,
or inject HTML. Number formats are those of ``layer3.exports.tables``; a missing value is "—".
"""

from __future__ import annotations

from collections.abc import Iterator

from core.markdown_text import escape_markdown
from layer3.exports.tables import (
    EFFECT_NAMES,
    EFFECT_SYMBOLS,
    MARK_THRESHOLDS,
    METRIC_COLUMNS,
    TEST_NAMES,
    TEST_SYMBOLS,
    ComparisonRow,
    comparison_rows,
    correction_note,
    metrics_rows,
)

MISSING = "—"


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |\n"


def _or_missing(text: str | None) -> str:
    return MISSING if text is None else text


def iter_markdown(document: dict) -> Iterator[str]:
    """The title, the per-model table, the statistics table and its note, as Markdown text chunks."""
    experiment = document.get("experimentId") or MISSING
    evaluated = document.get("evaluatedAt") or "not evaluated"
    yield f"# Layer3 results: {escape_markdown(document.get('batchId', ''))}\n\n"
    yield f"- Experiment: {escape_markdown(experiment)}\n- Evaluated at: {escape_markdown(evaluated)}\n\n"
    yield from _metrics_table(document)
    yield from _statistics_table(document)


def _metrics_table(document: dict) -> Iterator[str]:
    yield "## Metrics per model configuration\n\n"
    yield _row(["Model", "n"] + [escape_markdown(name) for name, _, _ in METRIC_COLUMNS])
    yield _row([":---"] + ["---:"] * (len(METRIC_COLUMNS) + 1))
    for row in metrics_rows(document):
        label = f"**{escape_markdown(row.label)}**" if row.is_overall else escape_markdown(row.label)
        n = MISSING if row.n is None else escape_markdown(row.n)
        yield _row([label, n] + [_or_missing(value) for value in row.values])
    yield (
        "\nRates and averages to 3 decimals; n is the number of trials (Overall: the sum). "
        + ", ".join(f"{escape_markdown(name)} = {block}.{field}" for name, block, field in METRIC_COLUMNS)
        + ".\n\n"
    )


def _statistics_table(document: dict) -> Iterator[str]:
    yield "## Pairwise comparisons\n\n"
    rows = comparison_rows(document)
    if not rows:
        yield "No pairwise comparisons were made.\n"
        return
    yield _row(["Metric", "Pair", "Test", "Statistic", "p", "Adjusted p", "Effect size", "Mark"])
    yield _row([":---", ":---", ":---:", "---:", "---:", "---:", ":---", ":---:"])
    for row in rows:
        yield _row(_comparison_cells(row))
    yield "\n" + _note(document) + "\n"


def _test_symbol(test: object) -> str:
    return MISSING if test is None else TEST_SYMBOLS.get(test) or escape_markdown(test)


def _comparison_cells(row: ComparisonRow) -> list[str]:
    head = [escape_markdown(row.metric), escape_markdown(row.pair), _test_symbol(row.test)]
    if not row.performed:
        return [*head, f"not performed: {escape_markdown(row.reason)}", MISSING, MISSING, MISSING, ""]
    effect = MISSING
    if row.effect is not None:
        symbol = EFFECT_SYMBOLS.get(row.effect_type) or escape_markdown(row.effect_type or "effect")
        effect = f"{symbol} = {row.effect}"
        if row.magnitude:
            effect += f" ({escape_markdown(row.magnitude)})"
    return [
        *head,
        _or_missing(row.statistic),
        _or_missing(row.p),
        _or_missing(row.adjusted_p),
        effect,
        escape_markdown(row.mark),
    ]


def _note(document: dict) -> str:
    note = correction_note(document)
    alpha = escape_markdown(note.alpha or MISSING)
    if note.adjusted_alpha is not None:
        adjusted = f"α′ = {note.adjusted_alpha}"
    elif note.correction == "Holm":
        adjusted = "α′ steps down (Holm: the k-th smallest p is compared with α / (m − k + 1))"
    else:
        adjusted = f"α′ = {MISSING}"
    comparisons = MISSING if note.comparisons is None else escape_markdown(note.comparisons)
    parts = [
        f"**Note.** {escape_markdown(note.correction)} correction for m = {comparisons} comparisons: "
        f"α = {alpha}, {adjusted}.",
        f"{escape_markdown(note.performed)} of {escape_markdown(note.total)} tests performed, "
        f"{escape_markdown(note.significant)} significant after correction.",
        "Tests: " + "; ".join(f"{symbol} = {TEST_NAMES[test]}" for test, symbol in TEST_SYMBOLS.items()) + ".",
        "p: 3 significant digits, below 0.001 shown as < 0.001; adjusted p after the correction.",
        "Marks: "
        + ", ".join(f"{escape_markdown(mark)} adjusted p < {limit}" for mark, limit in MARK_THRESHOLDS)
        + "; no mark: not significant.",
    ]
    for kind, limits in note.thresholds:
        symbol = EFFECT_SYMBOLS.get(kind) or escape_markdown(kind)
        name = EFFECT_NAMES.get(kind) or escape_markdown(kind)
        parts.append(
            f"Effect size {symbol} ({name}): small / medium / large from \\|{symbol}\\| = {escape_markdown(limits)}."
        )
    return " ".join(parts)
