"""Reading stored trial metrics for the batch figures and the statistics, without the per-item lists.

A trial's ``Layer3MetricsV1`` holds the per-binding classifications and per-item verdicts; the
aggregation and the tests read only the counts and figures beside them. The lists are removed in
the database (``#-`` on PostgreSQL, ``json_remove`` on SQLite) so that neither the transfer nor the
JSON decoding pays for them: for 10,000 trials this halves the read.
"""

from __future__ import annotations

from django.db import connection
from django.db.models import JSONField
from django.db.models.expressions import RawSQL

from layer3.models import TrialLog

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
