"""The raw exports of a batch's Layer3 results, JSON, NDJSON and CSV, streamed in ``str`` chunks (pure Python).

Both take the trials as an iterable that is read once, trial by trial: a batch of 100,000 trials is
never held in memory, and the first chunk (the JSON head, the CSV header) is yielded before the
first trial is read. Later output is gathered into chunks of about ``CHUNK_CHARS`` characters so a
streaming HTTP response does not write one tiny piece per trial.

A trial is ``{"id", "modelConfig", "layer3Metrics"}``; ``layer3Metrics`` is a ``Layer3MetricsV1``
dict (seed 002 §3.1), ``{"version", "evaluatedAt", "error", "path"}`` for a trial whose generated
data could not be parsed, or None for a trial not evaluated yet.

A judged block with no judged item (``evaluatedItems`` / ``evaluatedBindings`` 0) has no score: its
averages and rates go out as null (an empty CSV cell), also for trials stored while the seed's ``|| 1``
guard wrote 0 there (``normalised_metrics``), so "no items" never reads as a measured 0. Each judged
block's judge (``layer3.metrics.provenance``) is a CSV column of its own.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence

from core.spreadsheet_cells import neutralise_formula
from layer3.metrics.provenance import block_judge

CHUNK_CHARS = 64 * 1024

_GV = "generatedValueRelevance"
_TYPE = "w2wrTypeDistribution"
_SEMANTIC = "w2wrSemanticCorrectness"
_DIVERSITY = "widgetDiversity"
_GRAPH = "graphComplexity"

# A judged block's figures that mean nothing without a judged item: (block, count of judged items, figures).
UNSCORED_WITHOUT_ITEMS = (
    (_GV, "evaluatedItems", ("avgScore", "usefulRate")),
    (_SEMANTIC, "evaluatedBindings", ("avgScore", "correctnessRate")),
)


def _judge_of(block: str) -> Callable[[Mapping], str | None]:
    """The label of ``block``'s judge (``kind:model:prompt``, ``unrecorded`` without a record); None without it."""

    def judge(metrics: Mapping) -> str | None:
        part = metrics.get(block)
        return block_judge(part) if isinstance(part, Mapping) else None

    return judge


def _out_of_catalogue(metrics: Mapping) -> str | None:
    """The widget types used but not in the catalogue, joined with a space (None when none or not recorded)."""
    part = metrics.get(_DIVERSITY)
    names = part.get("outOfCatalogue") if isinstance(part, Mapping) else None
    if not isinstance(names, list | tuple) or not names:
        return None
    return " ".join(str(name) for name in names)


# (column name, what it reads from layer3Metrics: a path of keys or a function), in the CSV's column
# order after TRIAL_COLUMNS.
CSV_METRIC_CELLS: tuple[tuple[str, tuple[str, ...] | Callable[[Mapping], object]], ...] = (
    ("gv_totalItems", (_GV, "totalItems")),
    ("gv_evaluatedItems", (_GV, "evaluatedItems")),
    ("gv_notRelevant", (_GV, "distribution", "notRelevant")),
    ("gv_generic", (_GV, "distribution", "generic")),
    ("gv_useful", (_GV, "distribution", "useful")),
    ("gv_avgScore", (_GV, "avgScore")),
    ("gv_usefulRate", (_GV, "usefulRate")),
    ("gv_judge", _judge_of(_GV)),
    ("w2wrType_totalBindings", (_TYPE, "totalBindings")),
    ("w2wrType_flow", (_TYPE, "distribution", "flow")),
    ("w2wrType_meta", (_TYPE, "distribution", "meta")),
    ("w2wrType_sync", (_TYPE, "distribution", "sync")),
    ("w2wrType_unknown", (_TYPE, "distribution", "unknown")),
    ("w2wrType_flowRate", (_TYPE, "ratios", "flow")),
    ("w2wrType_metaRate", (_TYPE, "ratios", "meta")),
    ("w2wrType_syncRate", (_TYPE, "ratios", "sync")),
    ("w2wrSemantic_evaluatedBindings", (_SEMANTIC, "evaluatedBindings")),
    ("w2wrSemantic_correct", (_SEMANTIC, "distribution", "correct")),
    ("w2wrSemantic_redundant", (_SEMANTIC, "distribution", "redundant")),
    ("w2wrSemantic_wrong", (_SEMANTIC, "distribution", "wrong")),
    ("w2wrSemantic_avgScore", (_SEMANTIC, "avgScore")),
    ("w2wrSemantic_correctnessRate", (_SEMANTIC, "correctnessRate")),
    ("w2wrSemantic_judge", _judge_of(_SEMANTIC)),
    ("diversity_uniqueWidgetCount", (_DIVERSITY, "uniqueWidgetCount")),
    ("diversity_entropy", (_DIVERSITY, "entropy")),
    ("diversity_normalizedEntropy", (_DIVERSITY, "normalizedEntropy")),
    ("diversity_maxEntropy", (_DIVERSITY, "maxEntropy")),
    ("diversity_availableWidgetCount", (_DIVERSITY, "availableWidgetCount")),
    ("diversity_outOfCatalogue", _out_of_catalogue),
    ("graph_nodeCount", (_GRAPH, "nodeCount")),
    ("graph_edgeCount", (_GRAPH, "edgeCount")),
    ("graph_density", (_GRAPH, "density")),
    ("graph_avgDegree", (_GRAPH, "avgDegree")),
    ("graph_maxDegree", (_GRAPH, "maxDegree")),
    ("graph_diverge", (_GRAPH, "sectionNodeCounts", "diverge")),
    ("graph_organize", (_GRAPH, "sectionNodeCounts", "organize")),
    ("graph_converge", (_GRAPH, "sectionNodeCounts", "converge")),
    ("graph_crossSectionEdges", (_GRAPH, "crossSectionEdges")),
)
# The columns that are a path of keys (numbers, as stored), for readers that look the values up themselves.
CSV_METRIC_PATHS: tuple[tuple[str, tuple[str, ...]], ...] = tuple(
    (name, reader) for name, reader in CSV_METRIC_CELLS if isinstance(reader, tuple)
)
TRIAL_COLUMNS = ("id", "modelConfig", "status", "error", "errorPath", "evaluatedAt", "evaluatorModel")
# The batch's widget denominator (the results document's widgetTypes), the same on every row: |W| and the
# types outside the catalogue as a JSON array of {"type", "trials", "widgets"}.
BATCH_COLUMNS = ("batch_availableWidgetCount", "batch_outOfCatalogue")
CSV_COLUMNS: tuple[str, ...] = TRIAL_COLUMNS + tuple(name for name, _ in CSV_METRIC_CELLS) + BATCH_COLUMNS

STATUS_EVALUATED = "evaluated"
STATUS_ERROR = "error"
STATUS_UNEVALUATED = "unevaluated"


def normalised_metrics(metrics: object) -> object:
    """``metrics`` with null averages and rates in each judged block that has no judged item.

    Trials stored while the seed's ``|| 1`` guard was in force hold 0 there; a block with 0 judged items
    has no score, whatever is stored. The input is never changed: the blocks that need it are copied
    (and the metrics dict with them), everything else is returned as is.
    """
    if not isinstance(metrics, Mapping):
        return metrics
    changed: dict | None = None
    for block, count, fields in UNSCORED_WITHOUT_ITEMS:
        part = metrics.get(block)
        if not isinstance(part, Mapping) or not _is_zero(part.get(count)):
            continue
        if any(part.get(field) is not None for field in fields):
            changed = changed if changed is not None else dict(metrics)
            changed[block] = {**part, **{field: None for field in fields if field in part}}
    return metrics if changed is None else changed


def normalised_trial(trial: object) -> object:
    """``trial`` with its ``layer3Metrics`` normalised (``normalised_metrics``); the input is not changed."""
    if not isinstance(trial, Mapping):
        return trial
    metrics = trial.get("layer3Metrics")
    normalised = normalised_metrics(metrics)
    return trial if normalised is metrics else {**trial, "layer3Metrics": normalised}


def _is_zero(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and value == 0


def _json(value: object, *, indent: int | None = 2) -> str:
    return json.dumps(value, ensure_ascii=False, indent=indent, allow_nan=False)


def _in_chunks(pieces: Iterable[str], size: int = CHUNK_CHARS) -> Iterator[str]:
    """The pieces joined into chunks of at least ``size`` characters (the last one shorter)."""
    buffer: list[str] = []
    length = 0
    for piece in pieces:
        buffer.append(piece)
        length += len(piece)
        if length >= size:
            yield "".join(buffer)
            buffer.clear()
            length = 0
    if buffer:
        yield "".join(buffer)


def iter_json(document: dict, trials: Iterable[object] | None = None) -> Iterator[str]:
    """``document`` as indented UTF-8 JSON text; with ``trials``, a last key ``"trials"`` streamed item by item.

    The text equals ``json.dumps({**document, "trials": [normalised_trial(t) for t in trials]},
    ensure_ascii=False, indent=2, allow_nan=False)`` plus a final newline (a ``"trials"`` key of
    ``document`` is replaced): a judged block without judged items has null averages and rates, as in
    the CSV. A NaN or infinity raises ``ValueError`` (JSON has no such numbers) when the generator
    reaches it.
    """
    if trials is None:
        yield _json(document) + "\n"
        return
    head = {key: value for key, value in document.items() if key != "trials"}
    # "{\n  ...\n}" without its closing line, so the trials array continues the object.
    yield (_json(head)[:-2] + ",\n" if head else "{\n") + '  "trials": ['
    yield from _in_chunks(_json_array_items(trials))
    yield "\n}\n"


def _json_array_items(trials: Iterable[object]) -> Iterator[str]:
    separator = "\n    "
    empty = True
    for trial in trials:
        # JSON strings never hold a raw newline, so re-indenting by replacing "\n" is exact.
        yield separator + _json(normalised_trial(trial)).replace("\n", "\n    ")
        separator = ",\n    "
        empty = False
    yield "]" if empty else "\n  ]"


def _cell(value: object) -> str:
    """A CSV cell: empty for absent values, numbers exactly as ``repr`` writes them, text neutralised."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return neutralise_formula(value)
    return neutralise_formula(_json(value, indent=None))


def _lookup(metrics: Mapping, path: tuple[str, ...]) -> object:
    value: object = metrics
    for key in path:
        if not isinstance(value, Mapping):
            return None
        value = value.get(key)
    return value


def _read(metrics: Mapping, reader: tuple[str, ...] | Callable[[Mapping], object]) -> object:
    return _lookup(metrics, reader) if isinstance(reader, tuple) else reader(metrics)


def batch_cells(widget_types: Mapping | None) -> list[str]:
    """The ``BATCH_COLUMNS`` cells of a batch's ``widgetTypes`` (empty without it, or without types outside)."""
    if not isinstance(widget_types, Mapping):
        return ["", ""]
    outside = widget_types.get("outOfCatalogue") or None
    return [_cell(widget_types.get("availableWidgetCount")), _cell(outside)]


def trial_row(trial: dict, batch: Sequence[str] = ("", "")) -> list[str]:
    """One trial's CSV cells, in ``CSV_COLUMNS`` order; ``batch``: its ``batch_cells``."""
    metrics = trial.get("layer3Metrics")
    if metrics is not None and not isinstance(metrics, dict):
        raise TypeError(
            f"trial {trial.get('id')!r}: layer3Metrics must be an object (Layer3MetricsV1 or an error record) or "
            f"null, got {type(metrics).__name__}"
        )
    metrics = normalised_metrics(metrics or {})
    if not metrics:
        status = STATUS_UNEVALUATED
    elif "error" in metrics:
        status = STATUS_ERROR
    else:
        status = STATUS_EVALUATED
    head = (
        trial.get("id"),
        trial.get("modelConfig"),
        status,
        metrics.get("error"),
        metrics.get("path"),
        metrics.get("evaluatedAt"),
        metrics.get("evaluatorModel"),
    )
    return [
        *(_cell(value) for value in head),
        *(_cell(_read(metrics, reader)) for _, reader in CSV_METRIC_CELLS),
        *batch,
    ]


def iter_ndjson(trials: Iterable[object]) -> Iterator[str]:
    """One trial per line, ``{"id", "modelConfig", "layer3Metrics"}`` as the JSON export's ``trials`` hold them
    (normalised: a judged block without judged items has null averages and rates), UTF-8, ``\n`` after each.

    A NaN or infinity raises ``ValueError`` (JSON has no such numbers) when the generator reaches it.
    """
    yield from _in_chunks(_json(normalised_trial(trial), indent=None) + "\n" for trial in trials)


def iter_csv(trials: Iterable[dict], *, bom: bool = True, widget_types: Mapping | None = None) -> Iterator[str]:
    """One CSV row per trial under a header row of ``CSV_COLUMNS`` (CRLF line ends, as ``csv`` writes them).

    ``bom`` writes U+FEFF first, so Excel reads the (UTF-8) Japanese text correctly. ``status`` is
    ``evaluated``, ``error`` (``error`` and ``errorPath`` say why) or ``unevaluated``; every absent
    value is an empty cell, and so are the averages and rates of a judged block without judged items.
    ``gv_judge`` / ``w2wrSemantic_judge`` name the judge of the block (``kind:model:prompt``, empty without
    the block); ``diversity_outOfCatalogue`` lists the trial's widget types outside the catalogue,
    space-separated. ``widget_types`` (the results document's ``widgetTypes``) fills ``BATCH_COLUMNS``:
    the batch's ``|W|``, and its types outside the catalogue with their counts as a JSON array (empty
    when there are none).
    """
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(CSV_COLUMNS)
    yield ("\ufeff" if bom else "") + buffer.getvalue()
    yield from _in_chunks(_csv_rows(trials, batch_cells(widget_types)))


def _csv_rows(trials: Iterable[dict], batch: list[str]) -> Iterator[str]:
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    for trial in trials:
        buffer.seek(0)
        buffer.truncate()
        writer.writerow(trial_row(trial, batch))
        yield buffer.getvalue()
