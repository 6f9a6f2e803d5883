"""Django admin of the annotation app: every changelist in Japanese with times in Tokyo; read-only history."""

import re
from datetime import UTC, datetime

import pytest
from django.contrib import admin
from django.core.management import call_command
from django.utils import timezone

from annotation.models import (
    Adjudication,
    AgreementReport,
    Annotation,
    Assignment,
    AuditItem,
    AuditRating,
    AuditRatingEdit,
    Batch,
    Dialogue,
    DialogueRevision,
    GoldItem,
    ItemComment,
    JudgeAudit,
    QualificationAttempt,
    QualificationExtension,
    QualityFlag,
    TrainingAnswer,
)
from annotation.review.flags import flags_review
from annotation.review.services import adjudication_record, item_comment_create
from annotation.services import agreement_report_create, annotation_update
from tests.annotation.conftest import dialogue, rating

pytestmark = pytest.mark.django_db
JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")
EVIL = '<script>alert("x")</script>'


@pytest.fixture
def data(jsonl, annotator, staff_user):
    """A row in every admin-registered model of the annotation app, with some hostile text."""
    call_command("import_dialogues", str(jsonl([dialogue(i) for i in range(12)])), batch="b1")
    rows = [rating(i, name, scores=(1 + (i + k) % 5, 1 + i % 3, 1 + i % 2, 1 + (i * k) % 5))
            for i in range(12) for k, name in enumerate(["ann_001", "ann_002", "ann_003"])]  # fmt: skip
    # ann_001 is a live annotator who has not passed the test: the import's override is recorded, with hostile text
    call_command("import_annotations", str(jsonl(rows)), allow_unqualified_annotators=True, reason=EVIL)
    batch = Batch.objects.get(name="b1")
    agreement_report_create(batch=batch, n_boot=5)
    item = Dialogue.objects.get(external_id="dialogue_000")
    annotation_update(annotation=Annotation.objects.filter(dialogue=item).first(), values={"self_score": 5},
                      user=staff_user, reason=EVIL)  # fmt: skip
    DialogueRevision.objects.create(dialogue=item, source="file.jsonl:1", user_text=EVIL, response_text="r")
    adjudication_record(dialogue=item, axis="social", score=3, reason=EVIL, user=staff_user)
    item_comment_create(dialogue=item, author=annotator, text=EVIL, problem=True)
    flags_review(flags=QualityFlag.objects.all()[:1], status="dismissed", note=EVIL, user=staff_user)
    Assignment.objects.create(dialogue=item, batch=batch, annotator=annotator, status="skipped",
                              expires_at=timezone.now(), finished_at=timezone.now(), skip_reason=EVIL)  # fmt: skip
    gold = GoldItem.objects.create(
        external_id="g1", user_text="u", response_text="r", explanation="e", set="test",
        social_gold=1, avoidant_gold=1, mechanical_gold=1, self_gold=1,
    )  # fmt: skip
    attempt = QualificationAttempt.objects.create(annotator=annotator)
    TrainingAnswer.objects.create(annotator=annotator, gold_item=gold, attempt=attempt, social_score=1,
                                  avoidant_score=1, mechanical_score=1, self_score=1)  # fmt: skip
    passed = QualificationAttempt.objects.create(annotator=staff_user, finished_at=timezone.now(), passed=True)
    QualificationExtension.objects.create(annotator=staff_user, attempt=passed, extended_by=staff_user, reason=EVIL,
                                          new_expires_at=timezone.now())  # fmt: skip
    audit = JudgeAudit.objects.create(name=EVIL, kind="gv", source_batch="l3", requested_size=1, seed=1, population=1)
    unit = AuditItem.objects.create(audit=audit, key="t1:g1", trial_id="t1", model_config="A", context={"text": EVIL},
                                    judge_model="m", judge_prompt="p@1", judge_score=1, judge_reasoning=EVIL,
                                    stratum=["A", 1], weight=1.0)  # fmt: skip
    audit_rating = AuditRating.objects.create(item=unit, annotator=annotator, score=1, comment=EVIL)
    AuditRatingEdit.objects.create(rating=audit_rating, edited_by=staff_user, old_score=0, new_score=1, reason=EVIL)
    return batch


@pytest.fixture
def admin_client(client, staff_user):
    client.force_login(staff_user)  # no language cookie: Japanese is the default
    return client


def _registered():
    return [model for model in admin.site._registry if model._meta.app_label == "annotation"]


def _headers(html: str) -> list[str]:
    start = html.index("<thead>")
    head = html[start : html.index("</thead>", start)]
    cells = re.findall(r'<th scope="col"\s+class="([^"]*)">(.*?)</th>', head, re.S)
    return [re.sub(r"<[^>]+>", "", text).strip() for cls, text in cells if "action-checkbox-column" not in cls]


def test_every_annotation_model_has_an_admin(data):
    registered = {model.__name__ for model in _registered()}
    assert {"Adjudication", "ItemComment", "AnnotationEdit", "Assignment", "TrainingAnswer", "QualityFlag",
            "AgreementReport", "Annotation", "Dialogue", "Batch"} <= registered  # fmt: skip


def test_every_changelist_loads_in_japanese_with_japanese_column_headers(admin_client, data):
    for model in _registered():
        url = f"/admin/annotation/{model._meta.model_name}/"
        response = admin_client.get(url)
        assert response.status_code == 200, url
        html = response.content.decode()
        assert '<html lang="ja"' in html, url
        assert response.context["cl"].result_count > 0, url
        headers = _headers(html)
        assert headers, url
        for header in headers:
            assert header == "ID" or JAPANESE.search(header), f"{url}: column {header!r} is not in Japanese"
        assert JAPANESE.search(str(model._meta.verbose_name_plural)), url
        assert "<script>alert" not in html, url


def test_a_few_known_headers(admin_client, data):
    assert {"所要秒数", "最低信頼度", "タイムスタンプ"} <= set(
        _headers(admin_client.get("/admin/annotation/annotation/").content.decode())
    )
    assert {"種類", "統計量 / しきい値", "アノテーター", "対話", "軸"} <= set(
        _headers(admin_client.get("/admin/annotation/qualityflag/").content.decode())
    )
    report_headers = _headers(admin_client.get("/admin/annotation/agreementreport/").content.decode())
    assert {"作成者", "社会的迎合 κ", "自己迎合 κ"} <= set(report_headers)


def test_list_times_are_in_tokyo(admin_client, data):
    report = AgreementReport.objects.get()
    AgreementReport.objects.filter(pk=report.pk).update(created_at=datetime(2025, 1, 6, 16, 30, tzinfo=UTC))
    QualityFlag.objects.filter(report=report).update(created_at=datetime(2025, 1, 6, 16, 30, tzinfo=UTC))
    html = admin_client.get("/admin/annotation/agreementreport/").content.decode()
    cell = re.search(r'<th class="field-created_at nowrap">(.*?)</th>', html, re.S).group(1)
    assert "2025年1月7日1:30" in cell.replace(" ", "") and "16:30" not in cell
    flag = QualityFlag.objects.filter(report=report).first()
    html = admin_client.get(f"/admin/annotation/qualityflag/{flag.pk}/change/").content.decode()
    assert "2025-01-07 01:30" in html  # the report it came from, in Tokyo time


def test_flag_list_shows_the_finding_in_japanese_and_keeps_the_stored_message(admin_client, data):
    consistency = QualityFlag.objects.filter(source="consistency").first()
    stored = consistency.message
    html = admin_client.get("/admin/annotation/qualityflag/", {"source__exact": "consistency"}).content.decode()
    consistency.refresh_from_db()
    assert consistency.message == stored and stored.startswith(
        ("Social", "Self", "Avoidant", "Mechanical", "Conf", "All")
    )
    assert consistency.details["message_ja"][:30] in html
    outlier = QualityFlag.objects.create(source="outlier", kind="too_fast", statistic=2.5, threshold=5.0,
                                         message="median 2.5 s per item, below 5.0 s",
                                         details={"n_timed": 12, "share_under_3s": 0.75})  # fmt: skip
    html = admin_client.get("/admin/annotation/qualityflag/", {"kind": "too_fast"}).content.decode()
    assert "Median 2.5 s per item" in html or "中央値が 2.5 秒" in html
    outlier.refresh_from_db()
    assert outlier.message == "median 2.5 s per item, below 5.0 s"


@pytest.mark.parametrize("model", [Adjudication, ItemComment])
def test_the_review_admins_keep_their_rows_as_history(admin_client, data, model):
    """Stored rows are never changed or deleted; comments are not added here either (adjudications are: an
    admin's override, tests/annotation/test_admin_ratings_review.py)."""
    row = model.objects.get()
    base = f"/admin/annotation/{model._meta.model_name}/"
    if model is ItemComment:
        assert admin_client.get(f"{base}add/").status_code == 403
        assert admin_client.post(f"{base}add/", {"text": "x"}).status_code == 403
    change = admin_client.get(f"{base}{row.pk}/change/")
    assert change.status_code == 200 and 'name="_save"' not in change.content.decode()  # view only
    assert admin_client.post(f"{base}{row.pk}/change/", {"reason": "changed", "text": "changed"}).status_code == 403
    assert admin_client.post(f"{base}{row.pk}/delete/", {"post": "yes"}).status_code == 403
    assert model.objects.filter(pk=row.pk).exists()
    html = admin_client.get(base).content.decode()
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in html and EVIL not in html


def test_review_admins_filter_and_search(admin_client, data):
    assert admin_client.get("/admin/annotation/adjudication/", {"axis": "social"}).context["cl"].result_count == 1
    assert admin_client.get("/admin/annotation/adjudication/", {"axis": "self"}).context["cl"].result_count == 0
    assert admin_client.get("/admin/annotation/itemcomment/", {"problem__exact": "1"}).context["cl"].result_count == 1
    assert admin_client.get("/admin/annotation/itemcomment/", {"resolved": "yes"}).context["cl"].result_count == 0
    assert admin_client.get("/admin/annotation/itemcomment/", {"q": "dialogue_000"}).context["cl"].result_count == 1


def test_a_comment_can_be_marked_resolved_from_the_list(admin_client, data):
    comment = ItemComment.objects.get()
    response = admin_client.post(
        "/admin/annotation/itemcomment/", {"action": "mark_resolved", "_selected_action": [comment.pk]}
    )
    assert response.status_code == 302
    comment.refresh_from_db()
    assert comment.resolved_at is not None and comment.text == EVIL
    assert admin_client.get("/admin/annotation/itemcomment/", {"resolved": "yes"}).context["cl"].result_count == 1


def test_the_resolve_action_needs_the_change_permission(client, data):
    from django.contrib.auth.models import Permission

    from tests.helpers import make_user

    viewer = make_user("viewer")
    viewer.is_staff = True
    viewer.save()
    viewer.user_permissions.add(Permission.objects.get(codename="view_itemcomment"))
    client.force_login(viewer)
    comment = ItemComment.objects.get()
    client.post("/admin/annotation/itemcomment/", {"action": "mark_resolved", "_selected_action": [comment.pk]})
    comment.refresh_from_db()
    assert comment.resolved_at is None


@pytest.mark.parametrize("model", [AgreementReport, DialogueRevision])
def test_reports_and_revisions_are_read_only_but_deletable_by_admins(rf, staff_user, model):
    request = rf.get("/")
    request.user = staff_user
    model_admin = admin.site._registry[model]
    assert model_admin.has_delete_permission(request) and not model_admin.has_change_permission(request)
    assert not model_admin.has_add_permission(request)
