"""Issues #27 and #41: every API operation fuzzed from its OpenAPI schema (schemathesis 4) against a live server,
with every check schemathesis has.

The OpenAPI schema is the one drf-spectacular serves at /api/schema/, generated in-process once per module. For
each operation schemathesis makes requests from it, valid and invalid ones alike (``generation.mode = "all"``), in
its phases: the schema's examples; the coverage phase's boundary values, wrong types, missing fields, other methods
and media types; then ``MAX_EXAMPLES`` drawn cases. They go over HTTP to pytest-django's live server with a
researcher's API token (``Authorization: Token <key>``, given to schemathesis as the operation's credentials, so its
auth checks probe the same request without them and with wrong ones), or an annotator's where the researcher gets
403. Path ids point at existing objects, so that bodies and queries reach the views; a case whose path id is the
invalid part is sent as drawn.

Every response goes through every check of ``schemathesis.checks`` (the CLI's ``--checks all``): no 5xx; the status
code, content type, headers and body as the schema documents them; a request valid by the schema accepted and an
invalid one refused; 405 for a method the path does not have; credentials enforced; plus this API's error shape
(every 4xx JSON ``{"success": false, "error", "detail", "problems": [{"path", ...}]}``). Where a check cannot apply
to what an operation is, ``EXEMPT`` says so, narrowly and with the reason.

Bounded and reproducible: the coverage phase's cases are fixed by the schema, at most ``MAX_EXAMPLES`` drawn cases
per operation, derandomised with a fixed seed, no shrinking, no Hypothesis example database (nothing written into
the repository), and a request timeout so that a hanging answer fails instead of blocking the run.
"""

from __future__ import annotations

import contextlib
import json

import hypothesis
import pytest
import schemathesis
from django.core.serializers.json import DjangoJSONEncoder
from hypothesis import strategies as st
from schemathesis.checks import CHECKS, load_all_checks
from schemathesis.core.failures import FailureGroup
from schemathesis.core.parameters import ParameterLocation

from core.names import batch_name_problem
from tests.director.sessions.test_turns import Director
from tests.llm.conftest import fake_llm  # noqa: F401 - the LLM endpoint of the world below

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
            "stateful": {"enabled": True},  # test_every_check_passes_in_linked_calls
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

_TOKENS: dict[str, str] = {}  # the running test's API keys by role (set by the fuzz_world fixture)


def _batch_names(*, digits_allowed: bool) -> st.SearchStrategy[str]:
    """The schema's string formats ``batch-name`` and ``layer3-batch-name``: what ``core.names`` accepts (OpenAPI
    has no keyword for "no control or format character", so the schema names the rule as a format)."""
    printable = st.characters(exclude_categories=("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"), exclude_characters="/\\")
    return st.text(printable, min_size=1, max_size=100).filter(
        lambda name: batch_name_problem(name, limit=100, digits_allowed=digits_allowed) is None
    )


def _printable() -> st.SearchStrategy[str]:
    """The format ``printable``: ``str.isprintable()`` (no control, format, separator but the space, unassigned)."""
    characters = st.characters(
        exclude_categories=("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp", "Zs"), include_characters=" "
    )
    return st.text(characters, max_size=100)


@schemathesis.serializer("application/x-ndjson", "application/jsonl")
def _jsonl_body(ctx, value):
    """A JSONL body (the ratings import's) is a file: sent as the bytes drawn for it (``format: binary``)."""
    return {"data": value if isinstance(value, bytes) else getattr(value, "data", str(value).encode())}


schemathesis.openapi.format("printable", _printable())
schemathesis.openapi.format("batch-name", _batch_names(digits_allowed=True))
schemathesis.openapi.format("layer3-batch-name", _batch_names(digits_allowed=False))


@schema.auth(refresh_interval=None, retry_on=[])
class ResearcherToken:
    """The operation's credentials (``tokenAuth``): schemathesis then drops the session cookie it would draw for the
    other scheme, and its ``ignored_auth`` check probes without them and with bad ones. The coverage phase's cases
    are made when the tests are collected, before any key exists: ``call_and_validate`` puts the key in."""

    def get(self, case, context):
        return _TOKENS.get("researcher", "set-when-sent")

    def set(self, case, data, context):
        case.headers = {**(case.headers or {}), "Authorization": f"Token {data}"}


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


# Where a check cannot apply to what an operation is, and why: a request valid by the schema that the server
# refuses (400) for a reason no OpenAPI schema can state. Each is recognised by where the refusal points.
EXEMPT = {
    "file contents": (
        "an uploaded file (a multipart file field, or a JSONL body) is `format: binary`: OpenAPI cannot describe the "
        "JSONL lines inside (dialogues, ratings, trial logs), so a drawn file is valid by the schema and refused with "
        "every problem located in it (its file and line), never in a form field or option (POST batches/, "
        "batches/{id}/dialogues/, annotations/import/, experiment/batch/)"
    ),
    "cursor": (
        "a list's `cursor` is an opaque token the list gave out (signed with the site's key): every drawn string is "
        "a well-formed one by the schema and none is one the list gave out, so it is refused naming cursor"
    ),
    "override without a reason": (
        "the ratings import's overrides (allow_over_quota, ...) each need a `reason` (recorded with the caller's "
        "name): a dependency between query parameters that OpenAPI 3.0 cannot state (its description says it), so "
        "an override drawn without a reason is refused naming reason"
    ),
}
OVERRIDES = (
    "allow_over_quota",
    "allow_unchosen_annotators",
    "allow_unqualified_annotators",
    "allow_closed_batch",
    "replace_web_ratings",
)


def _problems(response) -> list:
    try:
        problems = json.loads(response.content).get("problems")
    except (ValueError, AttributeError):
        return []
    return problems if isinstance(problems, list) else []


def exempt_refusal(case, response) -> str | None:
    """The ``EXEMPT`` entry a 400 to a request valid by the schema falls under, or None."""
    problems = _problems(response)
    if response.status_code != 400 or not problems or not all(isinstance(p, dict) for p in problems):
        return None
    located = all(isinstance(p.get("file"), str) and not p["file"].startswith("--") for p in problems)  # --batch
    if (case.media_type or "application/json") != "application/json" and located:  # a form with files, or a file
        return "file contents"
    if isinstance(case.query, dict) and "cursor" in case.query and all(p.get("path") == "cursor" for p in problems):
        return "cursor"
    query = case.query if isinstance(case.query, dict) else {}
    overridden = any(str(query.get(name)).lower() in ("true", "1") for name in OVERRIDES)
    if overridden and "reason" not in query and all(p.get("path") == "reason" for p in problems):
        return "override without a reason"
    return None


load_all_checks()
positive_data_acceptance = CHECKS.get_one("positive_data_acceptance")


def positive_data_accepted(ctx, response, case):
    """schemathesis' ``positive_data_acceptance``, but for the refusals ``EXEMPT`` lists."""
    if exempt_refusal(case, response) is not None:
        return None
    return positive_data_acceptance(ctx, response, case)


CHECKED = [check for check in CHECKS.get_all() if not isinstance(check, type) and check is not positive_data_acceptance]
CHECKED.append(positive_data_accepted)
assert {"not_a_server_error", "response_schema_conformance", "negative_data_rejection", "ignored_auth",
        "unsupported_method", "status_code_conformance", "content_type_conformance", "use_after_free",
        "ensure_resource_availability", "missing_required_header"} <= {c.__name__ for c in CHECKED}  # fmt: skip


@pytest.fixture
def fuzz_world(transactional_db, settings, fake_llm):  # noqa: F811
    """API tokens of a researcher (who may review flags) and a qualified annotator, objects for path ids, and an LLM
    endpoint (a local fake answering the Director's lines and reviews): the schema describes a site that has one."""
    from django.contrib.auth.models import Permission
    from django.test import Client

    from annotation.models import AgreementReport, QualityFlag
    from core.api_tokens import token_create
    from director.sessions.services import session_create
    from layer3.models import Batch as Layer3Batch
    from layer3.models import Layer3Run
    from tests.annotation.api.support import API, CONFIDENCE, SCORES, make_batch
    from tests.helpers import make_qualified_annotator, make_user

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    Director(fake_llm)
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
    # /api/experiment/batch/{batch_id}/runs/{run_a}/compare/{run_b} and .../compare-batch/{other_batch_id}
    ids["runs"] = ids["compare"] = Layer3Run.objects.create(batch_id=ids["batch"], options={}, status="succeeded").pk
    ids["compare-batch"] = ids["batch"]
    _TOKENS.clear()
    _TOKENS.update(tokens)
    yield tokens, ids
    _TOKENS.clear()


def call_and_validate(case, world, base_url: str):
    """Send ``case`` as the researcher (as the annotator after a 403) and run every check on the answer."""
    tokens, ids = world
    if case.meta is None or not case.meta.is_negative_at(ParameterLocation.PATH):
        segments = case.operation.path.split("/")
        for i, segment in enumerate(segments):
            if segment.startswith("{") and segments[i - 1] in ids:
                case.path_parameters[segment[1:-1]] = str(ids[segments[i - 1]])
    for role in ("researcher", "annotator"):
        case.headers = {**(case.headers or {}), "Authorization": f"Token {tokens[role]}"}
        response = case.call(base_url=base_url)
        if response.status_code != 403 or role == "annotator":
            break
    case.validate_response(response, checks=[*CHECKED, error_shape], transport_kwargs={"base_url": base_url})
    return response


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
def test_every_check_passes(case, fuzz_world, live_server):
    call_and_validate(case, fuzz_world, live_server.url)


STATEFUL_SCENARIOS = 10  # sequences of linked calls (schemathesis infers the links: an id an answer gives the next)
STATEFUL_STEPS = 8


class Workflow(schema.as_state_machine()):
    """The stateful phase: calls chained by the links schemathesis infers from the schema (a created batch, session
    or rating read, changed and used by the next call), every check run on each answer with the scenario's record
    (``use_after_free``, ``ensure_resource_availability``).

    As schemathesis' own engine runs this phase: every failure is collected as it is found, and a scenario that
    Hypothesis cannot replay the same way (the server's data changed meanwhile: a name taken, an item rated) ends
    the run without unreporting what was found."""

    base_url = ""
    failures: list[str] = []
    scenarios = 0

    def teardown(self):
        Workflow.scenarios += 1

    def before_call(self, case):
        case.headers = {**(case.headers or {}), "Authorization": f"Token {_TOKENS['researcher']}"}

    def get_call_kwargs(self, case):
        return {"base_url": self.base_url}

    def validate_response(self, response, case, additional_checks=None, **kwargs):
        try:
            case.validate_response(
                response,
                checks=[*CHECKED, error_shape],
                transport_kwargs={"base_url": self.base_url},
                recorder=self.recorder,
            )
        except FailureGroup as exc:
            Workflow.failures.append(str(exc))


def test_every_check_passes_in_linked_calls(fuzz_world, live_server):
    Workflow.base_url, Workflow.failures, Workflow.scenarios = live_server.url, [], 0
    settings = hypothesis.settings(
        max_examples=STATEFUL_SCENARIOS,
        stateful_step_count=STATEFUL_STEPS,
        deadline=None,
        derandomize=True,
        database=None,
        phases=[hypothesis.Phase.explicit, hypothesis.Phase.generate],  # failures are collected: nothing to shrink
        suppress_health_check=list(hypothesis.HealthCheck),
    )
    with contextlib.suppress(hypothesis.errors.Flaky):  # a scenario the changed data made play out otherwise
        Workflow.run(settings=settings)
    assert Workflow.failures == [], "\n\n".join(Workflow.failures)
    assert Workflow.scenarios >= 3  # the phase ran (Hypothesis counts a replayed scenario too)
