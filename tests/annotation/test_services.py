import pytest
from django.core.management import call_command

from annotation.models import AgreementReport, Annotation, AnnotationEdit, Batch, QualityFlag
from annotation.review.flags import flags_review
from annotation.services import agreement_report_create, annotation_update
from tests.annotation.conftest import dialogue, rating
from tests.helpers import make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def stored(jsonl):
    call_command("import_dialogues", str(jsonl([dialogue(i) for i in range(12)])), batch="b1")
    rows = []
    for i in range(12):
        rows.append(rating(i, "ann_001", scores=(1 + i % 3, 1, 1, 1)))
        rows.append(rating(i, "ann_002", scores=(1 + i % 3, 1, 2 if i == 0 else 1, 1), conf=(0.5, 0.9, 0.9, 0.9)))
    call_command("import_annotations", str(jsonl(rows)))
    return Batch.objects.get(name="b1")


def test_agreement_report_is_stored_with_quality_flags(stored):
    report = agreement_report_create(batch=stored, n_boot=50)
    assert report.batch == stored and report.source == "batch b1"
    assert report.axis_kappa("social") == pytest.approx(1.0)
    low_confidence = QualityFlag.objects.filter(source="consistency", kind="C005")
    assert low_confidence.count() == 12
    flag = low_confidence.first()
    assert flag.annotator.username == "ann_002" and flag.axis == "social" and flag.annotation is not None
    assert flag.status == "open" and flag.details["severity"] == "warning"


def test_recomputing_keeps_review_decisions_and_does_not_duplicate_flags(stored, researcher):
    agreement_report_create(batch=stored, n_boot=0)
    first = QualityFlag.objects.filter(kind="C005").order_by("pk").first()
    first.status, first.reviewer = QualityFlag.Status.DISMISSED, researcher
    first.save()
    total = QualityFlag.objects.count()
    second = agreement_report_create(batch=stored, n_boot=0)
    assert QualityFlag.objects.count() == total
    first.refresh_from_db()
    assert first.status == "dismissed" and first.report == second


def test_open_flags_that_no_longer_apply_are_removed(stored):
    agreement_report_create(batch=stored, n_boot=0)
    Annotation.objects.filter(annotator__username="ann_002").update(social_confidence=0.9)
    agreement_report_create(batch=stored, n_boot=0)
    assert not QualityFlag.objects.filter(kind="C005").exists()
    assert AgreementReport.objects.count() == 2


def test_a_reopened_flag_whose_finding_is_gone_stays_with_its_review_history(stored, researcher):
    agreement_report_create(batch=stored, n_boot=0)
    reopened = QualityFlag.objects.filter(kind="C005").order_by("pk").first()
    flags_review(flags=[reopened], status="accepted", note="yes", user=researcher)
    flags_review(flags=[reopened], status="open", user=researcher)
    Annotation.objects.filter(annotator__username="ann_002").update(social_confidence=0.9)
    agreement_report_create(batch=stored, n_boot=0)
    assert list(QualityFlag.objects.filter(kind="C005")) == [reopened]
    assert reopened.reviews.count() == 2


def test_no_ratings_is_an_error(db):
    with pytest.raises(ValueError, match="no ratings stored in batch empty"):
        agreement_report_create(batch=Batch.objects.create(name="empty"))


def test_annotation_update_keeps_history(stored):
    editor = make_user("res_009", "researcher")
    annotation = Annotation.objects.filter(annotator__username="ann_001").first()
    annotation_update(annotation=annotation, values={"social_score": 5}, user=editor, reason="typo")
    annotation.refresh_from_db()
    assert annotation.social_score == 5
    edit = AnnotationEdit.objects.get()
    assert edit.edited_by == editor and edit.reason == "typo"
    assert edit.new_values["social_score"] == 5 and edit.old_values["social_score"] != 5
    annotation_update(annotation=annotation, values={"social_score": 5}, user=editor)
    assert AnnotationEdit.objects.count() == 1  # no change, no history line


def test_annotation_update_validates_ranges(stored):
    from django.core.exceptions import ValidationError

    annotation = Annotation.objects.first()
    with pytest.raises(ValueError, match="not rating fields: annotator_id"):
        annotation_update(annotation=annotation, values={"annotator_id": 1}, user=None)
    with pytest.raises(ValidationError):
        annotation_update(annotation=annotation, values={"self_score": 9}, user=None)
    assert AnnotationEdit.objects.count() == 0


def test_admin_pages_render_and_escape_dialogue_text(client, staff_user, jsonl):
    evil = dialogue(
        1, response="<script>alert(1)</script>", context=[{"turn": -1, "speaker": "user", "text": "<b>x</b>"}]
    )
    call_command("import_dialogues", str(jsonl([evil])), batch="evil")
    call_command("import_annotations", str(jsonl([rating(1, "ann_001"), rating(1, "ann_002")])))
    agreement_report_create(batch=Batch.objects.get(name="evil"), n_boot=0)
    client.force_login(staff_user)
    item = Annotation.objects.first().dialogue
    for url in [
        "/admin/annotation/dialogue/",
        f"/admin/annotation/dialogue/{item.pk}/change/",
        "/admin/annotation/annotation/",
        f"/admin/annotation/annotation/{Annotation.objects.first().pk}/change/",
        "/admin/annotation/agreementreport/",
        "/admin/annotation/qualityflag/",
        "/admin/annotation/batch/",
        "/admin/annotation/annotatorprofile/",
    ]:
        response = client.get(url)
        assert response.status_code == 200, url
        html = response.content.decode()
        assert "<script>alert(1)</script>" not in html and "<b>x</b>" not in html, url
    assert "&lt;b&gt;x&lt;/b&gt;" in client.get(f"/admin/annotation/dialogue/{item.pk}/change/").content.decode()


def test_admin_edit_of_a_rating_goes_to_history(client, staff_user, stored):
    client.force_login(staff_user)
    annotation = Annotation.objects.filter(annotator__username="ann_001").order_by("pk").first()
    url = f"/admin/annotation/annotation/{annotation.pk}/change/"
    form = {
        f"{axis}_score": getattr(annotation, f"{axis}_score") for axis in ("social", "avoidant", "mechanical", "self")
    }
    form.update({f"{axis}_confidence": 0.9 for axis in ("social", "avoidant", "mechanical", "self")})
    form["self_score"] = 4
    form.update({"edits-TOTAL_FORMS": 0, "edits-INITIAL_FORMS": 0})
    response = client.post(url, form)
    assert response.status_code == 302, response.content.decode()[:2000]
    edit = AnnotationEdit.objects.get()
    assert edit.edited_by == staff_user and edit.reason == "admin" and edit.new_values["self_score"] == 4


def test_demo_part_loads_dialogues_ratings_and_a_report(settings):
    from annotation.demo import load

    summary = load()
    assert summary.startswith("40 dialogues, 100 ratings by 3 annotators")
    assert Batch.objects.get(name="demo").dialogues.count() == 40
    assert AgreementReport.objects.get().passed
    assert QualityFlag.objects.filter(kind="too_fast", annotator__username="ann_003").exists()
