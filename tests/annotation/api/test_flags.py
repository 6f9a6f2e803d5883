"""``flags/``: quality flags listed and filtered, and reviewed (status, note, reviewer, time)."""

import pytest
from django.contrib.auth.models import Group
from django.utils import timezone

from annotation.models import AgreementReport, QualityFlag, QualityFlagReview
from tests.annotation.api.support import API, make_batch, patch, token_client, walk

pytestmark = pytest.mark.django_db


@pytest.fixture
def reviewer(researcher):
    """The researcher, made a reviewer by an admin (the "reviewer" group the migrations create)."""
    researcher.groups.add(Group.objects.get(name="reviewer"))
    return researcher


@pytest.fixture
def flags(qualified, qualified_2):
    first, second = make_batch("b1", n_items=1), make_batch("b2", n_items=1)
    report = AgreementReport.objects.create(batch=first, source="batch b1", passed=True, report={"axes": {}})
    return {
        "outlier": QualityFlag.objects.create(source="outlier", kind="annotator_bias", report=report,
                                              annotator=qualified, axis="social", statistic=1.4, threshold=1.0,
                                              message="rates social high"),
        "text": QualityFlag.objects.create(source="text_change", kind="text_changed",
                                           dialogue=second.dialogues.get(), annotator=qualified_2,
                                           message="the text changed", status="dismissed"),
        "batches": (first, second),
    }  # fmt: skip


@pytest.mark.parametrize(("method", "url"), [("get", "flags/"), ("patch", "flags/1/")])
def test_anonymous_gets_401_and_annotators_403(client, ann, method, url):
    assert getattr(client, method)(API + url, {}, content_type="application/json").status_code == 401
    response = getattr(ann, method)(API + url, {}, content_type="application/json")
    assert response.status_code == 403 and "researcher role" in response.json()["error"]


def test_flags_are_listed_with_their_batch_and_filtered(res, flags):
    first, second = flags["batches"]
    rows = res.get(API + "flags/").json()["results"]
    assert [r["id"] for r in rows] == [flags["text"].pk, flags["outlier"].pk]
    outlier = rows[1]
    assert (outlier["batch"], outlier["report"], outlier["annotator"], outlier["dialogue"], outlier["status"]) == (
        first.pk, outlier["report"], "ann_q1", None, "open")  # fmt: skip
    assert rows[0]["batch"] == second.pk and rows[0]["dialogue"] == "b2_000"

    def ids(query):
        return [r["id"] for r in res.get(API + "flags/?" + query).json()["results"]]

    assert ids("status=open") == [flags["outlier"].pk]
    assert ids("source=text_change") == [flags["text"].pk]
    assert ids(f"batch={first.pk}") == [flags["outlier"].pk] and ids(f"batch={second.pk}") == [flags["text"].pk]
    assert ids("annotator=ann_q2") == [flags["text"].pk]
    second = res.get(res.get(API + "flags/?page_size=1").json()["next"]).json()
    assert [r["id"] for r in second["results"]] == [flags["outlier"].pk] and second["next"] is None
    assert res.get(API + "flags/?status=closed").json()["field"] == "status"


def test_a_review_sets_status_note_reviewer_and_time(res, reviewer, flags):
    before = timezone.now()
    response = patch(res, API + f"flags/{flags['outlier'].pk}/", {"status": "accepted", "review_note": "確認済み"})
    assert response.status_code == 200
    flag = QualityFlag.objects.get(pk=flags["outlier"].pk)
    assert (flag.status, flag.review_note, flag.reviewer) == ("accepted", "確認済み", reviewer)
    assert flag.reviewed_at >= before and response.json()["reviewer"] == "res_001"
    reopened = patch(res, API + f"flags/{flags['outlier'].pk}/", {"status": "open"})
    assert (
        reopened.json()["status"] == "open" and reopened.json()["review_note"] == ""
    )  # the note went with the decision
    history = list(
        QualityFlagReview.objects.filter(flag=flag).order_by("pk").values_list("old_status", "new_status", "note")
    )
    assert history == [("open", "accepted", "確認済み"), ("accepted", "open", "")]


def test_a_dismissal_needs_a_note(res, reviewer, flags):
    response = patch(res, API + f"flags/{flags['outlier'].pk}/", {"status": "dismissed"})
    assert response.status_code == 400 and response.json()["field"] == "review_note"
    assert QualityFlag.objects.get(pk=flags["outlier"].pk).status == "open"
    assert not QualityFlagReview.objects.exists()


def test_researchers_without_the_review_permission_read_but_cannot_review(res, flags):
    assert res.get(API + "flags/").status_code == 200
    response = patch(res, API + f"flags/{flags['outlier'].pk}/", {"status": "accepted"})
    assert response.status_code == 403 and "review permission" in response.json()["error"]
    assert QualityFlag.objects.get(pk=flags["outlier"].pk).status == "open"


@pytest.mark.parametrize(
    ("body", "field"),
    [({"status": "fixed"}, "status"), ({"message": "edited"}, "message"), ({}, "status")],
)
def test_a_review_accepts_only_status_and_note(res, reviewer, flags, body, field):
    response = patch(res, API + f"flags/{flags['outlier'].pk}/", body)
    assert response.status_code == 400 and response.json()["field"] == field
    flag = QualityFlag.objects.get(pk=flags["outlier"].pk)
    assert (flag.status, flag.message, flag.reviewer) == ("open", "rates social high", None)


def test_a_missing_flag_is_404_and_tokens_work(res, reviewer, flags):
    assert patch(res, API + "flags/999/", {"status": "accepted"}).status_code == 404
    script = token_client(reviewer)
    assert len(walk(script, API + "flags/")) == 2
    assert patch(script, API + f"flags/{flags['text'].pk}/", {"status": "accepted"}).status_code == 200
