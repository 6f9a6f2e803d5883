"""The raw exports of a batch's Layer3 results, JSON and CSV, streamed in ``str`` chunks (pure Python).

Both take the trials as an iterable that is read once, trial by trial: a batch of 100,000 trials is
never held in memory, and the first chunk (the JSON head, the CSV header) is yielded before the
first trial is read. Later output is gathered into chunks of about ``CHUNK_CHARS`` characters so a
streaming HTTP response does not write one tiny piece per trial.

A trial is ``{"id", "modelConfig", "layer3Metrics"}``; ``layer3Metrics`` is a ``Layer3MetricsV1``
dict (seed 002 §3.1), ``{"version", "evaluatedAt", "error", "path"}`` for a trial whose generated
data could not be parsed, or None for a trial not evaluated yet.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Iterator

from core.spreadsheet_cells import neutralise_formula

CHUNK_CHARS = 64 * 1024

_GV = "generatedValueRelevance"
_TYPE = "w2wrTypeDistribution"
_SEMANTIC = "w2wrSemanticCorrectness"
_DIVERSITY = "widgetDiversity"
_GRAPH = "graphComplexity"

# (column name, path of keys inside layer3Metrics), in the CSV's column order after TRIAL_COLUMNS.
CSV_METRIC_PATHS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("gv_totalItems", (_GV, "totalItems")),
    ("gv_evaluatedItems", (_GV, "evaluatedItems")),
    ("gv_notRelevant", (_GV, "distribution", "notRelevant")),
    ("gv_generic", (_GV, "distribution", "generic")),
    ("gv_useful", (_GV, "distribution", "useful")),
    ("gv_avgScore", (_GV, "avgScore")),
    ("gv_usefulRate", (_GV, "usefulRate")),
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
    ("diversity_uniqueWidgetCount", (_DIVERSITY, "uniqueWidgetCount")),
    ("diversity_entropy", (_DIVERSITY, "entropy")),
    ("diversity_normalizedEntropy", (_DIVERSITY, "normalizedEntropy")),
    ("diversity_maxEntropy", (_DIVERSITY, "maxEntropy")),
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
TRIAL_COLUMNS = ("id", "modelConfig", "status", "error", "errorPath", "evaluatedAt", "evaluatorModel")
CSV_COLUMNS: tuple[str, ...] = TRIAL_COLUMNS + tuple(name for name, _ in CSV_METRIC_PATHS)

STATUS_EVALUATED = "evaluated"
STATUS_ERROR = "error"
STATUS_UNEVALUATED = "unevaluated"


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

    The text equals ``json.dumps({**document, "trials": list(trials)}, ensure_ascii=False, indent=2,
    allow_nan=False)`` plus a final newline (a ``"trials"`` key of ``document`` is replaced). A NaN or
    infinity raises ``ValueError`` (JSON has no such numbers) when the generator reaches it.
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
        yield separator + _json(trial).replace("\n", "\n    ")
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


def _lookup(metrics: dict, path: tuple[str, ...]) -> object:
    value: object = metrics
    for key in path:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


def trial_row(trial: dict) -> list[str]:
    """One trial's CSV cells, in ``CSV_COLUMNS`` order."""
    metrics = trial.get("layer3Metrics")
    if metrics is not None and not isinstance(metrics, dict):
        raise TypeError(
            f"trial {trial.get('id')!r}: layer3Metrics must be an object (Layer3MetricsV1 or an error record) or "
            f"null, got {type(metrics).__name__}"
        )
    metrics = metrics or {}
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
    return [_cell(value) for value in head] + [_cell(_lookup(metrics, path)) for _, path in CSV_METRIC_PATHS]


def iter_csv(trials: Iterable[dict], *, bom: bool = True) -> Iterator[str]:
    """One CSV row per trial under a header row of ``CSV_COLUMNS`` (CRLF line ends, as ``csv`` writes them).

    ``bom`` writes U+FEFF first, so Excel reads the (UTF-8) Japanese text correctly. ``status`` is
    ``evaluated``, ``error`` (``error`` and ``errorPath`` say why) or ``unevaluated``; every absent
    value is an empty cell.
    """
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(CSV_COLUMNS)
    yield ("\ufeff" if bom else "") + buffer.getvalue()
    yield from _in_chunks(_csv_rows(trials))


def _csv_rows(trials: Iterable[dict]) -> Iterator[str]:
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    for trial in trials:
        buffer.seek(0)
        buffer.truncate()
        writer.writerow(trial_row(trial))
        yield buffer.getvalue()
