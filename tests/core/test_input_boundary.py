"""#27's cases, one by one: the input edge of every API, upload and command refuses, names where, stores nothing.

Each request is sent as raw bytes, so the escapes (``\\ud800``, ``\\u0000``), a key given twice and a
31-digit integer are really in the body. Every refusal is a 4xx with the API's error shape, and every
model's row count is the same afterwards.
"""

from __future__ import annotations

import json

import pytest
from django.apps import apps
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command

from annotation.models import Batch as AnnotationBatch
from director.models import DirectorSession, RetryVerdict
from layer3.demo.generator import generate_trials
from layer3.models import Batch as Layer3Batch
from layer3.models import Layer3Run
from tests.annotation.api.support import make_batch

pytestmark = pytest.mark.django_db

DEEP = "[" * 100000 + "]" * 100000
BIG = "9" * 31


def counts() -> dict[str, int]:
    return {model._meta.label: model.objects.count() for model in apps.get_models()}


@pytest.fixture
def api(client, researcher):
    client.force_login(researcher)
    return client


def post_raw(client, url: str, text: str, method: str = "post"):
    return getattr(client, method)(url, text.encode("utf-8", "surrogatepass"), content_type="application/json")


def assert_refused(response, *, status: int = 400, path: str | None = None) -> dict:
    assert response.status_code == status, response.content[:300]
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    assert body["success"] is False and isinstance(body["detail"], str) and body["detail"]
    assert body["problems"] and all("path" in problem and problem["message"] for problem in body["problems"])
    if path is not None:
        assert body["problems"][0]["path"] == path, body
    return body


@pytest.fixture
def director_session(api):
    response = api.post("/api/director/sessions", {"scene": "s"}, content_type="application/json")
    return response.json()["session"]["id"]


@pytest.fixture
def layer3_batch(settings, tmp_path):
    settings.VAR_DIR = tmp_path
    path = tmp_path / "t.jsonl"
    path.write_text("".join(json.dumps(t, ensure_ascii=False) + "\n" for t in generate_trials(5, seed=3)))
    call_command("import_trials", str(path), "--batch", "b", "--experiment", "e")
    return Layer3Batch.objects.get(name="b")


def _json_endpoints(session_id: int, batch_id: int) -> list[tuple[str, str, str]]:
    """(method, url, a body template with {value} where the bad value goes)."""
    return [
        ("post", "/api/director/check", '{"speaker": "あゆ", "text": {value}}'),
        ("post", "/api/director/sessions", '{"scene": {value}}'),
        ("post", f"/api/director/sessions/{session_id}/turns", '{"speaker": "あゆ", "text": {value}}'),
        ("post", "/api/experiment/batch/b/evaluate-layer3", '{"llmModel": {value}}'),
        ("post", "/api/v1/annotation/batches/", '{"name": "n", "status": {value}}'),
        ("patch", f"/api/v1/annotation/batches/{batch_id}/", '{"status": {value}}'),
        ("post", f"/api/v1/annotation/batches/{batch_id}/reports/", '{"n_boot": {value}}'),
    ]


@pytest.mark.parametrize(
    ("kind", "value", "path_end"),
    [
        ("deep", DEEP, None),
        ("surrogate", '"\\ud800"', None),
        ("nul", '"a\\u0000b"', None),
        ("big integer", BIG, None),
    ],
)
def test_every_named_json_endpoint_refuses_the_bad_value_and_stores_nothing(
    api, director_session, layer3_batch, kind, value, path_end
):
    batch = make_batch("pilot")
    before = counts()
    for method, url, template in _json_endpoints(director_session, batch.pk):
        response = post_raw(api, url, template.replace("{value}", value), method)
        body = assert_refused(response)
        if kind != "deep":
            assert body["problems"][0]["path"].startswith("$."), (url, body)
        assert counts() == before, (url, kind)


def test_a_surrogate_model_name_queues_no_run(api, layer3_batch):
    response = post_raw(api, "/api/experiment/batch/b/evaluate-layer3", '{"llmModel": "\\ud800"}')
    assert_refused(response, path="$.llmModel")
    assert not Layer3Run.objects.exists()


@pytest.mark.parametrize(
    ("body", "path"),
    [
        ('{"speaker": "あゆ", "text": "x\\udfff"}', "$.text"),
        (
            '{"speaker": "あゆ", "text": "こんにちは", "history": [{"speaker": "やな", "text": "x\\udfff"}]}',
            "$.history[0].text",
        ),
    ],
)
def test_the_director_check_names_the_path_of_a_surrogate(api, body, path):
    assert_refused(post_raw(api, "/api/director/check", body), path=path)
    assert not RetryVerdict.objects.exists()


def test_the_director_session_names_the_bad_field(api):
    response = post_raw(api, "/api/director/sessions", '{"scene": "s", "speakers": ["\\ud800", "あゆ"]}')
    assert_refused(response, path="$.speakers[0]")
    assert not DirectorSession.objects.exists()


def test_nul_in_a_director_line_is_refused_and_stores_no_verdict(api):
    response = post_raw(api, "/api/director/check", '{"speaker": "あゆ", "text": "a\\u0000b"}')
    assert_refused(response, path="$.text")
    assert not RetryVerdict.objects.exists()


def test_a_key_given_twice_is_refused(api):
    response = post_raw(api, "/api/director/check", '{"speaker": "あゆ", "text": "a", "text": "b"}')
    body = assert_refused(response)
    assert "'text'" in body["problems"][0]["message"]


def test_a_confidence_written_as_a_string_is_refused(api):
    from tests.annotation.api.support import CONFIDENCE, SCORES, logged_in
    from tests.helpers import make_qualified_annotator

    batch = make_batch("b", n_items=1, quota=1)
    client = logged_in(make_qualified_annotator("ann_q"))
    nxt = client.post(f"/api/v1/annotation/batches/{batch.pk}/next/", {}, content_type="application/json")
    assignment = nxt.json()["assignment_id"]
    before = counts()
    rating = {"assignment_id": assignment, "scores": SCORES, "confidence": {**CONFIDENCE, "social": "0.5"}}
    response = client.post("/api/v1/annotation/annotations/", rating, content_type="application/json")
    assert_refused(response, path="confidence.social")
    score_text = {"assignment_id": assignment, "scores": {**SCORES, "self": "3"}, "confidence": CONFIDENCE}
    response = client.post("/api/v1/annotation/annotations/", score_text, content_type="application/json")
    assert_refused(response, path="scores.self")
    assert counts() == before


@pytest.mark.parametrize(
    "url",
    [
        "/api/director/verdicts?session=9999999999999999999999999",
        "/api/experiment/batch/b/layer3-results?includeDetails=true&page=999999999999999999999999999999",
        "/api/experiment/batch/b/layer3-results?includeDetails=true&pageSize=99999999999999999999999999999",
    ],
)
def test_a_30_digit_query_number_is_a_400(api, layer3_batch, url):
    assert_refused(api.get(url))


@pytest.mark.parametrize(
    "url",
    [
        "/api/director/sessions/9999999999999999999999999",
        "/api/v1/annotation/batches/9999999999999999999999999/",
        "/api/experiment/batch/9999999999999999999999999/layer3-results",
    ],
)
def test_a_30_digit_id_is_a_json_404(api, url):
    assert_refused(api.get(url), status=404)


@pytest.mark.parametrize(
    "url",
    ["/research/batches/9999999999999999999999999/", "/layer3/batches/9999999999999999999999999/"],
)
def test_a_30_digit_id_on_a_page_is_404(api, url):
    assert api.get(url).status_code == 404


def test_a_body_over_the_limit_is_a_json_413(api, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 100
    text = json.dumps({"speaker": "あゆ", "text": "あ" * 200}, ensure_ascii=False)
    assert_refused(post_raw(api, "/api/director/check", text), status=413)


def test_an_unsupported_media_type_is_a_json_415(api):
    response = api.post("/api/director/check", b"text=x", content_type="text/plain")
    assert_refused(response, status=415)


def test_an_unexpected_error_is_a_json_500_without_details(researcher, monkeypatch):
    from django.test import Client

    import director.api.views as views

    def broken(**_kwargs):
        raise RuntimeError("secret detail of the server")

    monkeypatch.setattr(views, "check_line", broken)
    client = Client(raise_request_exception=False)
    client.force_login(researcher)
    response = client.post("/api/director/check", {"speaker": "あゆ", "text": "x"}, content_type="application/json")
    body = assert_refused(response, status=500)
    assert "secret detail" not in response.content.decode()
    assert body["problems"] == [{"path": None, "message": body["detail"]}]


def test_an_error_in_english_when_the_user_chose_english(api, settings):
    api.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    body = assert_refused(post_raw(api, "/api/director/check", '{"text": "a\\u0000b"}'))
    assert "NUL character" in body["problems"][0]["message"]
    api.cookies[settings.LANGUAGE_COOKIE_NAME] = "ja"
    body = assert_refused(post_raw(api, "/api/director/check", '{"text": "a\\u0000b"}'))
    assert "NUL" in body["problems"][0]["message"] and "NUL character" not in body["problems"][0]["message"]


# --- names -------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["a/b", "..", "a\nb", "a\x00b", "a\u202eb", "x" * 101, "  "])
def test_an_annotation_batch_name_must_be_printable_text_without_separators(api, name):
    before = counts()
    response = api.post("/api/v1/annotation/batches/", {"name": name}, content_type="application/json")
    assert_refused(response)
    assert counts() == before


@pytest.mark.parametrize("name", ["a/b", "../x", "a\nb", "a\x00b", "12"])
def test_a_layer3_batch_name_must_be_printable_text_without_separators(api, name, settings, tmp_path):
    settings.VAR_DIR = tmp_path
    trials = "".join(json.dumps(t, ensure_ascii=False) + "\n" for t in generate_trials(2, seed=1)).encode()
    before = counts()
    upload = SimpleUploadedFile("t.jsonl", trials, content_type="application/jsonl")
    response = api.post("/api/experiment/batch/", {"name": name, "file": upload})
    assert response.status_code == 400, response.content[:300]
    assert counts() == before


@pytest.mark.parametrize("experiment", ["e\x00x", "e\nx", "e" * 101])
def test_a_layer3_experiment_id_must_be_printable_and_fit(api, experiment, settings, tmp_path):
    settings.VAR_DIR = tmp_path
    trials = "".join(json.dumps(t, ensure_ascii=False) + "\n" for t in generate_trials(2, seed=1)).encode()
    before = counts()
    upload = SimpleUploadedFile("t.jsonl", trials, content_type="application/jsonl")
    response = api.post("/api/experiment/batch/", {"name": "ok", "experimentId": experiment, "file": upload})
    assert response.status_code == 400 and "experimentId" in {p["path"] for p in response.json()["problems"]}
    assert counts() == before


def test_the_import_commands_refuse_the_same_names(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps(generate_trials(1, seed=1)[0]) + "\n")
    with pytest.raises(CommandError, match="contains /"):
        call_command("import_trials", str(path), "--batch", "a/b")
    assert not Layer3Batch.objects.exists()


# --- uploads and commands with a deeply nested line -------------------------------------------------------


def _deep_line() -> bytes:
    return ('{"id": "x", "user": "u", "response": ' + DEEP + "}\n").encode()


def test_deep_nesting_in_an_uploaded_dialogue_file_is_a_located_problem(api):
    batch = make_batch("b")
    before = counts()
    upload = SimpleUploadedFile("d.jsonl", _deep_line(), content_type="application/jsonl")
    response = api.post(f"/api/v1/annotation/batches/{batch.pk}/dialogues/", {"file": upload})
    body = assert_refused(response)
    assert body["problems"][0]["line"] == 1 and "64" in body["problems"][0]["message"]
    assert counts() == before


def test_deep_nesting_in_a_trial_upload_is_a_located_problem(api, settings, tmp_path):
    settings.VAR_DIR = tmp_path
    before = counts()
    upload = SimpleUploadedFile("t.jsonl", _deep_line(), content_type="application/jsonl")
    response = api.post("/api/experiment/batch/", {"name": "deep", "file": upload})
    assert response.status_code == 400 and "64" in response.content.decode()
    assert counts() == before


@pytest.mark.parametrize(
    ("url", "fields"),
    [
        ("/research/batches/new/", {"name": "deep", "annotations_per_item": "2"}),
        ("/training/gold/", {}),
    ],
)
def test_deep_nesting_in_a_page_upload_is_a_form_error(api, url, fields):
    before = counts()
    upload = SimpleUploadedFile("d.jsonl", _deep_line(), content_type="application/jsonl")
    response = api.post(url, {**fields, "file": upload}, follow=True)
    assert response.status_code in (200, 400)  # the form again, with the problem
    assert "64" in response.content.decode()
    assert counts() == before


@pytest.mark.parametrize(
    "command",
    [
        ["import_dialogues", "--batch", "b"],
        ["import_annotations"],
        ["import_trials", "--batch", "b"],
        ["kappa_calculator", "--input"],
        ["director_check", "--input"],
    ],
)
def test_deep_nesting_in_a_command_s_file_is_a_located_error(tmp_path, command):
    path = tmp_path / "deep.jsonl"
    path.write_bytes(_deep_line())
    args = [*command, str(path)]
    if command[-1] == "--input":
        args += ["--output", str(tmp_path / "out.json")]
    before = counts()
    with pytest.raises(CommandError) as refused:
        call_command(*args)
    assert f"{path}:1" in str(refused.value) and "64" in str(refused.value)
    assert counts() == before
    assert not AnnotationBatch.objects.exists()
