"""Issue #27's barrage: every JSON write of the OpenAPI schema refuses hostile bodies, stores nothing, never 5xx.

For each POST/PUT/PATCH whose request body accepts ``application/json`` (read from the schema that
drf-spectacular generates, so a new endpoint is covered without editing this file), as a user who may
call it (the researcher; where it gets 403, a researcher of the reviewer group, then a qualified
annotator: the first role not refused) and with path ids of
existing objects, each of these bodies, written as raw JSON text so that the escapes really are in the
bytes, is sent as the value of every writable field the schema names (nested ones too), as the whole
body, and (surrogate, NUL) as a key:

- ``deep``: ``"[" * 100000 + "]" * 100000``;
- ``surrogate``: ``"\\ud800"``;
- ``nul``: ``"a\\u0000b"``;
- ``duplicate``: a key given twice (``{"k": 1, "k": 2}``, and each field twice);
- ``bigint``: a 31-digit integer.

Every answer must be a 400 of the strict JSON parser (a problem whose path is the JSON path of the bad
value, ``$...``: the body was refused before any view read it), JSON in the API's one error shape, and
the database must be unchanged (row counts of every model, and the rows themselves).

Every GET with an integer query parameter or a path id gets a 30-digit value there: a 4xx in the same
shape, nothing stored.
"""

from __future__ import annotations

import functools
import json

import pytest
from django.apps import apps
from django.test import Client

from layer3.api.requests import FIELDS as EVALUATE_FIELDS

pytestmark = pytest.mark.django_db

DEEP = "[" * 100_000 + "]" * 100_000
SURROGATE = '"\\ud800"'  # the six characters \ud800 inside a JSON string: a lone surrogate once decoded
NUL = '"a\\u0000b"'
BIGINT = "1234567890" * 3 + "1"  # 31 digits
THIRTY_DIGITS = "123456789012345678901234567890"
ROLES = ("researcher", "reviewer", "annotator")  # tried in this order: the first one not refused (403)
KINDS = ("deep", "surrogate", "nul", "duplicate", "bigint")
BAD_VALUE = {"deep": DEEP, "surrogate": SURROGATE, "nul": NUL, "bigint": BIGINT}

# Operations whose schema documents the body as a free-form object (``{"type": "object",
# "additionalProperties": {}}``) name no field: the fields their views read are listed here so that each
# of them gets the payloads too (besides the whole body).
UNDOCUMENTED_FIELDS = {
    ("post", "/api/director/check"): ("text", "speaker", "history", "scene", "llm", "language"),
    ("post", "/api/director/sessions"): ("scene", "speakers", "title", "maxRetries", "llmReview", "model"),
    ("post", "/api/director/sessions/{session_id}/turns"): ("speaker", "text", "expectedTurn", "language"),
    ("post", "/api/experiment/batch/{batch_id}/evaluate-layer3"): EVALUATE_FIELDS,
}

# Write operations of the schema that take no JSON body: not covered by the barrage, and why.
NOT_COVERED = {
    ("post", "/api/experiment/batch/"): "multipart upload of a trials file (no JSON body)",
    ("post", "/api/v1/annotation/batches/{id}/dialogues/"): "multipart upload of a dialogue file (no JSON body)",
    ("post", "/api/v1/annotation/batches/{id}/next/"): "takes no request body (reserves the next item)",
    ("post", "/api/v1/annotation/annotations/import/"): "a JSONL body or multipart file of ratings (no JSON body; "
    "tests/annotation/api/test_ratings_import.py)",
}

# Integer query parameters read only together with another one (ignored otherwise, so that a 200 is right):
# sent with it.
QUERY_CONTEXT = {
    ("/api/experiment/batch/{batch_id}/layer3-results", "page"): "includeDetails=true",
    ("/api/experiment/batch/{batch_id}/layer3-results", "pageSize"): "includeDetails=true",
}

# Tables that may change on any request, whatever the body: left out of the before/after comparison (none
# of them changed in this barrage when it was written; they are left out so that a legitimate write, such as
# a renewed session, is not taken for a stored body).
CHANGES_ON_ANY_REQUEST = {
    "sessions.Session",  # the login session (the session middleware saves it when it changes or is renewed)
    "axes.AccessAttempt",  # django-axes' log of logins (written on login, which happens before the baseline)
    "axes.AccessLog",
    "axes.AccessFailureLog",
    "core.ApiToken",  # last_used_at is touched by a request with a token (these clients use the session)
}


# --- the schema ----------------------------------------------------------------------------------------------


@functools.cache
def _schema() -> dict:
    from drf_spectacular.generators import SchemaGenerator

    return SchemaGenerator().get_schema(request=None, public=True)


def _resolve(node: dict) -> dict:
    while True:
        if "$ref" in node:
            node = _schema()["components"]["schemas"][node["$ref"].rsplit("/", 1)[1]]
        elif len(node.get("allOf", ())) == 1:
            node = {**node["allOf"][0], **{k: v for k, v in node.items() if k != "allOf"}}
        else:
            return node


def _field_paths(node: dict, prefix: tuple = (), depth: int = 0):
    """JSON paths (tuples of keys and indexes) of every writable field under ``node``, nested ones too."""
    node = _resolve(node)
    if depth > 4:
        return
    if node.get("properties"):
        for name, sub in node["properties"].items():
            if sub.get("readOnly") or _resolve(sub).get("readOnly"):
                continue
            yield (*prefix, name)
            yield from _field_paths(sub, (*prefix, name), depth + 1)
    elif node.get("type") == "array" and node.get("items"):
        yield (*prefix, 0)
        yield from _field_paths(node["items"], (*prefix, 0), depth + 1)


def _operations() -> list[tuple[str, str, dict]]:
    return [
        (method, path, op)
        for path, item in _schema()["paths"].items()
        for method, op in item.items()
        if method in ("get", "post", "put", "patch", "delete")
    ]


def _json_writes() -> list[tuple[str, str, tuple]]:
    """(method, path template, field paths) of every write whose body accepts application/json."""
    found = []
    for method, path, op in _operations():
        body = op.get("requestBody", {}).get("content", {})
        if method in ("post", "put", "patch") and "application/json" in body:
            fields = tuple(_field_paths(body["application/json"].get("schema", {})))
            extra = tuple((name,) for name in UNDOCUMENTED_FIELDS.get((method, path), ()) if (name,) not in fields)
            found.append((method, path, fields + extra))
    return found


def _gets() -> list[tuple[str, str, str]]:
    """(path template, parameter, "path"|"query") of every GET's path id and integer query parameter."""
    found = []
    for method, path, op in _operations():
        if method != "get":
            continue
        for param in op.get("parameters", ()):
            if param["in"] == "path" or (param["in"] == "query" and _resolve(param["schema"]).get("type") == "integer"):
                found.append((path, param["name"], param["in"]))
    return found


WRITES = _json_writes()
GETS = _gets()


def test_every_write_operation_is_covered_or_listed():
    covered = {(method, path) for method, path, _fields in WRITES}
    writes = {(method, path) for method, path, _op in _operations() if method in ("post", "put", "patch")}
    assert len(covered) >= 10, covered
    assert writes - covered == set(NOT_COVERED), "a write with no JSON body that is not listed in NOT_COVERED"
    assert {key for key in UNDOCUMENTED_FIELDS} <= covered
    assert len(GETS) >= 15, GETS


# --- objects the path ids point at ---------------------------------------------------------------------------


@pytest.fixture
def world(settings):
    """A batch with an annotator's rating and an open reservation, a report, a flag, a Director session, a
    Layer3 batch, and the clients (logged in before any baseline is taken)."""
    from annotation.models import AgreementReport, QualityFlag
    from director.sessions.services import session_create
    from layer3.models import Batch as Layer3Batch
    from layer3.models import Layer3Run
    from tests.annotation.api.support import API, CONFIDENCE, SCORES, make_batch
    from tests.helpers import make_qualified_annotator, make_user

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # users by the dozen, quickly
    researcher = make_user("res_barrage", "researcher")
    annotator = make_qualified_annotator("ann_barrage")
    reviewer = make_user("res_reviewer", "researcher", "reviewer")  # reviews flags (the group the migrations make)
    clients = {}
    for role, user in (("researcher", researcher), ("reviewer", reviewer), ("annotator", annotator)):
        client = Client(raise_request_exception=False)
        client.force_login(user)
        clients[role] = client
    batch = make_batch("barrage", n_items=3)
    ann = clients["annotator"]
    rated = ann.post(f"{API}batches/{batch.pk}/next/", b"{}", content_type="application/json").json()
    submitted = ann.post(
        f"{API}annotations/",
        {"assignment_id": rated["assignment_id"], "scores": SCORES, "confidence": CONFIDENCE},
        content_type="application/json",
    )
    assert submitted.status_code == 201, submitted.content
    reserved = ann.post(f"{API}batches/{batch.pk}/next/", b"{}", content_type="application/json").json()
    report = AgreementReport.objects.create(batch=batch, source="batch barrage", passed=True, report={"axes": {}})
    flag = QualityFlag.objects.create(
        source="outlier", kind="annotator_bias", report=report, annotator=annotator, axis="social", message="high"
    )
    session = session_create(scene="カフェ", speakers=("yana", "ayu"), llm_review=False, user=researcher)
    ids = {
        "batches": batch.pk,
        "annotations": submitted.json()["annotation"]["id"],
        "assignments": reserved["assignment_id"],
        "reports": report.pk,
        "flags": flag.pk,
        "jobs": "00000000-0000-4000-8000-000000000000",
        "sessions": session.pk,
        "batch": Layer3Batch.objects.create(name="l3-barrage").pk,  # /api/experiment/batch/{batch_id}
    }
    # /api/experiment/batch/{batch_id}/runs/{run_a}/compare/{run_b} and .../compare-batch/{other_batch_id}
    ids["runs"] = ids["compare"] = Layer3Run.objects.create(batch_id=ids["batch"], options={}, status="succeeded").pk
    ids["compare-batch"] = ids["batch"]
    return clients, ids


def _url(template: str, ids: dict, replace: str | None = None, value: str = "") -> str:
    """``template`` with each ``{param}`` the id of the object named by the segment before it."""
    parts = template.split("/")
    for i, part in enumerate(parts):
        if part.startswith("{") and part.endswith("}"):
            name = part[1:-1]
            if name == replace:
                parts[i] = value
            else:
                assert parts[i - 1] in ids, f"no object for {part} in {template}: add one to the world fixture"
                parts[i] = str(ids[parts[i - 1]])
    return "/".join(parts)


# --- one request, checked ------------------------------------------------------------------------------------


def _snapshot() -> tuple[dict, dict]:
    """Row counts of every model and the rows of every concrete one (but the tables any request changes)."""
    counts, rows = {}, {}
    for model in apps.get_models():
        label = model._meta.label
        if label in CHANGES_ON_ANY_REQUEST:
            continue
        counts[label] = model._base_manager.count()
        if not model._meta.proxy and model._meta.managed:
            rows[label] = list(model._base_manager.order_by("pk").values_list())
    return counts, rows


def _shape_problems(response) -> list[str]:
    """What is wrong with ``response`` as an error of the API's one shape (empty when nothing is)."""
    if not response.get("Content-Type", "").startswith("application/json"):
        return [f"Content-Type {response.get('Content-Type')!r}"]
    try:
        body = json.loads(response.content)
    except ValueError as exc:
        return [f"not JSON ({exc})"]
    wrong = []
    if not isinstance(body, dict):
        return [f"a {type(body).__name__}, not an object"]
    if body.get("success") is not False:
        wrong.append(f"success={body.get('success')!r}")
    if not isinstance(body.get("detail"), str):
        wrong.append(f"detail={body.get('detail')!r}")
    problems = body.get("problems")
    if not (isinstance(problems, list) and problems and all(isinstance(p, dict) and "path" in p for p in problems)):
        wrong.append(f"problems={problems!r}")
    return wrong


def _call(clients: dict, method: str, url: str, raw: bytes | None) -> tuple[object, str, list[str]]:
    """The answer to ``method url`` of the first role not refused with 403, that role and the tables changed."""
    before = _snapshot()
    for role in ROLES:
        response = _send(clients[role], method, url, raw)
        if response.status_code != 403:
            break
    after = _snapshot()
    changed = [label for label in before[0] if before[0][label] != after[0][label]]
    changed += [label for label in before[1] if before[1][label] != after[1][label] and label not in changed]
    return response, role, changed


def _send(client: Client, method: str, url: str, raw: bytes | None):
    if raw is None:
        return client.get(url)
    return getattr(client, method)(url, raw, content_type="application/json")


def _json_path(path: tuple) -> str:
    return "$" + "".join(f"[{step}]" if isinstance(step, int) else f".{step}" for step in path)


def _embed(path: tuple, raw: str) -> str:
    """Raw JSON text of a body holding ``raw`` at ``path`` (and nothing else)."""
    for step in reversed(path):
        raw = f"[{raw}]" if isinstance(step, int) else "{" + json.dumps(step) + ": " + raw + "}"
    return raw


def _bodies(kind: str, fields: tuple) -> list[tuple[str, str, str]]:
    """(what, raw body, expected JSON path prefix of the refusal) for one payload kind."""
    if kind == "duplicate":
        bodies = [("whole body {k, k}", '{"k": 1, "k": 2}', "$")]
        for path in fields:
            if isinstance(path[-1], str):
                twice = "{" + f"{json.dumps(path[-1])}: 1, {json.dumps(path[-1])}: 2" + "}"
                bodies.append((f"{_json_path(path)} twice", _embed(path[:-1], twice), "$"))
        return bodies
    bad = BAD_VALUE[kind]
    bodies = [("whole body", bad, "$")]
    if kind in ("surrogate", "nul"):
        bodies.append(("as a key", "{" + bad + ": 1}", "$"))
    bodies += [(_json_path(path), _embed(path, bad), _json_path(path)) for path in fields]
    return bodies


def _verdict(response, role: str, changed: list[str], expected_path: str | None) -> str | None:
    """Why this answer fails the barrage, or None."""
    status = response.status_code
    wrong = [] if 400 <= status < 500 else [f"status {status}"]
    wrong += _shape_problems(response)
    if changed:
        wrong.append(f"rows changed in {', '.join(changed)}")
    if expected_path is not None and not wrong:
        problems = response.json()["problems"]
        if status != 400 or not any(str(p["path"] or "").startswith(expected_path) for p in problems):
            wrong.append(f"not refused by the JSON parser at {expected_path} (status {status}, problems {problems})")
    if not wrong:
        return None
    return f"as {role}: {'; '.join(wrong)}; body {response.content[:300]!r}"


# --- the tests -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(
    ("method", "path", "fields"), WRITES, ids=[f"{method.upper()} {path}" for method, path, _fields in WRITES]
)
def test_a_hostile_body_is_refused_and_stores_nothing(world, method, path, fields, kind):
    clients, ids = world
    url = _url(path, ids)
    failures = []
    for what, raw, expected in _bodies(kind, fields):
        response, role, changed = _call(clients, method, url, raw.encode())
        failure = _verdict(response, role, changed, expected)
        if failure:
            failures.append(f"{method.upper()} {url} {kind} {what}: {failure}")
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize(
    ("path", "param", "where"), GETS, ids=[f"GET {path} {where} {param}" for path, param, where in GETS]
)
def test_a_30_digit_number_in_a_query_or_path_is_refused(world, path, param, where):
    clients, ids = world
    url = _url(path, ids, replace=param, value=THIRTY_DIGITS)
    if where == "query":
        context = QUERY_CONTEXT.get((path, param))
        url += f"?{context + '&' if context else ''}{param}={THIRTY_DIGITS}"
    response, role, changed = _call(clients, "get", url, None)
    failure = _verdict(response, role, changed, None)
    assert failure is None, f"GET {url}: {failure}"
