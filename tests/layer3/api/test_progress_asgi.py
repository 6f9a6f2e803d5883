"""The layer3-progress stream under ASGI (the production stream server): an async generator, same events."""

import json
import threading

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from django.core.management import call_command
from django.db import connection, connections
from django.test import AsyncClient

from layer3.models import Batch
from layer3.runs.options import EvaluationOptions
from layer3.runs.services import layer3_run_create, layer3_run_execute

pytestmark = [
    pytest.mark.django_db(transaction=True),
    # ASGI serves the streams in production, on PostgreSQL. On SQLite's shared in-memory test database the
    # request threads asgiref starts keep their connections, whose table locks then stall later tests.
    pytest.mark.skipif(connection.vendor != "postgresql", reason="the ASGI stream server runs on PostgreSQL"),
]
URL = "/api/experiment/batch/b/layer3-progress"


@pytest.fixture
def batch(trials_file, settings, tmp_path):
    settings.VAR_DIR = tmp_path
    settings.LAYER3_SSE_SECONDS = 1.5
    call_command("import_trials", str(trials_file), "--batch", "b")
    return Batch.objects.get(name="b")


def run_async(scenario) -> None:
    """Run ``scenario`` in a thread of its own: the browser tests leave an event loop in the main thread."""
    failure: list[BaseException] = []

    def target():
        try:
            async_to_sync(scenario)()
        except BaseException as exc:  # re-raised in the test's thread
            failure.append(exc)
        finally:
            connections.close_all()  # this thread's connections: an open one locks SQLite's shared tables

    thread = threading.Thread(target=target)
    thread.start()
    thread.join()
    if failure:
        raise failure[0]


async def read(client: AsyncClient, **headers) -> tuple[object, list[tuple[str, str, dict]]]:
    response = await client.get(URL, headers=headers)
    if response.status_code != 200:
        return response, []
    assert response.is_async, "under ASGI the stream must be an async iterator (a sync one is buffered whole)"
    text = "".join(
        [chunk.decode() if isinstance(chunk, bytes) else chunk async for chunk in response.streaming_content]
    )
    events = []
    for block in text.split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines() if line and not line.startswith(":"))
        if "event" in fields:
            events.append((fields["event"], fields["id"], json.loads(fields["data"])))
    return response, events


def test_under_asgi_a_late_client_gets_the_run_and_complete(batch, researcher):
    async def scenario():
        await sync_to_async(
            lambda: layer3_run_execute(run=layer3_run_create(batch=batch, options=EvaluationOptions()))
        )()
        client = AsyncClient()
        await client.aforce_login(researcher)
        response, events = await read(client)
        assert response["Content-Type"].startswith("text/event-stream")
        assert [name for name, _id, _data in events] == ["error", "progress", "complete"]
        assert events[1][2]["percentage"] == 100.0 and events[2][2]["success"] is True
        after, _ = await read(client, **{"Last-Event-ID": events[-1][1]})
        assert after.status_code == 204

    run_async(scenario)


def test_under_asgi_a_queued_run_is_followed_until_the_bound(batch, researcher):
    async def scenario():
        await sync_to_async(lambda: layer3_run_create(batch=batch, options=EvaluationOptions()))()
        client = AsyncClient()
        await client.aforce_login(researcher)
        response, events = await read(client)
        assert response.status_code == 200 and events == []  # bounded: ended after LAYER3_SSE_SECONDS, no event

    run_async(scenario)


def test_under_asgi_annotators_are_refused(batch, annotator):
    async def scenario():
        client = AsyncClient()
        await client.aforce_login(annotator)
        response = await client.get(URL)
        assert response.status_code == 403

    run_async(scenario)
