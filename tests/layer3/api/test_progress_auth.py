"""The layer3-progress stream authenticates like the rest of the API: session or API token, researchers only,
with the same 401/403 answers as the other Layer3 endpoints (issue 27)."""

import pytest
from django.core.management import call_command
from django.test import Client

from core.api_tokens import token_create, token_revoke
from layer3.models import Batch
from layer3.runs.options import EvaluationOptions
from layer3.runs.services import layer3_run_create

pytestmark = pytest.mark.django_db
PROGRESS = "/api/experiment/batch/b/layer3-progress"
RESULTS = "/api/experiment/batch/b/layer3-results"


@pytest.fixture
def batch(trials_file, settings, tmp_path):
    settings.VAR_DIR = tmp_path
    settings.LAYER3_SSE_SECONDS = 0
    call_command("import_trials", str(trials_file), "--batch", "b")
    batch = Batch.objects.get(name="b")
    layer3_run_create(batch=batch, options=EvaluationOptions())  # queued: the stream has a run to follow
    return batch


def stream_text(response) -> str:
    """The whole stream: with ``LAYER3_SSE_SECONDS = 0`` it ends after its first poll, without waiting."""
    return b"".join(response.streaming_content).decode()


def refusal(response) -> tuple[int, dict, str | None]:
    return response.status_code, response.json(), response.headers.get("WWW-Authenticate")


def test_a_researchers_token_opens_the_stream(batch, researcher):
    _token, key = token_create(user=researcher, name="progress script")
    for scheme in ("Token", "Bearer"):
        response = Client().get(PROGRESS, headers={"Authorization": f"{scheme} {key}"})
        assert response.status_code == 200, scheme
        assert response["Content-Type"].startswith("text/event-stream")
        assert stream_text(response).startswith("retry: ")


def test_the_session_still_opens_the_stream(batch, researcher):
    client = Client()
    client.force_login(researcher)
    response = client.get(PROGRESS, headers={"Accept": "text/event-stream"})  # as a browser's EventSource asks
    assert response.status_code == 200 and response["Content-Type"].startswith("text/event-stream")
    assert stream_text(response).startswith("retry: ")


def test_unknown_revoked_and_malformed_tokens_get_the_apis_401(batch, researcher):
    token, key = token_create(user=researcher, name="revoked")
    token_revoke(user=researcher, token_id=token.pk)
    for header in (f"Token {key}", "Token jaiml_nope", "Token a b", "Bearer"):
        stream = Client().get(PROGRESS, headers={"Authorization": header, "Accept": "text/event-stream"})
        assert stream.status_code == 401, header
        assert refusal(stream) == refusal(Client().get(RESULTS, headers={"Authorization": header})), header


def test_without_credentials_the_answer_is_the_apis_401(batch):
    stream = Client().get(PROGRESS, headers={"Accept": "text/event-stream"})
    assert stream.status_code == 401 and stream["WWW-Authenticate"].startswith("Session ")
    assert refusal(stream) == refusal(Client().get(RESULTS))


def test_a_token_of_a_user_without_the_researcher_role_gets_the_apis_403(batch, annotator):
    _token, key = token_create(user=annotator, name="not mine to read")
    stream = Client().get(PROGRESS, headers={"Authorization": f"Token {key}", "Accept": "text/event-stream"})
    assert stream.status_code == 403
    assert refusal(stream) == refusal(Client().get(RESULTS, headers={"Authorization": f"Token {key}"}))


def test_an_inactive_users_token_is_refused(batch, researcher):
    _token, key = token_create(user=researcher, name="left the project")
    researcher.is_active = False
    researcher.save(update_fields=["is_active"])
    assert Client().get(PROGRESS, headers={"Authorization": f"Token {key}"}).status_code == 401
