"""``GET .../layer3-progress``: the latest run of a batch as Server-Sent Events (seed 002 §5.1).

Events, with JSON data and an ``id:`` line each (``<run>:<done>:<last problem>``):

- ``progress`` ``{current, total, percentage, currentLogId, metrics?}`` whenever the run stored a chunk;
- ``error`` ``{logId, error, kind, message}`` for each problem of *this* run as it is stored: a trial
  whose generated data could not be evaluated (``kind`` "spec") or judge answers given up on after the
  retries (``kind`` "judge"), and ``{logId: "", error, kind: "run"}`` when the run itself failed;
  ``error`` is the stored English, ``message`` the same in the language of the request;
- ``complete`` ``{success, status, summary, elapsedMs, evaluatedCount, errorCount, skippedCount,
  unjudgedCount, judgeFailures}`` when the run ended (``summary``: the batch's ``BatchLayer3Results``),
  at once for a client that connects after the end.

Authenticated like every other API view (a DRF view: the session or ``Authorization: Token <key>``),
for researchers only, with the API's 401 and 403 answers.

A reconnecting ``EventSource`` sends ``Last-Event-ID`` and gets only what came after it; after the
``complete`` of the latest run the answer is 204, which tells the browser to stop reconnecting. A
comment line is sent every ``HEARTBEAT_SECONDS`` so proxies keep the connection open.

Under ASGI (the production setup: uvicorn beside the sync gunicorn workers, README *Production*) a
stream is an async generator: open streams cost the event loop nothing while they wait, and each
poll is one short query on the server's database thread. Under WSGI (``make run``, tests) the same
polls run in a plain generator that holds a server thread. Either way one response lasts at most
``settings.LAYER3_SSE_SECONDS`` and ends with a ``retry:`` hint; the browser reconnects with
``Last-Event-ID`` and misses nothing, and a forgotten tab holds nothing for hours.
"""

from __future__ import annotations

import asyncio
import json
import time

from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.handlers.asgi import ASGIRequest
from django.http import HttpResponse, JsonResponse, StreamingHttpResponse
from django.utils import translation
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.views import APIView

from core.permissions import IsResearcher
from layer3.models import Layer3Run, Layer3RunProblem
from layer3.panel.messages import problem_text
from layer3.selectors import BatchNotFound, batch_get

HEARTBEAT_SECONDS = 15.0
POLL_SECONDS = 1.0
RETRY_MS = 1000
_RUN_FIELDS = ["status", "evaluated_count", "error_count", "unjudged_count", "total_targets", "skipped_count",
               "current_trial", "last_metrics", "started_at", "elapsed_ms", "error", "judge_failures"]  # fmt: skip


def _event(name: str, event_id: str, data: dict) -> str:
    payload = json.dumps(data, ensure_ascii=False, allow_nan=False)
    return f"id: {event_id}\nevent: {name}\ndata: {payload}\n\n"


def _parse_last_id(value: str | None) -> tuple[int, int, int, bool]:
    """``(run id, progress done, last problem pk, complete)`` from ``Last-Event-ID``; zeros when absent."""
    if not value:
        return 0, -1, 0, False
    parts = value.split(":")
    try:
        run, done, error = int(parts[0]), int(parts[1]), int(parts[2])
    except (ValueError, IndexError):
        return 0, -1, 0, False
    return run, done, error, len(parts) > 3 and parts[3] == "complete"


class _RefusalsInJson(BaseContentNegotiation):
    """An ``EventSource`` asks for ``text/event-stream``: the stream is not rendered by DRF, and a refusal
    (401, 403) is the API's JSON whatever was asked for, never 406."""

    def select_parser(self, request, parsers):
        return parsers[0] if parsers else None

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type


class Layer3Progress(APIView):
    """Authenticated like every API view (session or ``Authorization: Token``), researchers only."""

    permission_classes = [IsResearcher]
    content_negotiation_class = _RefusalsInJson

    @extend_schema(
        summary="The latest Layer3 run of a batch as Server-Sent Events (seed 002 §5.1); 204 after its complete",
        description="Events `progress`, `error` and `complete`, each with an `id:` line: a client that reconnects "
        "with `Last-Event-ID` gets only what came after it.",
        responses={(200, "text/event-stream"): OpenApiTypes.STR, 204: None},
    )
    def get(self, request, batch_id: str):
        if "\x00" in batch_id:  # no name holds one (and PostgreSQL could not compare it)
            return JsonResponse({"success": False, "error": f"no batch named {batch_id!r}"}, status=404)
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
        follower = RunFollower(run, last_done, last_error, language=translation.get_language())
        stream = _async_stream(follower) if isinstance(request._request, ASGIRequest) else _stream(follower)
        response = StreamingHttpResponse(stream, content_type="text/event-stream")
        response["Cache-Control"] = "no-cache"
        response["X-Accel-Buffering"] = "no"  # nginx: do not buffer the stream
        return response


layer3_progress = Layer3Progress.as_view()


class RunFollower:
    """What a stream has sent of one run; ``poll()`` reads the run once and returns the events that are new."""

    def __init__(self, run: Layer3Run, last_done: int, last_error: int, *, language: str | None = None) -> None:
        self.run, self.last_done, self.last_error = run, last_done, last_error
        self.language = language  # of the request: the stream's messages are written after the view returned
        self.errors_counted = -1  # the run's error count when the trials were last searched for errors
        self.finished = False

    def poll(self) -> list[str]:
        with translation.override(self.language):
            return self._poll()

    def _poll(self) -> list[str]:
        run = self.run
        run.refresh_from_db(fields=_RUN_FIELDS)
        done = run.evaluated_count + run.error_count + run.unjudged_count
        events = []
        problems = run.error_count + run.judge_failures
        if run.started_at and (problems != self.errors_counted or run.status not in Layer3Run.IN_FLIGHT):
            # only when the run counted a new problem: 20 open streams must not search every second
            self.errors_counted = problems
            found = (
                Layer3RunProblem.objects.filter(run_id=run.pk, pk__gt=self.last_error)
                .order_by("pk")
                .values_list("pk", "external_id", "kind", "path", "message")
            )
            for pk, external_id, kind, path, message in found:
                self.last_error = pk
                error = f"{path}: {message}" if path and not message.startswith(path) else message
                # the id names the progress already sent, so a resume from here still gets the next one
                event_id = f"{run.pk}:{self.last_done}:{self.last_error}"
                data = {"logId": external_id, "kind": kind, "error": error, "message": problem_text(kind, error)}
                events.append(_event("error", event_id, data))
        counted = run.total_targets > 0 or run.status not in Layer3Run.IN_FLIGHT
        # a started run counts its targets first: until then "0 of 0" would read as 100%
        if done != self.last_done and run.status != Layer3Run.Status.QUEUED and counted:
            self.last_done = done
            total = run.total_targets - run.skipped_count
            data = {"current": done, "total": total, "percentage": _percentage(done, total),
                    "currentLogId": run.current_trial}  # fmt: skip
            if run.last_metrics:
                data["metrics"] = run.last_metrics
            events.append(_event("progress", f"{run.pk}:{done}:{self.last_error}", data))
        if run.status not in Layer3Run.IN_FLIGHT:
            if run.status == Layer3Run.Status.FAILED:
                failure = {"logId": "", "kind": "run", "error": run.error, "message": problem_text("run", run.error)}
                events.append(_event("error", f"{run.pk}:{done}:{self.last_error}", failure))
            run.batch.refresh_from_db(fields=["layer3_results"])
            summary = {
                "success": run.status in (Layer3Run.Status.SUCCEEDED, Layer3Run.Status.STOPPED_BY_BUDGET),
                "status": run.status,
                "summary": run.batch.layer3_results,
                "elapsedMs": run.elapsed_ms,
                "evaluatedCount": run.evaluated_count,
                "errorCount": run.error_count,
                "skippedCount": run.skipped_count,
                "unjudgedCount": run.unjudged_count,
                "judgeFailures": run.judge_failures,
            }
            events.append(_event("complete", f"{run.pk}:{done}:{self.last_error}:complete", summary))
            self.finished = True
        return events


class _Clock:
    """When the response must end and when the next heartbeat is due."""

    def __init__(self) -> None:
        now = time.monotonic()
        self.deadline, self.heartbeat = now + settings.LAYER3_SSE_SECONDS, now + HEARTBEAT_SECONDS

    def tick(self) -> str | None:
        """``None`` when the response must end (the browser reconnects), else what to send before waiting."""
        now = time.monotonic()
        if now >= self.deadline:
            return None
        if now >= self.heartbeat:
            self.heartbeat = now + HEARTBEAT_SECONDS
            return ": heartbeat\n\n"
        return ""


def _stream(follower: RunFollower):
    clock = _Clock()
    yield f"retry: {RETRY_MS}\n\n"
    while True:
        yield from follower.poll()
        if follower.finished or (extra := clock.tick()) is None:
            return
        if extra:
            yield extra
        time.sleep(POLL_SECONDS)


async def _async_stream(follower: RunFollower):
    clock = _Clock()
    poll = sync_to_async(follower.poll)  # on the server's database thread, one short query
    yield f"retry: {RETRY_MS}\n\n"
    while True:
        for event in await poll():
            yield event
        if follower.finished or (extra := clock.tick()) is None:
            return
        if extra:
            yield extra
        await asyncio.sleep(POLL_SECONDS)


def _percentage(done: int, total: int) -> float:
    return round(100.0 * done / total, 1) if total else 100.0
