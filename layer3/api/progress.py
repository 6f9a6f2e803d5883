"""``GET .../layer3-progress``: the latest run of a batch as Server-Sent Events (seed 002 §5.1).

Events, with JSON data and an ``id:`` line each (``<run>:<done>:<last error trial>``):

- ``progress`` ``{current, total, percentage, currentLogId, metrics?}`` whenever the run stored a chunk;
- ``error`` ``{logId, error}`` for each trial whose generated data could not be evaluated, as they are
  stored (and ``{logId: "", error}`` when the run itself failed);
- ``complete`` ``{success, summary, elapsedMs}`` when the run ended (``summary``: the batch's
  ``BatchLayer3Results``), at once for a client that connects after the end.

A reconnecting ``EventSource`` sends ``Last-Event-ID`` and gets only what came after it; after the
``complete`` of the latest run the answer is 204, which tells the browser to stop reconnecting. A
comment line is sent every ``HEARTBEAT_SECONDS`` so proxies keep the connection open.

Streams are bounded: one response lasts at most ``settings.LAYER3_SSE_SECONDS`` (default 30 s) and
ends with a ``retry:`` hint; the browser reconnects with ``Last-Event-ID`` and misses nothing. A
stream holds one server thread while open, so the production server runs threaded workers (README,
*Production*); the bound keeps a forgotten tab from holding one for hours.
"""

from __future__ import annotations

import json
import time

from django.conf import settings
from django.http import HttpResponse, JsonResponse, StreamingHttpResponse

from core.roles import RESEARCHER, has_role
from layer3.models import Layer3Run, TrialLog
from layer3.selectors import BatchNotFound, batch_get

HEARTBEAT_SECONDS = 15.0
POLL_SECONDS = 1.0
RETRY_MS = 1000


def _event(name: str, event_id: str, data: dict) -> str:
    payload = json.dumps(data, ensure_ascii=False, allow_nan=False)
    return f"id: {event_id}\nevent: {name}\ndata: {payload}\n\n"


def _parse_last_id(value: str | None) -> tuple[int, int, int, bool]:
    """``(run id, progress done, last error trial pk, complete)`` from ``Last-Event-ID``; zeros when absent."""
    if not value:
        return 0, -1, 0, False
    parts = value.split(":")
    try:
        run, done, error = int(parts[0]), int(parts[1]), int(parts[2])
    except (ValueError, IndexError):
        return 0, -1, 0, False
    return run, done, error, len(parts) > 3 and parts[3] == "complete"


def layer3_progress(request, batch_id: str):
    if not request.user.is_authenticated:
        response = JsonResponse({"success": False, "error": "log in first"}, status=401)
        response["WWW-Authenticate"] = 'Session realm="api"'
        return response
    if not has_role(request.user, RESEARCHER):
        return JsonResponse({"success": False, "error": "This API is for users with the researcher role."}, status=403)
    try:
        batch = batch_get(batch_id)
    except BatchNotFound as exc:
        return JsonResponse({"success": False, "error": str(exc)}, status=404)
    run = Layer3Run.objects.filter(batch=batch).order_by("-created_at", "-pk").first()
    if run is None:
        return JsonResponse({"success": False, "error": f"batch {batch.name} has no Layer3 run yet"}, status=404)
    last_run, last_done, last_error, completed = _parse_last_id(request.headers.get("Last-Event-ID"))
    if last_run == run.pk and completed:
        return HttpResponse(status=204)  # the browser's EventSource stops reconnecting
    if last_run != run.pk:
        last_done, last_error = -1, 0
    response = StreamingHttpResponse(_stream(run, last_done, last_error), content_type="text/event-stream")
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"  # nginx: do not buffer the stream
    return response


def _stream(run: Layer3Run, last_done: int, last_error: int):
    deadline = time.monotonic() + settings.LAYER3_SSE_SECONDS
    heartbeat = time.monotonic() + HEARTBEAT_SECONDS
    yield f"retry: {RETRY_MS}\n\n"
    errors_counted = -1  # the run's error count when the trials were last searched for errors
    fields = ["status", "evaluated_count", "error_count", "unjudged_count", "total_targets", "skipped_count",
              "current_trial", "last_metrics", "started_at", "elapsed_ms", "error"]  # fmt: skip
    while True:
        run.refresh_from_db(fields=fields)
        done = run.evaluated_count + run.error_count + run.unjudged_count
        errors = ()
        if run.started_at and (run.error_count != errors_counted or run.status not in Layer3Run.IN_FLIGHT):
            # only when the run counted a new error: 20 open streams must not search the trials twice a second
            errors_counted = run.error_count
            errors = (
                TrialLog.objects.filter(batch_id=run.batch_id, pk__gt=last_error, layer3_metrics__has_key="error")
                .order_by("pk")
                .values_list("pk", "external_id", "layer3_metrics")
            )
        for pk, external_id, metrics in errors:
            last_error = pk
            error = f"{metrics.get('path', '')}: {metrics.get('error', '')}"
            # the id names the progress already sent, so a resume from here still gets the next one
            yield _event("error", f"{run.pk}:{last_done}:{last_error}", {"logId": external_id, "error": error})
        if done != last_done and run.status != Layer3Run.Status.QUEUED:
            last_done = done
            data = {
                "current": done,
                "total": run.total_targets - run.skipped_count,
                "percentage": _percentage(done, run.total_targets - run.skipped_count),
                "currentLogId": run.current_trial,
            }
            if run.last_metrics:
                data["metrics"] = run.last_metrics
            yield _event("progress", f"{run.pk}:{done}:{last_error}", data)
        if run.status not in Layer3Run.IN_FLIGHT:
            if run.status == Layer3Run.Status.FAILED:
                yield _event("error", f"{run.pk}:{done}:{last_error}", {"logId": "", "error": run.error})
            run.batch.refresh_from_db(fields=["layer3_results"])
            summary = {
                "success": run.status in (Layer3Run.Status.SUCCEEDED, Layer3Run.Status.STOPPED_BY_BUDGET),
                "summary": run.batch.layer3_results,
                "elapsedMs": run.elapsed_ms,
                "status": run.status,
            }
            yield _event("complete", f"{run.pk}:{done}:{last_error}:complete", summary)
            return
        now = time.monotonic()
        if now >= deadline:
            return  # the browser reconnects after `retry` with Last-Event-ID
        if now >= heartbeat:
            heartbeat = now + HEARTBEAT_SECONDS
            yield ": heartbeat\n\n"
        time.sleep(POLL_SECONDS)


def _percentage(done: int, total: int) -> float:
    return round(100.0 * done / total, 1) if total else 100.0
