"""A batch's Layer3 results as Markdown: GitHub pipe tables and a note (pure Python).

Every text from the data (batch name, experiment id, model labels, metric names, reasons, marks)
goes through ``escape_markdown``: a label cannot close a cell, start emphasis, code, a link or math,
or inject HTML; judge labels and the statistics engine's reasons too. Number formats are those of
``layer3.exports.tables``; a missing value is "—", and "—†" where several judges scored the cell's
metric (the list under the table names them).
"""

from __future__ import annotations

from collections.abc import Iterator

from core.markdown_text import escape_markdown
from layer3.exports.tables import (
    EFFECT_NAMES,
    EFFECT_SYMBOLS,
    MARK_THRESHOLDS,
    METRIC_COLUMNS,
    SEED_CROSS_LAYER_FAMILY,
    TEST_NAMES,
    TEST_SYMBOLS,
    UNITS_NOTE,
    BootstrapNote,
    ComparisonRow,
    batch_names,
    comparison_rows,
    correction_note,
    family_phrase,
    judge_notes,
    judge_sentence,
    metrics_rows,
    widget_types_note,
)

MISSING = "—"
SEVERAL_JUDGES = "†"  # a judged cell left empty because several judges scored it


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |\n"


def _or_missing(text: str | None) -> str:
    return MISSING if text is None else text


def iter_markdown(document: dict) -> Iterator[str]:
    """The title, the per-model table, the statistics table and its note, as Markdown text chunks."""
    experiment = document.get("experimentId") or MISSING
    evaluated = document.get("evaluatedAt") or "not evaluated"
    name, batch_id = batch_names(document)
    yield f"# Layer3 results: {escape_markdown(name)}\n\n"
    if batch_id is not None:
        yield f"- Batch id: {escape_markdown(batch_id)}\n"
    yield f"- Experiment: {escape_markdown(experiment)}\n- Evaluated at: {escape_markdown(evaluated)}\n\n"
    yield from _metrics_table(document)
    yield from _widget_types(document)
    yield from _statistics_table(document)


def _widget_types(document: dict) -> Iterator[str]:
    note = widget_types_note(document)
    if note is None:
        return
    yield "## Widget types (\\|W\\| of the widget entropy)\n\n"
    yield note.sentence(escape_markdown, "\\|W\\|") + "\n\n"
    if note.outside:
        yield _row(["Widget type outside the catalogue", "Trials", "Widgets"])
        yield _row([":---", "---:", "---:"])
        for name, trials, widgets in note.outside:
            yield _row([escape_markdown(name), escape_markdown(trials), escape_markdown(widgets)])
        yield "\n"


def _metrics_table(document: dict) -> Iterator[str]:
    yield "## Metrics per model configuration\n\n"
    yield _row(["Model", "n"] + [escape_markdown(name) for name, _, _ in METRIC_COLUMNS])
    yield _row([":---"] + ["---:"] * (len(METRIC_COLUMNS) + 1))
    rows = metrics_rows(document)
    for row in rows:
        label = f"**{escape_markdown(row.label)}**" if row.is_overall else escape_markdown(row.label)
        n = MISSING if row.n is None else escape_markdown(row.n)
        cells = [
            MISSING + SEVERAL_JUDGES if mixed else _or_missing(value)
            for value, mixed in zip(row.values, row.several, strict=True)
        ]
        yield _row([label, n, *cells])
    yield (
        "\nRates and averages to 3 decimals; n is the number of trials (Overall: the sum). "
        + ", ".join(f"{escape_markdown(name)} = {block}.{field}" for name, block, field in METRIC_COLUMNS)
        + ". "
        + escape_markdown(UNITS_NOTE)
        + "\n\n"
    )
    notes = judge_notes(rows)
    if notes:
        yield "Judges (kind:model:prompt) of the judged metrics:\n\n"
        for note in notes:
            yield "- " + judge_sentence(note, escape_markdown, SEVERAL_JUDGES) + "\n"
        yield "\n"


def _statistics_table(document: dict) -> Iterator[str]:
    yield "## Pairwise comparisons\n\n"
    rows = comparison_rows(document)
    if not rows:
        yield "No pairwise comparisons were made.\n"
        return
    yield _row(
        ["Metric", "Pair", "Test", "Statistic", "p", "Adjusted p", "Effect size", "Mark", DIFFERENCE_HEADER, "Deff"]
    )
    yield _row([":---", ":---", ":---:", "---:", "---:", "---:", ":---", ":---:", "---:", "---:"])
    for row in rows:
        yield _row(_comparison_cells(row))
    yield "\n" + _note(document, rows) + "\n"


def _test_symbol(test: object) -> str:
    return MISSING if test is None else TEST_SYMBOLS.get(test) or escape_markdown(test)


DIFFERENCE_HEADER = "pA − pB [cluster bootstrap 95% CI]"


def _difference_cells(row: ComparisonRow) -> list[str]:
    """The rate difference with its cluster-bootstrap interval, and the design effect (proportion tests only)."""
    if not row.proportion:
        return ["", ""]
    difference = _or_missing(row.difference)
    if row.bootstrap_ci is not None:
        difference += f" [{row.bootstrap_ci[0]}, {row.bootstrap_ci[1]}]"
    return [difference, _or_missing(row.design_effect)]


def _comparison_cells(row: ComparisonRow) -> list[str]:
    head = [escape_markdown(row.metric), escape_markdown(row.pair), _test_symbol(row.test)]
    if not row.performed:
        return [
            *head,
            f"not performed: {escape_markdown(row.reason)}",
            MISSING,
            MISSING,
            MISSING,
            "",
            *_difference_cells(row),
        ]
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
        *_difference_cells(row),
    ]


def _note(document: dict, rows: list[ComparisonRow]) -> str:
    note = correction_note(document)
    alpha = escape_markdown(note.alpha or MISSING)
    if note.adjusted_alpha is not None:
        adjusted = f"α′ = {note.adjusted_alpha}"
    elif note.correction == "Holm":
        adjusted = "α′ steps down (Holm: the k-th smallest p is compared with α / (m − k + 1)"
        adjusted += "; the comparisons not tested count with p = 1)" if note.untested_count_as_one else ")"
    else:
        adjusted = f"α′ = {MISSING}"
    family = family_phrase(note, lambda size: f"m = {MISSING if size is None else escape_markdown(size)}")
    parts = [f"**Note.** {escape_markdown(note.correction)} correction {family}: α = {alpha}, {adjusted}."]
    if note.cross_layer_alpha is not None:
        parts.append(
            f"Across layers the seed's family is m = {SEED_CROSS_LAYER_FAMILY} (α′ = {note.cross_layer_alpha})."
        )
    parts += [
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
    if any(row.proportion for row in rows):
        parts.append(_bootstrap_note(note.bootstrap))
    return " ".join(parts)


def _bootstrap_note(bootstrap: BootstrapNote | None) -> str:
    """What the difference columns hold, and which interval to trust."""
    how = "percentile"
    if bootstrap is not None:
        how += (
            f"; {escape_markdown(bootstrap.replicates)} replicates resampling whole {escape_markdown(bootstrap.unit)}s"
            f", seed {escape_markdown(bootstrap.seed)}"
        )
    level = escape_markdown(bootstrap.level if bootstrap is not None else "95%")
    return (
        f"pA − pB: the difference of the two rates, with its {level} cluster-bootstrap confidence interval ({how}); "
        "Deff: the design effect, (bootstrap SE / z SE)². "
        "The z-tests treat items as independent while items cluster within trials: where the cluster-bootstrap "
        "interval is wider than the z interval (design effect > 1) the z-test's p is optimistic, so trust the "
        "bootstrap interval."
    )
