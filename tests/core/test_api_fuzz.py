"""Issue #27: property-based fuzzing of every API operation (schemathesis 4) against a live test server.

The OpenAPI schema is the one drf-spectacular serves at /api/schema/, generated in-process once per
module. For each operation schemathesis makes requests from it, valid and invalid ones alike
(``generation.mode = "all"``), in its phases: the schema's examples; the coverage phase's boundary
values, wrong types, missing fields, other methods and media types; then ``MAX_EXAMPLES`` drawn cases.
They go over HTTP to pytest-django's live server with a researcher's API token (``Authorization: Token
<key>``), or an annotator's where the researcher gets 403. Path ids point at existing objects, so that
bodies and queries reach the views. Checks: no 5xx (``not_a_server_error``), and every 4xx is JSON in
the API's one error shape ``{"success": false, "error", "detail", "problems": [{"path", ...}]}``.

Bounded and reproducible: the coverage phase's cases are fixed by the schema, at most ``MAX_EXAMPLES``
drawn cases per operation, derandomised with a fixed seed, no shrinking, no Hypothesis example
database (nothing written into the repository), and a request timeout so that a hanging answer fails
instead of blocking the run.
"""

from __future__ import annotations

import json

import hypothesis
import pytest
import schemathesis
from django.core.serializers.json import DjangoJSONEncoder
from schemathesis.checks import not_a_server_error

MAX_EXAMPLES = 15
CONFIG = schemathesis.Config.from_dict(
    {
        "seed": 27,
        "request-timeout": 20,
        "generation": {
            "mode": "all",
            "max-examples": MAX_EXAMPLES,
            "deterministic": True,  # Hypothesis' derandomize
            "database": "none",  # no .hypothesis/ example database
            "no-shrink": True,  # a failure is reported as drawn: shrinking would multiply the requests
        },
        "phases": {
            "examples": {"enabled": True},
            "fuzzing": {"enabled": True},
            "coverage": {"enabled": True},
            "stateful": {"enabled": False},
        },
    }
)

# Operations left out of the fuzzing, and why.
NOT_FUZZED = {
    "/api/experiment/batch/{batch_id}/layer3-progress": (
        "a Server-Sent Events stream: an answer lasts up to LAYER3_SSE_SECONDS of wall-clock time "
        "(its 401/403/404 answers are tested in tests/layer3/api/test_progress*.py and the barrage)"
    ),
}


def _schema_dict() -> dict:
    from drf_spectacular.generators import SchemaGenerator

    generated = SchemaGenerator().get_schema(request=None, public=True)
    return json.loads(json.dumps(generated, cls=DjangoJSONEncoder))  # lazy translations as plain strings


schema = schemathesis.openapi.from_dict(_schema_dict(), config=CONFIG)
for _path in NOT_FUZZED:
    schema = schema.exclude(path=_path)


def error_shape(ctx, response, case) -> None:
    """A 4xx under /api/ is JSON: ``success`` false, a ``detail`` string, ``problems`` objects with a ``path``."""
    if not 400 <= response.status_code < 500 or not case.operation.path.startswith("/api/"):
        return None
    content_type = next((v[0] for k, v in response.headers.items() if k.lower() == "content-type" and v), "")
    assert content_type.startswith("application/json"), f"a {response.status_code} answered {content_type!r}"
    try:
        body = json.loads(response.content)
    except ValueError as exc:
        raise AssertionError(f"a {response.status_code} answered no JSON: {exc}") from None
    assert isinstance(body, dict), f"a {response.status_code} answered {type(body).__name__}, not an object"
    assert body.get("success") is False, f"success is {body.get('success')!r}"
    assert isinstance(body.get("detail"), str), f"detail is {body.get('detail')!r}"
    problems = body.get("problems")
    assert isinstance(problems, list) and problems, f"problems is {problems!r}"
    assert all(isinstance(p, dict) and "path" in p for p in problems), f"problems without a path: {problems!r}"
    return None


@pytest.fixture
def fuzz_world(transactional_db, settings):
    """API tokens of a researcher (who may review flags) and a qualified annotator, and objects for path ids."""
    from django.contrib.auth.models import Permission
    from django.test import Client

    from annotation.models import AgreementReport, QualityFlag
    from core.api_tokens import token_create
    from director.sessions.services import session_create
    from layer3.models import Batch as Layer3Batch
    from tests.annotation.api.support import API, CONFIDENCE, SCORES, make_batch
    from tests.helpers import make_qualified_annotator, make_user

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    researcher = make_user("res_fuzz", "researcher")
    # The review permission itself: the "reviewer" group of the migrations is gone after a transactional flush.
    researcher.user_permissions.add(Permission.objects.get(codename="review_qualityflag"))
    annotator = make_qualified_annotator("ann_fuzz")
    tokens = {role: token_create(user=user, name="fuzz")[1] for role, user in (("researcher", researcher),
                                                                               ("annotator", annotator))}  # fmt: skip
    batch = make_batch("fuzz", n_items=3)
    queue = Client(headers={"Authorization": f"Token {tokens['annotator']}"})
    rated = queue.post(f"{API}batches/{batch.pk}/next/").json()["assignment_id"]
    body = {"assignment_id": rated, "scores": SCORES, "confidence": CONFIDENCE}
    annotation = queue.post(f"{API}annotations/", body, content_type="application/json").json()["annotation"]["id"]
    reserved = queue.post(f"{API}batches/{batch.pk}/next/").json()["assignment_id"]
    report = AgreementReport.objects.create(batch=batch, source="batch fuzz", passed=True, report={"axes": {}})
    flag = QualityFlag.objects.create(
        source="outlier", kind="annotator_bias", report=report, annotator=annotator, axis="social", message="high"
    )
    session = session_create(scene="カフェ", speakers=("yana", "ayu"), llm_review=False, user=researcher)
    ids = {
        "batches": batch.pk,
        "annotations": annotation,
        "assignments": reserved,
        "reports": report.pk,
        "flags": flag.pk,
        "jobs": "00000000-0000-4000-8000-000000000000",
        "sessions": session.pk,
        "batch": Layer3Batch.objects.create(name="l3-fuzz").pk,  # /api/experiment/batch/{batch_id}
    }
    return tokens, ids


@schema.parametrize()
@hypothesis.settings(
    # The fixtures are the world every drawn request is sent into (set up once per operation, on purpose);
    # slow or filtered generation is not what this test is about.
    suppress_health_check=[
        hypothesis.HealthCheck.function_scoped_fixture,
        hypothesis.HealthCheck.too_slow,
        hypothesis.HealthCheck.filter_too_much,
        hypothesis.HealthCheck.data_too_large,
        hypothesis.HealthCheck.large_base_example,
    ],
)
def test_no_5xx_and_every_4xx_in_the_error_shape(case, fuzz_world, live_server):
    tokens, ids = fuzz_world
    segments = case.operation.path.split("/")
    for i, segment in enumerate(segments):
        if segment.startswith("{") and segments[i - 1] in ids:
            case.path_parameters[segment[1:-1]] = str(ids[segments[i - 1]])
    for role in ("researcher", "annotator"):
        headers = {"Authorization": f"Token {tokens[role]}"}
        response = case.call(base_url=live_server.url, headers=headers)
        case.validate_response(response, checks=[not_a_server_error, error_shape], headers=headers)
        if response.status_code != 403:
            break
