"""A rating sheet's new ratings obey the batch's quota and the qualification (issue #41, point 5), counted as every
import counts them (``annotation.io.import_rules``). Each violation is a problem located in the sheet's terms (the
row's id cell; the whole sheet for its annotator) and stores nothing: every table an import writes keeps its rows.
An annotator's own upload offers no override and says what happened; a researcher's (the page, its job, the
command) names the overrides, and one chosen with a reason stores the sheet and is recorded with who and why.
The concurrency guarantee on PostgreSQL: test_sheet_rules_concurrency.py."""

import io
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.utils import timezone, translation

import annotation.spreadsheets.uploads as sheet_uploads
from annotation.collection.queue import annotation_submit, assignment_next
from annotation.io.import_rules import RatingOverrides
from annotation.io.imports import annotations_import
from annotation.io.rating_uploads import OPTION_NAMES
from annotation.models import (
    Annotation,
    AnnotationEdit,
    Assignment,
    Batch,
    ImportOverride,
    ImportOverrideRating,
    ItemComment,
    QualificationAttempt,
    QueueEntry,
)
from annotation.spreadsheets import layout
from annotation.spreadsheets import problems as msgids
from annotation.spreadsheets.imports import SheetRejected, sheet_import
from annotation.spreadsheets.services import template_write
from annotation.spreadsheets.upload_jobs import SHEET_UPLOAD
from core.job_display import job_summary
from core.job_runner import job_run
from core.models import Job
from tests.annotation.api.support import CONFIDENCE, SCORES
from tests.annotation.conftest import dialogue, rating, write_jsonl
from tests.annotation.spreadsheets.test_views import GOOD, _client, _csv, _csv_row, _file, _fill, _urls
from tests.helpers import make_qualified_annotator, make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def batch(jsonl):
    """Batch "sheet" of six dialogues, open to every annotator (quota 3)."""
    call_command("import_dialogues", str(jsonl([dialogue(i) for i in range(6)])), batch="sheet")
    return Batch.objects.get(name="sheet")


@pytest.fixture
def ann():
    return make_qualified_annotator("ann_q")


PAGE_NAMES = OPTION_NAMES["page"]
ID_CELL = (layout.RATINGS_SHEET, "A", layout.HEADERS[0])
WRITTEN = (Annotation, AnnotationEdit, ItemComment, ImportOverride, ImportOverrideRating, Assignment, User, Job)
ROW = {f"dialogue_{i:03d}": i + 2 for i in range(6)}  # the template's rows, in the batch's order


def _state() -> tuple:
    """What a sheet import writes: the rows of its tables, the queue's counts and the reservations' states."""
    counts = {model.__name__: model.objects.count() for model in WRITTEN}
    return (counts, sorted(QueueEntry.objects.values_list("pk", "taken_count")),
            sorted(Assignment.objects.values_list("pk", "status")))  # fmt: skip


def _refused(**kwargs) -> list:
    before = _state()
    with pytest.raises(SheetRejected) as caught:
        sheet_import(**kwargs)
    assert _state() == before
    return caught.value.problems


def _workbook(tmp_path, batch, annotator, rows=GOOD):
    buffer = io.BytesIO()
    template_write(buffer, batch=batch, annotator=annotator)
    path = tmp_path / f"{annotator.get_username()}.xlsx"
    path.write_bytes(_fill(buffer.getvalue(), rows))
    return path


def _quota(batch, quota: int) -> None:
    Batch.objects.filter(pk=batch.pk).update(annotations_per_item=quota)


def _web_rating(batch, name: str) -> Annotation:
    """Someone rates on the web: the queue hands them the next item and they submit it."""
    given = assignment_next(batch=batch, annotator=make_qualified_annotator(name))
    return annotation_submit(assignment=given, scores=SCORES, confidence=CONFIDENCE).annotation


def _expire(user) -> None:
    QualificationAttempt.objects.filter(annotator=user).update(finished_at=timezone.now() - timedelta(days=100))


def _where(problems) -> list[tuple]:
    return [(p.sheet, p.row, p.column, p.header, p.value) for p in problems]


# ---------------------------------------------------------------------------------------------- the quota


def test_an_item_that_reached_its_quota_meanwhile_is_refused_on_its_row_for_the_annotator(batch, ann, tmp_path):
    path = _workbook(tmp_path, batch, ann)  # dialogue_000, 002 and 004 rated
    _quota(batch, 1)
    assert _web_rating(batch, "ann_web").dialogue.external_id == "dialogue_000"  # after the sheet was made

    problems = _refused(path=path)
    assert _where(problems) == [(ID_CELL[0], ROW["dialogue_000"], ID_CELL[1], ID_CELL[2], "dialogue_000")]
    assert problems[0].template == msgids.OWN_OVER_QUOTA
    assert problems[0].message == (
        "dialogue 'dialogue_000' reached the quota of batch 'sheet' (1 rating(s) per item) after this sheet was made: "
        "others rated or reserved it meanwhile, and the queue never hands an item out beyond its quota. Nothing was "
        "stored: leave this row's scores blank and upload the sheet again, or ask a researcher to upload it"
    )
    # Left blank, the rest is stored.
    summary = sheet_import(path=_workbook(tmp_path, batch, ann, {k: v for k, v in GOOD.items() if k != "dialogue_000"}))
    assert summary.created == 2 and not ImportOverride.objects.exists()


def test_open_reservations_count_and_the_annotators_own_becomes_their_rating(batch, ann, tmp_path):
    _quota(batch, 1)
    own = assignment_next(batch=batch, annotator=ann)
    other = assignment_next(batch=batch, annotator=make_qualified_annotator("ann_other"))
    rows = {own.dialogue.external_id: (1, 1, 1, 1), other.dialogue.external_id: (2, 2, 2, 2)}
    problems = _refused(path=_csv_path(tmp_path, rows), annotator=ann)  # rows 2 and 3
    assert [(p.row, p.value, p.template) for p in problems] == [(3, other.dialogue.external_id, msgids.OWN_OVER_QUOTA)]

    own_only = {own.dialogue.external_id: (1, 1, 1, 1)}
    summary = sheet_import(path=_csv_path(tmp_path, own_only), annotator=ann)  # it takes its reservation's slot
    assert summary.created == 1
    assert Assignment.objects.get(pk=own.pk).status == Assignment.Status.CLOSED
    assert QueueEntry.objects.get(pk=own.dialogue_id).taken_count == 1


def _csv_path(tmp_path, rows: dict):
    """A CSV of the sheet's columns rating ``rows`` ({id: four scores}), in the given order (rows 2, 3, ...)."""
    path = tmp_path / "sheet.csv"
    path.write_bytes(_csv([_csv_row(int(key[-3:]), scores=tuple(map(str, scores))) for key, scores in rows.items()]))
    return path


def test_a_changed_rating_of_a_full_item_adds_nothing_and_passes(batch, ann, tmp_path):
    sheet_import(path=_workbook(tmp_path, batch, ann, {"dialogue_000": (1, 1, 1, 1)}))
    _quota(batch, 2)
    annotations_import(paths=[write_jsonl(tmp_path / "r.jsonl", [rating(0, "ext_a")])])  # the item is full now
    summary = sheet_import(path=_workbook(tmp_path, batch, ann, {"dialogue_000": (5, 5, 5, 5)}))
    assert (summary.created, summary.updated) == (0, 1) and not ImportOverride.objects.exists()


def test_the_rules_problems_come_with_the_sheets_other_problems(batch, ann, tmp_path):
    path = _workbook(tmp_path, batch, ann, {**GOOD, "dialogue_001": (9, 1, 1, 1)})
    _quota(batch, 1)
    _web_rating(batch, "ann_web")  # dialogue_000
    problems = _refused(path=path)
    assert [(p.row, p.column, p.template) for p in problems] == [
        (ROW["dialogue_001"], "E", msgids.MUST_BE), (ROW["dialogue_000"], "A", msgids.OWN_OVER_QUOTA)
    ]  # fmt: skip


def test_a_researchers_upload_names_the_override_and_the_override_stores_and_records(batch, ann, researcher,
                                                                                     tmp_path):  # fmt: skip
    path = _workbook(tmp_path, batch, ann)
    _quota(batch, 1)
    _web_rating(batch, "ann_web")
    (problem,) = _refused(path=path, option_names=PAGE_NAMES)
    assert problem.template == msgids.OVER_QUOTA and problem.row == ROW["dialogue_000"]
    assert "would have 2 ratings, more than the quota of batch 'sheet' (1 per item; 1 stored or reserved" in (
        problem.message
    )
    assert problem.message.endswith("or add the option “Allow more ratings than the quota” with a reason")

    overrides = RatingOverrides(allow_over_quota=True, reason="ann_q rated on paper first", by=researcher)
    summary = sheet_import(path=path, option_names=PAGE_NAMES, overrides=overrides)
    assert summary.created == 3 and summary.overridden == {"quota": 1}
    record = ImportOverride.objects.get()
    assert (record.created_by, record.by_name, record.reason) == (researcher, "res_001", "ann_q rated on paper first")
    assert (record.surface, record.batch, record.batch_names, record.files) == ("sheet", batch, "sheet", "ann_q.xlsx")
    assert record.counts == {"quota": 1} and record.job_id is None
    links = list(record.ratings.values_list("annotation__annotator__username", "annotation__dialogue__external_id",
                                            "rule", "line"))  # fmt: skip
    assert links == [("ann_q", "dialogue_000", "quota", f"ann_q.xlsx {layout.RATINGS_SHEET}!2")]
    assert (summary.override_id, summary.override_by) == (record.pk, "res_001")
    assert Annotation.objects.filter(dialogue__external_id="dialogue_000").count() == 2


def test_a_dry_run_says_what_an_override_would_let_in_and_records_nothing(batch, ann, researcher, tmp_path):
    path = _workbook(tmp_path, batch, ann)
    _quota(batch, 1)
    _web_rating(batch, "ann_web")
    before = _state()
    overrides = RatingOverrides(allow_over_quota=True, reason="x", by=researcher)
    summary = sheet_import(path=path, option_names=PAGE_NAMES, overrides=overrides, dry_run=True)
    assert summary.dry_run and summary.overridden == {"quota": 1} and summary.override_id is None
    assert _state() == before


def test_an_override_needs_a_reason_a_researchers_upload_and_a_rule_a_sheet_has(batch, ann, researcher, tmp_path):
    path = _workbook(tmp_path, batch, ann)
    before = _state()
    for overrides, names, message in (
        (RatingOverrides(allow_over_quota=True, by=researcher), PAGE_NAMES, "give a reason for the override"),
        (RatingOverrides(allow_over_quota=True, reason="x"), None, "to a researcher only"),
        (RatingOverrides(allow_unchosen_annotators=True, reason="x"), PAGE_NAMES, "to a researcher only"),
    ):
        with pytest.raises(ValueError, match=message):
            sheet_import(path=path, overrides=overrides, option_names=names)
    assert _state() == before


# ---------------------------------------------------------------------------------------------- the qualification


def test_an_expired_qualification_refuses_the_annotators_sheet_as_a_whole(batch, ann, tmp_path):
    path = _workbook(tmp_path, batch, ann)
    _expire(ann)
    (problem,) = _refused(path=path)
    assert _where([problem]) == [("ann_q.xlsx", None, None, None, "")] and problem.template == msgids.OWN_NOT_QUALIFIED
    expired = timezone.localdate(QualificationAttempt.objects.get().finished_at + timedelta(days=92)).isoformat()
    assert problem.message == (
        f"'ann_q' has a qualification that expired on {expired}, and the queue hands items only to qualified "
        "annotators: the 3 new rating(s) of this sheet cannot be stored. Nothing was stored: pass the "
        "qualification test again on the training page and upload the sheet again, or ask a researcher to upload it"
    )


def test_a_researcher_uploading_an_unqualified_annotators_sheet_needs_the_override(batch, researcher, tmp_path):
    newbie = make_user("ann_new", "annotator")  # logs in, has not passed the test
    path = _workbook(tmp_path, batch, newbie)
    (problem,) = _refused(path=path, option_names=PAGE_NAMES)
    assert problem.template == msgids.NOT_QUALIFIED and problem.row is None
    assert problem.message.startswith("'ann_new' has not passed the qualification test (3 new rating(s) in this sheet)")
    assert "the option “Allow annotators without a valid qualification” with a reason" in problem.message

    overrides = RatingOverrides(allow_unqualified_annotators=True, reason="trained offline", by=researcher)
    summary = sheet_import(path=path, option_names=PAGE_NAMES, overrides=overrides)
    assert summary.created == 3 and summary.overridden == {"qualification": 3}
    record = ImportOverride.objects.get()
    assert record.counts == {"qualification": 3} and record.created_by == researcher
    assert sorted(record.ratings.values_list("line", flat=True)) == [
        f"ann_new.xlsx {layout.RATINGS_SHEET}!{ROW[key]}" for key in sorted(GOOD)
    ]


def test_a_placeholder_account_is_not_asked_for_a_qualification(batch, tmp_path):
    annotations_import(paths=[write_jsonl(tmp_path / "r.jsonl", [rating(5, "ext_1")])])  # makes the placeholder
    summary = sheet_import(path=_csv_path(tmp_path, {"dialogue_001": (1, 1, 1, 1)}),
                           annotator=User.objects.get(username="ext_1"))  # fmt: skip
    assert summary.created == 1 and not ImportOverride.objects.exists()


# ---------------------------------------------------------------------------------------------- the pages


def _over_quota_sheet(client, batch, name="ann_web"):
    data = _fill(client.get(_urls(batch)["template"]).content, GOOD)
    _quota(batch, 1)
    _web_rating(batch, name)  # dialogue_000 is full now
    return data


def test_the_annotators_page_lists_the_row_offers_no_override_and_stores_nothing(batch, ann):
    client = _client(ann)
    data = _over_quota_sheet(client, batch)
    before = _state()
    response = client.post(_urls(batch)["page"], {"file": _file(data, "mine.xlsx"), "allow_over_quota": "on",
                                                  "reason": "please"})  # fmt: skip
    assert response.status_code == 400
    html = response.content.decode()
    assert 'data-problems="1"' in html and f'data-row="{ROW["dialogue_000"]}" data-column="A"' in html
    assert "reached the quota of batch &#x27;sheet&#x27; (1 rating(s) per item) after this sheet was made" in html
    assert "or ask a researcher to upload it" in html and 'name="allow_over_quota"' not in html
    assert _state() == before


def test_the_researchers_form_offers_the_overrides_in_japanese_and_english(batch, researcher, ann):
    ja = _client(researcher)
    del ja.cookies["django_language"]
    for url in (_urls(batch)["batch_page"], f"/research/batches/{batch.pk}/"):
        html = ja.get(url).content.decode()
        form = html[html.index('data-form="sheet-upload"') :]
        for name in ("allow_over_quota", "allow_unqualified_annotators", "reason"):
            assert f'name="{name}"' in form and f'id="sheet-up-{name}"' in form, (url, name)
        assert 'name="allow_unchosen_annotators"' not in form and 'name="allow_closed_batch"' not in form
        assert "バッチの規則の例外" in form and "上限を超える評価を許可する" in form and "例外の理由" in form
    html = _client(researcher).get(_urls(batch)["batch_page"]).content.decode()
    assert "Overrides of the batch" in html and "Allow more ratings than the quota" in html
    assert '<details class="ws-overrides" data-overrides="sheet">' in html  # closed until used


def test_the_researchers_page_refuses_then_stores_with_the_override_and_records_it(batch, researcher, ann):
    data = _over_quota_sheet(_client(ann), batch)
    client, url = _client(researcher), _urls(batch)["batch_page"]
    before = _state()
    html = client.post(url, {"file": _file(data)}).content.decode()
    assert "would have 2 ratings, more than the quota of batch &#x27;sheet&#x27;" in html
    assert "the option “Allow more ratings than the quota” with a reason" in html and _state() == before

    response = client.post(url, {"file": _file(data), "allow_over_quota": "on"})
    html = response.content.decode()
    assert response.status_code == 400 and _state() == before
    assert "give a reason for the override (the option “Allow more ratings than the quota”)" in html
    assert '<details class="ws-overrides" data-overrides="sheet" open>' in html

    evil = '<script>alert("x")</script> 紙で先に評価'
    response = client.post(url, {"file": _file(data), "allow_over_quota": "on", "reason": evil})
    assert response.status_code == 302, response.content.decode()[:2000]
    record = ImportOverride.objects.get()
    assert (record.created_by, record.reason, record.surface, record.counts) == (researcher, evil, "sheet",
                                                                                 {"quota": 1})  # fmt: skip
    page = client.get(response["Location"]).content.decode()
    assert "Sheet of ann_q: 3 ratings stored (3 new, 3 rows left blank)." in page
    assert f"recorded as import override #{record.pk} by res_001." in page and "<script>alert" not in page


def test_the_researchers_page_lets_an_unqualified_annotators_sheet_in_with_a_reason(batch, researcher):
    newbie = make_user("ann_new", "annotator")
    client = _client(researcher)
    data = _fill(client.get(_urls(batch)["batch_template"], {"annotator": newbie.pk}).content, GOOD)
    html = client.post(_urls(batch)["batch_page"], {"file": _file(data)}).content.decode()
    assert "&#x27;ann_new&#x27; has not passed the qualification test (3 new rating(s) in this sheet)" in html
    assert not Annotation.objects.exists()
    response = client.post(_urls(batch)["batch_page"], {"file": _file(data), "allow_unqualified_annotators": "on",
                                                        "reason": "trained offline"})  # fmt: skip
    assert response.status_code == 302
    assert ImportOverride.objects.get().counts == {"qualification": 3} and Annotation.objects.count() == 3


def test_a_researchers_large_sheet_job_takes_the_override_and_records_the_job(batch, researcher, ann, monkeypatch):
    monkeypatch.setattr(sheet_uploads, "LARGE_UPLOAD_BYTES", 1000)
    data = _over_quota_sheet(_client(ann), batch)
    client = _client(researcher)
    response = client.post(_urls(batch)["batch_page"], {"file": _file(data), "allow_over_quota": "on",
                                                        "reason": "pilot"})  # fmt: skip
    job = Job.objects.get(kind=SHEET_UPLOAD)
    assert response["Location"] == f"{_urls(batch)['batch_page']}?job={job.pk}"
    assert job.params["allow_over_quota"] is True and job.params["reason"] == "pilot"
    assert job.params["allow_unqualified_annotators"] is False and job.params["page"] == "researcher"
    job = job_run(job_id=job.pk)
    assert job.status == Job.Status.SUCCEEDED, job.error
    record = ImportOverride.objects.get()
    assert (record.job_id, record.created_by, record.surface, record.counts) == (job.pk, researcher, "sheet",
                                                                                 {"quota": 1})  # fmt: skip
    assert job.result["override"] == {"id": record.pk, "by": "res_001", "reason": "pilot"}
    assert job.result["overridden"] == {"quota": 1}
    with translation.override("en"):
        text, _url = job_summary(job)
    assert text.endswith(f"recorded as import override #{record.pk} by res_001.")


def test_an_annotators_job_refuses_when_the_qualification_expired_before_it_ran(batch, ann, monkeypatch):
    monkeypatch.setattr(sheet_uploads, "LARGE_UPLOAD_BYTES", 1000)
    client = _client(ann)
    data = _fill(client.get(_urls(batch)["template"]).content, GOOD)
    response = client.post(_urls(batch)["page"], {"file": _file(data)})
    job = Job.objects.get(kind=SHEET_UPLOAD)
    assert response.status_code == 302 and "allow_over_quota" not in job.params
    _expire(ann)
    before = _state()
    job = job_run(job_id=job.pk)
    assert job.status == Job.Status.FAILED
    (problem,) = job.result["problems"]
    assert problem["template"] == msgids.OWN_NOT_QUALIFIED and problem["row"] is None
    assert "has a qualification that expired on" in problem["message"] and _state() == before


# ---------------------------------------------------------------------------------------------- the command


def test_the_command_names_its_options_and_records_the_override(batch, ann, researcher, tmp_path):
    path = _workbook(tmp_path, batch, ann)
    _quota(batch, 1)
    _web_rating(batch, "ann_web")
    before = _state()
    with pytest.raises(CommandError) as error:
        call_command("import_spreadsheet", str(path))
    assert "評価!A2 (id): dialogue 'dialogue_000' would have 2 ratings" in str(error.value)
    assert "or add --allow-over-quota with a reason" in str(error.value) and _state() == before
    with pytest.raises(CommandError, match="--reason: give a reason for the override \\(--allow-over-quota\\)"):
        call_command("import_spreadsheet", str(path), allow_over_quota=True)
    out = io.StringIO()
    call_command("import_spreadsheet", str(path), allow_over_quota=True, reason="paper", by="res_001", stdout=out)
    record = ImportOverride.objects.get()
    assert (record.surface, record.created_by, record.counts) == ("sheet_command", researcher, {"quota": 1})
    assert f"recorded as import override #{record.pk} by res_001: paper" in out.getvalue()
