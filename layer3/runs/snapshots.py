"""Each run's per-trial figures as they stood when it ended (``Layer3RunResult``), so that two runs compare.

``layer3_metrics`` of a trial holds only its latest figures; when a run ends (succeeded, stopped by its budget
or cancelled: ``SNAPSHOT_STATUSES``), every trial it targeted is copied with its metrics in one
INSERT…SELECT, so a run over 100,000 trials costs one statement and no row passes through Python.
"""

from __future__ import annotations

from django.db import connection, transaction

from layer3.models import Layer3Run, Layer3RunResult, TrialLog
from layer3.runs.options import TARGET_STAGE, EvaluationOptions

SNAPSHOT_STATUSES = (Layer3Run.Status.SUCCEEDED, Layer3Run.Status.STOPPED_BY_BUDGET, Layer3Run.Status.CANCELLED)


def run_results_snapshot(run: Layer3Run) -> int:
    """Store the run's target trials with their current ``layer3_metrics``; returns the rows written."""
    options = EvaluationOptions.from_request(run.options)
    trials = TrialLog.objects.filter(batch_id=run.batch_id, stage=TARGET_STAGE).order_by()  # services.targets
    if options.model_configs:
        trials = trials.filter(model_config__in=options.model_configs)
    select, params = trials.values_list("pk", "layer3_metrics").query.sql_with_params()
    table = connection.ops.quote_name(Layer3RunResult._meta.db_table)
    columns = ", ".join(connection.ops.quote_name(name) for name in ("run_id", "trial_id", "metrics"))
    # The SELECT Django wrote for the run's targets, with the run's id put in front of its columns.
    select = select.replace("SELECT ", f"SELECT {int(run.pk)}, ", 1)
    with transaction.atomic():
        Layer3RunResult.objects.filter(run=run).delete()  # a run ends once; a repeated end replaces, never doubles
        with connection.cursor() as cursor:
            cursor.execute(f"INSERT INTO {table} ({columns}) {select}", params)  # names quoted, the id an int
            return cursor.rowcount
