"""Issue #41, point 6: no page of annotation/, layer3/ or director/ answers 5xx to a missing or malformed field.

``CASES`` lists every page view of the three apps (the /api/ views have their own barrage,
tests/core/test_api_barrage.py): its URL, the role that may open it, a request it accepts and the fields it
reads from the query string or the form, each with its kind. For each field, the request is sent again with
the field left out, blank, not a number, 0, negative, 30 digits, a fraction, full-width digits, with a NUL,
very long and given twice (and, by kind, impossible dates and months, or a ``next`` leading off the site): the
answer is never a 5xx and never an exception. The fields whose refusal is the page's own (``strict``) must be
refused with a 400 naming the field.

Two more tests keep the list honest: every named page URL of the three apps is in ``CASES`` (a new view fails
until it is listed), and the request a case accepts reads no field the case does not declare (a field added
to a view fails until it is declared, and so probed). To add a view: one ``Case`` line.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.http import QueryDict
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from django.utils import timezone

from annotation.audits import queue as audit_queue
from annotation.audits.services import judge_audit_create
from annotation.collection import training
from annotation.collection.queue import assignment_next
from annotation.models import Annotation, Batch, Dialogue, ItemComment
from core.models import Job
from director.sessions.services import session_create
from layer3.demo.generator import generate_trials
from layer3.models import Batch as Layer3Batch
from tests.annotation.audits.fake_source import fake_source  # noqa: F401 - the audit's Layer3 source (fixture)
from tests.annotation.collection.test_training_services import store_gold
from tests.helpers import acknowledge_audit_guidelines, make_qualified_annotator, make_user

pytestmark = pytest.mark.django_db

ABSENT = object()  # the field left out
COMMON = [ABSENT, "", " ", "abc", "0", "-1", "9" * 30, "1.5", "１２", "a\x00b", "x" * 5000, ["1", "2"]]
EXTRA = {
    "id": [],
    "text": [],
    "number": ["nan", "inf", "-inf", "1e400", "2" * 19],
    "date": ["2999-13-45", "0001-01-01", "9999-12-31", "99999-01-01", "2026-02-30", ["2027-01-01", "2027-02-01"]],
    "month": ["2026-13", "0000-01", "9999-12", "2999-12", "2026-1", ["2026-01", "2026-02"]],
    "next": ["abc", "/a\r\nb", "//evil.example/", "https://evil.example/", "javascript:alert(1)", "/\x7f"],
    "uuid": ["00000000-0000-0000-0000-000000000000", "not-a-uuid"],
}
SHOWN = {ABSENT: "absent"}


@dataclass(frozen=True)
class Case:
    name: str  # the URL's name
    method: str
    role: str  # "researcher", "annotator" (qualified), "trainee" (an annotator in the qualification test)
    args: Callable[[dict], list] = lambda world: []
    fields: dict[str, str] = field(default_factory=dict)  # field -> kind (a key of EXTRA)
    valid: Callable[[dict], dict] = lambda world: {}  # a request the view accepts
    strict: bool = False  # a malformed field is the page's 400, naming the field
    htmx: bool = False  # also sent as an HTMX request


RATING = {"social": "2", "avoidant": "1", "mechanical": "3", "self": "1"}
RATING |= {f"{axis}_confidence": "0.9" for axis in ("social", "avoidant", "mechanical", "self")}
RATING_FIELDS = {name: "number" for name in RATING}
ITEM_FILTERS = {"q": "text", "ratings": "text", "disputed": "text", "flagged": "text", "adjudicated": "text",
                "sort": "text"}  # fmt: skip
RUN_FORM = {"evaluateComplexity": "text", "evaluateDiversity": "text", "evaluateW2WRType": "text",
            "evaluateGV": "text", "evaluateW2WRSemantic": "text", "judge": "text", "modelConfigs": "text",
            "budget": "number", "forceReEvaluate": "text"}  # fmt: skip
COMPARE_FIELDS = {"kind": "text", "sort": "text", "batch": "id", "run_a": "id", "run_b": "id", "batch_a": "id",
                  "batch_b": "id"}  # fmt: skip
SETTINGS_FORM = {"status": "text", "annotations_per_item": "number", "disagreement_spread": "number",
                 "guidelines_version": "text", "description": "text", "restricted": "text", "annotators": "id",
                 "confirm_quota": "text"}  # fmt: skip


def _batch(w):
    return [w["batch"]]


def _l3(w):
    return [w["l3batch"]]


def _past(w):
    return [w["past"].year, w["past"].month]


CASES = [
    # --- annotation: the queue and the rating page --------------------------------------------------------------
    Case("annotation:queue", "get", "annotator"),
    Case("annotation:rate", "get", "annotator", _batch, {"undo": "id"}, htmx=True),
    Case(
        "annotation:submit",
        "post",
        "annotator",
        lambda w: [w["batch"], w["assignment"]],
        RATING_FIELDS,
        lambda w: RATING,
        htmx=True,
    ),
    Case(
        "annotation:skip", "post", "annotator", lambda w: [w["batch"], w["assignment"]], {"reason": "text"}, htmx=True
    ),
    Case(
        "annotation:comment",
        "post",
        "annotator",
        lambda w: [w["batch"], w["assignment"]],
        {"problem": "text", "text": "text"},
        lambda w: {"text": "t"},
        htmx=True,
    ),
    Case("annotation:unskip", "post", "annotator", lambda w: [w["assignment"]]),
    Case("annotation:history", "get", "annotator", fields={"page": "number", "skipped_page": "number"}),
    Case("annotation:edit", "get", "annotator", lambda w: [w["annotation"]]),
    Case(
        "annotation:edit",
        "post",
        "annotator",
        lambda w: [w["annotation"]],
        {**RATING_FIELDS, "reason": "text"},
        lambda w: RATING,
    ),
    Case("annotation:guidelines", "get", "annotator"),
    # --- training and qualification -------------------------------------------------------------------------------
    Case("annotation:training", "get", "trainee"),
    Case("annotation:practice", "get", "trainee"),
    Case(
        "annotation:practice",
        "post",
        "trainee",
        fields={"item": "id", **RATING_FIELDS},
        valid=lambda w: {"item": w["practice_item"], **RATING},
        htmx=True,
    ),
    Case("annotation:practice-feedback", "get", "trainee", lambda w: [w["answer"]]),
    Case("annotation:qualification", "get", "trainee"),
    Case(
        "annotation:qualification",
        "post",
        "trainee",
        fields={"item": "id", **RATING_FIELDS},
        valid=lambda w: {"item": w["test_item"], **RATING},
        htmx=True,
    ),
    Case("annotation:qualification-start", "post", "trainee"),
    Case("annotation:qualification-result", "get", "annotator", lambda w: [w["attempt"]]),
    Case("annotation:requalification-start", "post", "annotator"),
    Case(
        "annotation:qualification-extend",
        "post",
        "researcher",
        lambda w: [w["annotator"]],
        {"until": "date", "reason": "text", "next": "next"},
        lambda w: {"until": w["until"], "reason": "r", "next": "/training/results/"},
    ),
    Case("annotation:gold-items", "get", "researcher"),
    Case(
        "annotation:gold-items",
        "post",
        "researcher",
        fields={"file-clear": "text", "dry_run": "text", "update": "text"},
    ),
    Case("annotation:qualification-results", "get", "researcher"),
    # --- the agreement dashboard and its downloads ----------------------------------------------------------------
    Case(
        "annotation:dashboard",
        "get",
        "researcher",
        fields={"batch": "id", "job": "uuid", "llm_job": "uuid", "axis": "text"},
        valid=lambda w: {"batch": w["batch"]},
        htmx=True,
    ),
    Case(
        "annotation:dashboard-recompute",
        "post",
        "researcher",
        fields={"batch": "id"},
        valid=lambda w: {"batch": w["batch"]},
        strict=True,
        htmx=True,
    ),
    Case(
        "annotation:dashboard-ci-method",
        "post",
        "researcher",
        fields={"batch": "id", "ci_method": "text"},
        valid=lambda w: {"batch": w["batch"], "ci_method": "bca"},
        strict=True,
    ),
    Case(
        "annotation:dashboard-llm-estimate",
        "post",
        "researcher",
        fields={"batch": "id", "model": "text", "budget": "number", "currency": "text"},
        valid=lambda w: {"batch": w["batch"], "model": "m", "budget": "1", "currency": "JPY"},
        htmx=True,
    ),
    Case(
        "annotation:dashboard-llm-run",
        "post",
        "researcher",
        fields={"batch": "id", "model": "text", "budget": "number", "currency": "text"},
        valid=lambda w: {"batch": w["batch"], "model": "m", "budget": "1", "currency": "JPY"},
        htmx=True,
    ),
    Case("annotation:download-ratings", "get", "researcher", _batch),
    Case(
        "annotation:download-consensus",
        "get",
        "researcher",
        lambda w: [w["batch"], "consensus"],
        {"include_llm": "text"},
    ),
    Case("annotation:download-report", "get", "researcher", _batch),
    Case("annotation:download-report-xlsx", "get", "researcher", _batch),
    Case("annotation:download-report-csv", "get", "researcher", _batch),
    Case("annotation:download-ratings-xlsx", "get", "researcher", _batch),
    Case("annotation:download-ratings-csv", "get", "researcher", _batch),
    Case("annotation:download-consensus-xlsx", "get", "researcher", _batch, {"include_llm": "text"}),
    Case("annotation:download-consensus-csv", "get", "researcher", _batch, {"include_llm": "text"}),
    Case("annotation:download-rejected-csv", "get", "researcher", _batch, {"include_llm": "text"}),
    # --- the workspace --------------------------------------------------------------------------------------------
    Case("annotation:workspace", "get", "researcher"),
    Case("annotation:batch-create", "get", "researcher"),
    Case(
        "annotation:batch-create",
        "post",
        "researcher",
        fields={
            "name": "text",
            "description": "text",
            "annotations_per_item": "number",
            "guidelines_version": "text",
            "file-clear": "text",
            "ignore_unknown_keys": "text",
        },
        valid=lambda w: {"name": "new", "annotations_per_item": "3"},
    ),
    Case("annotation:batch", "get", "researcher", _batch, {"job": "uuid"}),
    Case(
        "annotation:batch",
        "post",
        "researcher",
        _batch,
        {
            "file-clear": "text",
            "force_text_change": "text",
            "update": "text",
            "job": "uuid",
            "ignore_unknown_keys": "text",
        },
    ),
    Case(
        "annotation:batch-ratings",
        "post",
        "researcher",
        _batch,
        {
            "ratings-dry_run": "text",
            "ratings-file-clear": "text",
            "ratings-update": "text",
            "ratings-ignore_unknown_keys": "text",
            "ratings-reason": "text",
            "ratings-allow_over_quota": "text",
            "ratings-allow_unchosen_annotators": "text",
            "ratings-allow_unqualified_annotators": "text",
            "ratings-replace_web_ratings": "text",
            "ratings-allow_closed_batch": "text",
        },
    ),
    Case("annotation:batch-settings", "get", "researcher", _batch),
    Case(
        "annotation:batch-settings",
        "post",
        "researcher",
        _batch,
        SETTINGS_FORM,
        lambda w: {
            "status": "open",
            "annotations_per_item": "3",
            "disagreement_spread": "2",
            "restricted": "True",
            "annotators": [w["annotator"]],
            "confirm_quota": "on",
        },
    ),
    Case("annotation:items", "get", "researcher", _batch, {**ITEM_FILTERS, "page": "number"}),
    Case("annotation:item", "get", "researcher", lambda w: [w["batch"], w["dialogue"]], ITEM_FILTERS),
    Case(
        "annotation:adjudicate",
        "post",
        "researcher",
        lambda w: [w["batch"], w["dialogue"]],
        {**ITEM_FILTERS, "query": "text", "reason": "text", "social": "number"},
        lambda w: {"reason": "r", "social": "2"},
    ),
    Case(
        "annotation:comment-resolve",
        "post",
        "researcher",
        lambda w: [w["batch"], w["comment"]],
        {**ITEM_FILTERS, "query": "text"},
    ),
    Case("annotation:activity", "get", "researcher", _batch),
    # --- monthly feedback -----------------------------------------------------------------------------------------
    Case(
        "annotation:feedback",
        "get",
        "researcher",
        fields={"month": "month", "annotator": "text"},
        valid=lambda w: {"month": f"{w['past']:%Y-%m}", "annotator": "ann_001"},
    ),
    Case("annotation:feedback", "get", "annotator", fields={"month": "month"}),
    Case("annotation:feedback-overview", "get", "researcher", _past),
    Case("annotation:feedback-print", "get", "researcher", _past),
    Case("annotation:feedback-csv", "get", "researcher", _past),
    Case(
        "annotation:feedback-prepare", "post", "researcher", _past, {"next": "next"}, lambda w: {"next": "/feedback/"}
    ),
    Case("annotation:feedback-annotator", "get", "researcher", lambda w: [*_past(w), "ann_001"]),
    # --- spreadsheets ---------------------------------------------------------------------------------------------
    Case("annotation:sheet-template", "get", "annotator", _batch),
    Case("annotation:sheet", "get", "annotator", _batch, {"job": "uuid"}),
    Case("annotation:sheet", "post", "annotator", _batch, {"dry_run": "text", "file-clear": "text", "job": "uuid"}),
    Case("annotation:batch-sheet-template", "get", "researcher", _batch, {"annotator": "id"}),
    Case("annotation:batch-sheet", "get", "researcher", _batch, {"job": "uuid"}),
    Case(
        "annotation:batch-sheet",
        "post",
        "researcher",
        _batch,
        {
            "annotator": "id",
            "dry_run": "text",
            "file-clear": "text",
            "job": "uuid",
            "allow_over_quota": "text",
            "allow_unqualified_annotators": "text",
            "reason": "text",
        },
    ),
    # --- judge audits ---------------------------------------------------------------------------------------------
    Case("annotation:audit-list", "get", "researcher"),
    Case(
        "annotation:audit-create",
        "post",
        "researcher",
        fields={
            "batch": "text",
            "kind": "text",
            "size": "number",
            "per_item": "number",
            "seed": "number",
            "next": "next",
        },
        valid=lambda w: {
            "batch": "fake",
            "kind": "gv",
            "size": "12",
            "per_item": "2",
            "seed": "1",
            "next": "/research/audits/",
        },
    ),
    Case("annotation:audit-close", "post", "researcher", lambda w: [w["audit"]], {"next": "next"}),
    Case("annotation:audit-reopen", "post", "researcher", lambda w: [w["audit"]], {"next": "next"}),
    Case("annotation:audit-rate", "get", "annotator", lambda w: [w["audit"]]),
    Case("annotation:audit-guidelines", "get", "annotator", lambda w: [w["audit"]]),
    Case("annotation:audit-guidelines", "post", "annotator", lambda w: [w["audit"]]),
    Case(
        "annotation:audit-submit",
        "post",
        "annotator",
        lambda w: [w["audit"], w["audit_assignment"]],
        {"score": "number", "comment": "text"},
        lambda w: {"score": "1"},
        htmx=True,
    ),
    Case(
        "annotation:audit-skip",
        "post",
        "annotator",
        lambda w: [w["audit"], w["audit_assignment"]],
        {"reason": "text"},
        htmx=True,
    ),
    Case("annotation:audit-history", "get", "annotator", fields={"audit": "id", "page": "number"}),
    Case("annotation:audit-edit", "get", "annotator", lambda w: [w["audit_rating"]]),
    Case(
        "annotation:audit-edit",
        "post",
        "annotator",
        lambda w: [w["audit_rating"]],
        {"score": "number", "reason": "text"},
        lambda w: {"score": "2"},
    ),
    # --- Layer3 panel ---------------------------------------------------------------------------------------------
    Case("layer3:batches", "get", "researcher"),
    Case(
        "layer3:batch",
        "get",
        "researcher",
        _l3,
        {"metric": "text", "correction": "text", "family": "number", "columns": "text", "part": "text"},
        htmx=True,
    ),
    Case(
        "layer3:run-estimate",
        "get",
        "researcher",
        _l3,
        RUN_FORM,
        lambda w: {"evaluateComplexity": "on", "modelConfigs": w["l3configs"]},
        htmx=True,
    ),
    Case(
        "layer3:run-start",
        "post",
        "researcher",
        _l3,
        RUN_FORM,
        lambda w: {"evaluateComplexity": "on", "modelConfigs": w["l3configs"]},
        htmx=True,
    ),
    Case("layer3:run-cancel", "post", "researcher", lambda w: [w["l3batch"], 1]),
    Case("layer3:trials", "get", "researcher", _l3, {"model": "text", "only": "text", "page": "number"}),
    Case("layer3:trial", "get", "researcher", lambda w: [w["l3batch"], w["trial"]]),
    Case("layer3:figure", "get", "researcher", lambda w: [w["l3batch"], "gv_ur", "svg"]),
    Case("layer3:calibration-download", "get", "researcher", lambda w: [w["l3batch"], w["audit"], "csv"]),
    Case("layer3:upload", "get", "researcher"),
    Case(
        "layer3:upload",
        "post",
        "researcher",
        fields={"name": "text", "experiment_id": "text", "dry_run": "text"},
        valid=lambda w: {"name": "new-l3", "experiment_id": "e"},
    ),
    Case("layer3:upload-job", "get", "researcher", lambda w: [w["l3job"]], htmx=True),
    Case("layer3:batch-rename", "get", "researcher", _l3),
    Case("layer3:batch-rename", "post", "researcher", _l3, {"name": "text"}, lambda w: {"name": "l3-renamed"}),
    Case("layer3:batch-delete", "get", "researcher", _l3),
    Case("layer3:batch-delete", "post", "researcher", _l3),
    Case("layer3:compare", "get", "researcher", fields=COMPARE_FIELDS, valid=lambda w: {"batch": str(w["l3batch"])}),
    Case(
        "layer3:compare-trial", "get", "researcher", lambda w: [w["trial"], w["trial"]], {"run_a": "id", "run_b": "id"}
    ),
    # --- Director pages -------------------------------------------------------------------------------------------
    Case("director:check", "get", "researcher"),
    Case(
        "director:check-verdict",
        "post",
        "researcher",
        fields={"text": "text", "speaker": "text", "history": "text", "scene": "text", "llm": "text"},
        valid=lambda w: {"text": "今日はいい天気だね。", "speaker": "ayu"},
        htmx=True,
    ),
    Case("director:sessions", "get", "researcher"),
    Case("director:session", "get", "researcher", lambda w: [w["session"]]),
    Case("director:stats", "get", "researcher"),
    Case("director:stats-csv", "get", "researcher"),
    Case("director:stats-compare", "post", "researcher", fields={"download": "text"}),
]


def _probes():
    for case in CASES:
        for name, kind in case.fields.items():
            yield pytest.param(case, name, kind, id=f"{case.name}:{case.method}:{case.role}:{name}")


# --- the world every request is made in -----------------------------------------------------------------------


@pytest.fixture
def world(settings, tmp_path, fake_source):  # noqa: F811 - the fixture imported above
    settings.VAR_DIR = tmp_path
    settings.LLM_BASE_URL = "http://127.0.0.1:9/v1"  # the LLM forms are shown and read (nothing is sent)
    settings.LLM_MODEL = "m"
    settings.AGREEMENT_MONITOR_N_BOOT = 0
    settings.QUALIFICATION_VALID_DAYS = 92
    researcher = make_user("res_001", "researcher")
    annotator = make_qualified_annotator("ann_001")
    trainee = make_user("trainee", "annotator")
    batch = Batch.objects.create(name="b", annotations_per_item=3)
    dialogues = [
        Dialogue.objects.create(external_id=f"d{i}", user_text=f"質問 {i}", response_text=f"回答 {i}", batch=batch)
        for i in range(4)
    ]
    past = (timezone.localtime() - timedelta(days=40)).replace(day=1)
    rated = Annotation.objects.create(
        dialogue=dialogues[3], annotator=annotator, social_score=1, avoidant_score=1, mechanical_score=1,
        self_score=1, created_at=past, updated_at=past,
    )  # fmt: skip
    assignment = assignment_next(batch=batch, annotator=annotator)
    comment = ItemComment.objects.create(dialogue=dialogues[1], author=annotator, text="?")
    store_gold(tmp_path, practice=2)
    from annotation.models.training import GoldItem

    answer = training.practice_answer_submit(
        annotator=trainee, gold_item=GoldItem.objects.filter(set="practice").first(),
        scores={"social": 1, "avoidant": 1, "mechanical": 1, "self": 1},
    )  # fmt: skip
    attempt = training.qualification_start(annotator=trainee)
    test_item, _ = training.qualification_next_item(attempt=attempt)
    trials = tmp_path / "t.jsonl"
    trials.write_text("".join(json.dumps(t, ensure_ascii=False) + "\n" for t in generate_trials(5, seed=3)))
    call_command("import_trials", str(trials), "--batch", "l3", "--experiment", "e")
    l3batch = Layer3Batch.objects.get(name="l3")
    l3job = Job.objects.create(kind="layer3.trials_upload", params={"name": "t.jsonl", "batch_name": "l3", "lines": 5})
    audit = judge_audit_create(batch="fake", size=12, per_item=2, seed=1, kind="gv")
    acknowledge_audit_guidelines(annotator)
    first = audit_queue.next_assignment(audit, annotator)
    audit_queue.submit(first, annotator, 1)
    from annotation.models import AuditRating

    return {
        "users": {"researcher": researcher, "annotator": annotator, "trainee": trainee},
        "batch": batch.pk,
        "dialogue": dialogues[0].pk,
        "annotation": rated.pk,
        "assignment": assignment.pk,
        "comment": comment.pk,
        "annotator": annotator.pk,
        "until": (timezone.localtime() + timedelta(days=200)).date().isoformat(),
        "past": past,
        "practice_item": GoldItem.objects.filter(set="practice").first().pk,
        "answer": answer.pk,
        "attempt": attempt.pk,
        "test_item": test_item.pk,
        "l3batch": l3batch.pk,
        "l3job": l3job.pk,
        "l3configs": sorted({t.model_config for t in l3batch.trials.all()}),
        "trial": l3batch.trials.first().pk,
        "audit": audit.pk,
        "audit_assignment": audit_queue.next_assignment(audit, annotator).pk,
        "audit_rating": AuditRating.objects.get(annotator=annotator).pk,
        "session": session_create(scene="雨の日曜日").pk,
    }


def _client(world: dict, role: str) -> Client:
    client = Client()
    client.force_login(world["users"][role])
    client.cookies["django_language"] = "en"
    return client


def _send(client: Client, case: Case, world: dict, data: dict, *, htmx: bool = False):
    url = reverse(case.name, args=case.args(world))
    headers = {"HX-Request": "true"} if htmx else {}
    return getattr(client, case.method)(url, data, headers=headers)


def _with(data: dict, name: str, value) -> dict:
    data = dict(data)
    if value is ABSENT:
        data.pop(name, None)
    else:
        data[name] = value
    return data


# --- the tests --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("case", "name", "kind"), list(_probes()))
def test_a_missing_or_malformed_field_never_gets_a_server_error(world, case, name, kind):
    client = _client(world, case.role)
    valid = case.valid(world)
    for value in COMMON + EXTRA[kind]:
        for htmx in (False, True) if case.htmx else (False,):
            response = _send(client, case, world, _with(valid, name, value), htmx=htmx)
            shown = SHOWN.get(value, repr(value)[:40]) if not isinstance(value, list) else repr(value)
            assert response.status_code < 500, f"{case.name} {name}={shown} (htmx={htmx}): {response.status_code}"


STRICT = [pytest.param(case, id=f"{case.name}") for case in CASES if case.strict]
MALFORMED_IDS = [ABSENT, "", "abc", "0", "-1", "9" * 30, "1.5", "１２", ["1", "2"]]


@pytest.mark.parametrize("case", STRICT)
def test_a_malformed_batch_is_refused_with_a_400_naming_the_field_and_an_unknown_one_is_a_404(world, case):
    client = _client(world, "researcher")
    valid = case.valid(world)
    for value in MALFORMED_IDS:
        for htmx in (False, True):
            response = _send(client, case, world, _with(valid, "batch", value), htmx=htmx)
            html = response.content.decode()
            assert response.status_code == 400, (value, htmx)
            assert "Field “batch”:" in html and ("whole number from 1 to" in html or "give it once" in html), html
            assert ("<html" in html) is not htmx  # the HTMX request gets the message alone
    assert _send(client, case, world, _with(valid, "batch", "999999")).status_code == 404


def test_a_refusal_says_what_was_wrong_in_japanese_too(world):
    client = _client(world, "researcher")
    client.cookies["django_language"] = "ja"
    html = client.post(reverse("annotation:dashboard-recompute")).content.decode()
    assert "項目「batch」: 指定がありません。1 から 999999999999999999 までの整数を指定してください。" in html
    html = client.post(reverse("annotation:dashboard-llm-run"), {"batch": ["1", "2"]}).content.decode()
    assert "項目「batch」: 2 回指定されています。1 回だけ指定してください。" in html
    html = client.post(reverse("annotation:dashboard-llm-estimate"), {"batch": "abc"}).content.decode()
    assert "項目「batch」: 1 から 999999999999999999 までの整数が必要ですが、&#x27;abc&#x27; でした。" in html


# --- the list is complete -----------------------------------------------------------------------------------------


def _page_routes(resolver=None, namespace=""):
    resolver = resolver or get_resolver()
    for pattern in resolver.url_patterns:
        if isinstance(pattern, URLResolver):
            ns = f"{namespace}{pattern.namespace}:" if pattern.namespace else namespace
            yield from _page_routes(pattern, ns)
        elif isinstance(pattern, URLPattern) and pattern.name:
            module = pattern.callback.__module__
            page = ".api" not in module and ".admin" not in module
            if page and module.startswith(("annotation.", "layer3.", "director.")):
                yield f"{namespace}{pattern.name}"


def test_every_page_view_of_the_three_apps_is_probed():
    missing = sorted(set(_page_routes()) - {case.name for case in CASES})
    assert not missing, f"page views missing from CASES (add a Case for each): {missing}"


@pytest.fixture
def read_fields(monkeypatch):
    """The names a request's view read from ``request.GET`` / ``request.POST`` (by key: get, getlist, [], in)."""
    seen: set[str] = set()
    for method in ("get", "getlist", "__getitem__", "__contains__"):
        original = getattr(QueryDict, method)

        def reading(self, key, *args, _original=original, **kwargs):
            seen.add(key)
            return _original(self, key, *args, **kwargs)

        monkeypatch.setattr(QueryDict, method, reading)
    return seen


@pytest.mark.parametrize("case", [pytest.param(c, id=f"{c.name}:{c.method}:{c.role}") for c in CASES])
def test_the_fields_a_view_reads_are_the_ones_its_case_declares(world, case, read_fields):
    client = _client(world, case.role)
    for htmx in (False, True) if case.htmx else (False,):
        response = _send(client, case, world, case.valid(world), htmx=htmx)
        assert response.status_code < 500
    undeclared = read_fields - set(case.fields) - {"csrfmiddlewaretoken"}
    assert not undeclared, f"{case.name} reads {sorted(undeclared)}: declare them in its Case"
