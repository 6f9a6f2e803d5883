"""Reading stored trial metrics for the batch figures and the statistics, without the per-item lists, and
what each trial holds for planning a run.

A trial's ``Layer3MetricsV1`` holds the per-binding classifications and per-item verdicts; the
aggregation and the tests read only the counts and figures beside them. The lists are removed in
the database (``#-`` on PostgreSQL, ``json_remove`` on SQLite) so that neither the transfer nor the
JSON decoding pays for them: for 10,000 trials this halves the read.
"""

from __future__ import annotations

from django.db import connection
from django.db.models import BooleanField, Count, ExpressionWrapper, JSONField, Q
from django.db.models.expressions import RawSQL
from django.db.models.fields.json import KT

from layer3.metrics.provenance import JUDGED_BLOCKS, judge_label
from layer3.models import TrialLog
from layer3.runs.plan import BLOCKS, TrialState

DETAIL_PATHS = (
    ("w2wrTypeDistribution", "bindingClassifications"),
    ("generatedValueRelevance", "itemEvaluations"),
    ("generatedValueRelevance", "judgeErrors"),
    ("w2wrSemanticCorrectness", "bindingEvaluations"),
    ("w2wrSemanticCorrectness", "judgeErrors"),
    ("widgetDiversity", "selectedWidgets"),
)


def _summary_sql() -> str:
    column = f"{connection.ops.quote_name(TrialLog._meta.db_table)}.{connection.ops.quote_name('layer3_metrics')}"
    if connection.vendor == "postgresql":
        return column + "".join(f" #- '{{{a},{b}}}'" for a, b in DETAIL_PATHS)
    return f"json_remove({column}, " + ", ".join(f"'$.{a}.{b}'" for a, b in DETAIL_PATHS) + ")"


def metric_summaries(trials) -> list[tuple[str, dict | None]]:
    """``(model config, Layer3MetricsV1 without the per-item lists, or None)`` per trial, in id order.

    Id order is the order a run evaluates in, so sums over these equal, to the last bit, the sums over
    what the run kept in memory.
    """
    # S611: the SQL is built from fixed table, column and key names, with no user input
    rows = trials.order_by("pk").annotate(summary=RawSQL(_summary_sql(), (), output_field=JSONField()))  # noqa: S611
    return list(rows.values_list("model_config", "summary"))


def without_details(metrics: dict) -> dict:
    """``metrics`` as ``metric_summaries`` reads it from the database (the per-item lists removed)."""
    summary = dict(metrics)
    for block, key in DETAIL_PATHS:
        value = summary.get(block)
        if isinstance(value, dict) and key in value:
            summary[block] = {k: v for k, v in value.items() if k != key}
    return summary


# --- what each trial holds, for planning a run (layer3.runs.plan) -------------------------------------------------
def _flag(lookup: dict) -> ExpressionWrapper:
    return ExpressionWrapper(Q(**lookup), output_field=BooleanField())


def _state_spec() -> list[tuple[str, str, tuple]]:
    """What ``TrialState`` reads of a record, once for both readers: ``(column name, test, its keys)``.

    Tests: ``null`` (no record), ``has`` (a top-level key), ``text`` (the text at a path), ``has_in`` (a key
    of a top-level object).
    """
    spec = [("s_null", "null", ()), ("s_error", "has", ("error",))]
    spec += [(f"s_has{index}", "has", (block,)) for index, block in enumerate(BLOCKS)]
    for key, block in JUDGED_BLOCKS.items():
        spec += [(f"s_{key}_{part}", "text", (block, "judge", part)) for part in ("kind", "model", "prompt")]
        spec.append((f"s_{key}_failed", "has_in", (block, "judgeErrors")))
    return spec


def _state_columns() -> dict:
    """``_state_spec`` as ORM expressions on the record column (any backend)."""
    columns = {}
    for name, test, keys in _state_spec():
        if test == "null":
            columns[name] = _flag({"layer3_metrics__isnull": True})
        elif test == "has":
            columns[name] = _flag({"layer3_metrics__has_key": keys[0]})
        elif test == "text":
            columns[name] = KT("layer3_metrics__" + "__".join(keys))
        else:
            columns[name] = _flag({f"layer3_metrics__{keys[0]}__has_key": keys[1]})
    return columns


def _state_sql() -> tuple[list[str], list[str], list]:
    """``_state_spec`` as SQL on the subquery's copy ``m`` (PostgreSQL): names, expressions, parameters."""
    sql = {"null": "m IS NULL", "has": "m ? %s", "text": "m #>> %s", "has_in": "(m -> %s) ? %s"}
    names, expressions, params = [], [], []
    for name, test, keys in _state_spec():
        names.append(name)
        expressions.append(sql[test])
        params += [list(keys)] if test == "text" else list(keys)
    return names, expressions, params


def _state_rows(trials, *, grouped: bool) -> list[dict]:
    """The ``_state_columns`` of the trials of ``trials`` that hold a record: ``pk`` and ``model_config``
    besides, or ``model_config`` and ``n`` (trials) per distinct state when ``grouped``.

    On PostgreSQL a record is read (de-TOASTed and decompressed) once per row: each of the fifteen
    expressions on the column itself would read the whole document again (100,000 trials: 6.4 s, 0.9 s
    once). A subquery makes one in-memory copy of it (``|| '{}'``; ``OFFSET 0`` keeps the planner from
    folding the subquery back) and the expressions read the copy.
    """
    with_record = trials.filter(layer3_metrics__isnull=False).order_by()
    columns = _state_columns()
    if connection.vendor != "postgresql":
        rows = with_record.annotate(**columns)
        if grouped:
            return list(rows.values("model_config", *columns).annotate(n=Count("pk")))
        return list(rows.values("pk", "model_config", *columns))
    column = f"{connection.ops.quote_name(TrialLog._meta.db_table)}.{connection.ops.quote_name('layer3_metrics')}"
    inner = with_record.annotate(m=RawSQL(f"{column} || '{{}}'::jsonb", (), output_field=JSONField()))  # noqa: S611
    inner_sql, inner_params = inner.values_list("pk", "model_config", "m").query.sql_with_params()
    names, expressions, params = _state_sql()
    keys = ["model_config", *names, "n"] if grouped else ["pk", "model_config", *names]
    lead = "model_config" if grouped else "pk, model_config"
    sql = f"SELECT {lead}, {', '.join(expressions)}"
    sql += ", COUNT(*)" if grouped else ""
    sql += f" FROM ({inner_sql} OFFSET 0) AS s (pk, model_config, m)"
    sql += " GROUP BY " + ", ".join(str(i) for i in range(1, len(names) + 2)) if grouped else ""
    with connection.cursor() as cursor:
        cursor.execute(sql, [*params, *inner_params])
        return [dict(zip(keys, row, strict=True)) for row in cursor.fetchall()]


def _state(values: dict) -> TrialState:
    if values["s_null"]:
        return TrialState()
    if values["s_error"]:
        return TrialState(evaluated=True, error=True)
    present = frozenset(block for index, block in enumerate(BLOCKS) if values[f"s_has{index}"])
    judges, incomplete = [], set()
    for key, block in JUDGED_BLOCKS.items():
        if block not in present:
            continue
        record = {part: values[f"s_{key}_{part}"] for part in ("kind", "model", "prompt")}
        judges.append((block, judge_label(record if record["kind"] is not None else None)))
        if values[f"s_{key}_failed"]:
            incomplete.add(block)
    return TrialState(evaluated=True, present=present, judges=tuple(judges), incomplete=frozenset(incomplete))


def trial_states(trials) -> list[tuple[int, str, TrialState]]:
    """``(pk, model config, TrialState)`` of each trial, in id order, read without the records themselves.

    Trials never evaluated are read apart, by id and config alone: the first run of a batch reads no record.
    """
    never = TrialState()
    states = [
        (pk, config, never)
        for pk, config in trials.filter(layer3_metrics__isnull=True).values_list("pk", "model_config")
    ]
    known: dict[tuple, TrialState] = {}  # a batch's records hold a handful of distinct states: each made once
    for row in _state_rows(trials, grouped=False):
        key = tuple(value for name, value in row.items() if name.startswith("s_"))
        state = known.get(key)
        if state is None:
            state = known[key] = _state(row)
        states.append((row["pk"], row["model_config"], state))
    states.sort(key=lambda state: state[0])
    return states


def grouped_states(trials) -> list[tuple[str, TrialState, int]]:
    """``(model config, TrialState, number of trials)``: the trials grouped by what they hold.

    Trials never evaluated are counted per config alone; only those with a record are grouped by its blocks.
    """
    never = TrialState()
    never_evaluated = trials.filter(layer3_metrics__isnull=True).order_by().values("model_config")
    states = [(row["model_config"], never, row["n"]) for row in never_evaluated.annotate(n=Count("pk"))]
    return states + [(row["model_config"], _state(row), row["n"]) for row in _state_rows(trials, grouped=True)]
