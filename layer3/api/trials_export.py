"""``GET batch/<batchId>/export/trials.jsonl|csv``: a batch's trials with their stored metrics, streamed (researchers).

The CSV is the per-trial CSV of ``layer3-export?format=csv`` (``export_layer3 --format csv``), the same bytes
and file name: one row per trial, ``CSV_COLUMNS``, a BOM, formula-like texts neutralised. The NDJSON holds one
trial per line, ``{"id", "modelConfig", "layer3Metrics"}`` as the JSON export's ``trials`` (null metrics for a
trial not evaluated yet). Trials are read from the database in chunks and written as they come, in id order;
``?modelConfig=`` keeps one model's. A batch not evaluated yet answers its trials too (status ``unevaluated``).
"""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.views import APIView

from core import api_query
from core.api_files import AnyAccept, attachment
from core.permissions import IsResearcher
from layer3.api import query
from layer3.api.errors import error_response as _error
from layer3.api.errors import query_refused
from layer3.exports.formats import MEDIA_TYPES, iter_csv, iter_ndjson, trials_filename
from layer3.models import TrialLog
from layer3.selectors import BatchNotFound, batch_get, trials_for_export, widget_types_document

JSONL_CONTENT_TYPE = "application/x-ndjson; charset=utf-8"


class _TrialsExport(APIView):
    permission_classes = [IsResearcher]
    content_negotiation_class = AnyAccept  # a file whatever the client accepts; refusals in JSON
    extension = ".csv"

    def get(self, request, batch_id: str):
        try:
            batch = batch_get(batch_id) if "\x00" not in batch_id else None
        except BatchNotFound as exc:
            return _error(status.HTTP_404_NOT_FOUND, str(exc))
        if batch is None:  # no name holds a NUL character
            return _error(status.HTTP_404_NOT_FOUND, f"no batch named {batch_id!r}")
        try:
            model_config = api_query.read_query(request.query_params, *query.TRIALS)["modelConfig"]
        except api_query.QueryRefused as exc:
            return query_refused(exc)
        if model_config is not None:
            known = sorted(set(TrialLog.objects.filter(batch=batch).values_list("model_config", flat=True)))
            if model_config not in known:
                message = f"modelConfig: batch {batch.name} has no model config {model_config!r}; it has "
                return _error(status.HTTP_404_NOT_FOUND, message + (", ".join(known) or "none"), "modelConfig")
        trials = trials_for_export(batch, model_config=model_config)
        name = trials_filename(batch.name, self.extension, model_config)
        if self.extension == ".csv":
            return attachment(iter_csv(trials, widget_types=widget_types_document(batch)), MEDIA_TYPES["csv"], name)
        return attachment(iter_ndjson(trials), JSONL_CONTENT_TYPE, name)


_DESCRIPTION = (
    "Streamed as an attachment (layer3-<batch>[-<modelConfig>]{ext}), trials in id order, each with its stored "
    "layer3Metrics (not computed again). {what}"
)


def _documented(extension: str, media_type: str, what: str, detail: str):
    return extend_schema(
        operation_id=f"layer3_export_trials_{extension.lstrip('.')}",
        summary=f"A batch's trials with their metrics as {what}, streamed (researchers)",
        description=_DESCRIPTION.format(ext=extension, what=detail),
        parameters=api_query.parameters(*query.TRIALS),
        responses={(200, media_type): OpenApiResponse(OpenApiTypes.STR, description="the file")},
    )


class TrialsJsonl(_TrialsExport):
    extension = ".jsonl"

    @_documented(
        ".jsonl",
        "application/x-ndjson",
        "NDJSON, one trial per line",
        'Each line: {"id", "modelConfig", "layer3Metrics"} (null: not evaluated yet).',
    )
    def get(self, request, batch_id: str):
        return super().get(request, batch_id)


class TrialsCsv(_TrialsExport):
    extension = ".csv"

    @_documented(
        ".csv",
        "text/csv",
        "CSV, one row per trial",
        "The bytes of layer3-export?format=csv: UTF-8 with a BOM, formula-like texts neutralised.",
    )
    def get(self, request, batch_id: str):
        return super().get(request, batch_id)
