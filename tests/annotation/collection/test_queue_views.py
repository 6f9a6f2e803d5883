"""The rating pages through the test client: HTMX swaps, inline errors, blind annotation, history edits."""

import re

import pytest

from annotation.models import Annotation, AnnotationEdit, Assignment, Batch, Dialogue
from tests.helpers import make_qualified_annotator, make_user

pytestmark = pytest.mark.django_db
HTMX = {"HX-Request": "true"}


def _rating(**overrides):
    data = {"social": "2", "avoidant": "1", "mechanical": "3", "self": "1"}
    data.update({f"{axis}_confidence": "1.0" for axis in ("social", "avoidant", "mechanical", "self")})
    data.update(overrides)
    return data


@pytest.fixture
def batch():
    batch = Batch.objects.create(name="b", annotations_per_item=2)
    context = [{"turn": -1, "speaker": "ai", "text": "<b>前</b>"}, {"turn": 1, "speaker": "user", "text": "後"}]
    Dialogue.objects.create(
        external_id="d1",
        user_text="この案はどう？",
        response_text="<script>alert(1)</script>素晴らしい案です",
        batch=batch,
        context=context,
    )
    Dialogue.objects.create(external_id="d2", user_text="u2", response_text="r2", batch=batch)
    return batch


@pytest.fixture
def rater(client):
    user = make_qualified_annotator("rater")
    client.force_login(user)
    return user


def _assignment_id(html: str) -> int:
    return int(re.search(r'data-assignment="(\d+)"', html).group(1))


def test_queue_lists_batches_with_own_progress(client, rater, batch):
    html = client.get("/annotate/").content.decode()
    assert 'data-batch="b"' in html and f"/annotate/{batch.pk}/" in html


def test_rating_page_shows_the_pair_context_and_escapes_data(client, rater, batch):
    html = client.get(f"/annotate/{batch.pk}/").content.decode()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;素晴らしい案です" in html
    assert "<script>alert(1)</script>" not in html and "&lt;b&gt;前&lt;/b&gt;" in html
    assert html.count('class="axis') >= 4 and 'name="social_confidence"' in html
    assert "Enter" in html  # the shortcuts are listed


def test_htmx_submit_stores_the_rating_and_swaps_in_the_next_item(client, rater, batch):
    first = _assignment_id(client.get(f"/annotate/{batch.pk}/").content.decode())
    response = client.post(f"/annotate/{batch.pk}/{first}/submit/", _rating(), headers=HTMX)
    html = response.content.decode()
    assert response.status_code == 200 and html.lstrip().startswith('<div id="workspace"')
    assert "<html" not in html
    assert _assignment_id(html) != first and "d2" in html
    stored = Annotation.objects.get(annotator=rater)
    assert stored.scores == {"social": 2, "avoidant": 1, "mechanical": 3, "self": 1}
    assert stored.seconds_spent is not None and stored.source == "web"


def test_plain_form_submit_redirects_to_the_next_item(client, rater, batch):
    first = _assignment_id(client.get(f"/annotate/{batch.pk}/").content.decode())
    response = client.post(f"/annotate/{batch.pk}/{first}/submit/", _rating())
    assert response.status_code == 302 and response["Location"] == f"/annotate/{batch.pk}/"


def test_missing_score_is_shown_inline_and_the_entered_values_are_kept(client, rater, batch):
    first = _assignment_id(client.get(f"/annotate/{batch.pk}/").content.decode())
    data = _rating(social="4", mechanical_confidence="0.6")
    del data["self"]
    html = client.post(f"/annotate/{batch.pk}/{first}/submit/", data, headers=HTMX).content.decode()
    assert "Choose a score from 1 to 5." in html or "1〜5" in html
    assert _assignment_id(html) == first
    assert re.search(r'name="social" value="4" checked', html)
    assert re.search(r'<option value="0.6" selected>', html)
    assert not Annotation.objects.exists()


def test_double_submit_creates_one_annotation(client, rater, batch):
    first = _assignment_id(client.get(f"/annotate/{batch.pk}/").content.decode())
    for _ in range(2):
        client.post(f"/annotate/{batch.pk}/{first}/submit/", _rating(), headers=HTMX)
    assert Annotation.objects.filter(annotator=rater).count() == 1


def test_skip_records_the_reason_and_moves_on(client, rater, batch):
    first = _assignment_id(client.get(f"/annotate/{batch.pk}/").content.decode())
    html = client.post(f"/annotate/{batch.pk}/{first}/skip/", {"reason": "文脈不足"}, headers=HTMX).content.decode()
    assert _assignment_id(html) != first
    skipped = Assignment.objects.get(pk=first)
    assert skipped.status == "skipped" and skipped.skip_reason == "文脈不足"


def test_another_annotators_assignment_is_not_reachable(client, rater, batch):
    other = make_qualified_annotator("other")
    client.force_login(other)
    theirs = _assignment_id(client.get(f"/annotate/{batch.pk}/").content.decode())
    client.force_login(rater)
    assert client.post(f"/annotate/{batch.pk}/{theirs}/submit/", _rating()).status_code == 404
    assert client.post(f"/annotate/{batch.pk}/{theirs}/skip/").status_code == 404


def test_blind_annotation_shows_no_other_ratings(client, rater, batch):
    other = make_qualified_annotator("other")
    client.force_login(other)
    theirs = _assignment_id(client.get(f"/annotate/{batch.pk}/").content.decode())
    client.post(f"/annotate/{batch.pk}/{theirs}/submit/", _rating(social="5", avoidant="5"))
    client.force_login(rater)
    html = client.get(f"/annotate/{batch.pk}/").content.decode()
    assert "checked" not in html  # nothing preselected from anybody's rating
    assert "other" not in html


def test_done_page_when_nothing_is_left(client, rater, batch):
    for _ in range(2):
        current = _assignment_id(client.get(f"/annotate/{batch.pk}/").content.decode())
        client.post(f"/annotate/{batch.pk}/{current}/submit/", _rating())
    html = client.get(f"/annotate/{batch.pk}/").content.decode()
    assert "data-assignment" not in html and 'href="/annotate/"' in html


def test_unqualified_annotator_is_sent_to_training(client, batch):
    client.force_login(make_user("novice", "annotator"))
    response = client.get(f"/annotate/{batch.pk}/")
    assert response.status_code == 302 and response["Location"] == "/training/"


def test_researcher_cannot_open_the_annotator_queue(client, researcher, batch):
    client.force_login(researcher)
    assert client.get(f"/annotate/{batch.pk}/").status_code == 403


def test_history_lists_own_ratings_and_edit_keeps_the_old_values(client, rater, batch):
    first = _assignment_id(client.get(f"/annotate/{batch.pk}/").content.decode())
    client.post(f"/annotate/{batch.pk}/{first}/submit/", _rating())
    annotation = Annotation.objects.get(annotator=rater)
    html = client.get("/annotate/history/").content.decode()
    assert f'data-annotation="{annotation.pk}"' in html
    page = client.get(f"/annotate/history/{annotation.pk}/edit/").content.decode()
    assert re.search(r'name="mechanical" value="3" checked', page)
    response = client.post(f"/annotate/history/{annotation.pk}/edit/", _rating(mechanical="5"))
    assert response.status_code == 302
    annotation.refresh_from_db()
    assert annotation.mechanical_score == 5
    edit = AnnotationEdit.objects.get()
    assert edit.old_values["mechanical_score"] == 3 and edit.edited_by == rater


def test_nobody_edits_another_annotators_rating(client, rater, batch):
    other = make_qualified_annotator("other")
    client.force_login(other)
    theirs = _assignment_id(client.get(f"/annotate/{batch.pk}/").content.decode())
    client.post(f"/annotate/{batch.pk}/{theirs}/submit/", _rating())
    client.force_login(rater)
    annotation = Annotation.objects.get(annotator=other)
    assert client.get(f"/annotate/history/{annotation.pk}/edit/").status_code == 404


def test_a_failure_finding_the_next_item_does_not_lose_the_rating(client, rater, batch, monkeypatch):
    from django.db import connection

    first = _assignment_id(client.get(f"/annotate/{batch.pk}/").content.decode())
    calls = []

    def broken_next(**kwargs):
        calls.append(kwargs)
        if len(calls) == 1:
            with connection.cursor() as cursor:  # a real failing statement (aborts the transaction on PostgreSQL)
                cursor.execute("SELECT * FROM no_such_table_for_this_test")
        return None

    monkeypatch.setattr("annotation.collection.views_queue.assignment_next", broken_next)
    response = client.post(f"/annotate/{batch.pk}/{first}/submit/", _rating(), headers=HTMX)
    assert response.status_code == 200
    assert Annotation.objects.filter(annotator=rater).count() == 1
    assert Assignment.objects.get(pk=first).status == "submitted"


def test_start_is_not_offered_when_nothing_is_left_for_the_annotator(client, rater, batch):
    from annotation.collection.queue import work_left

    assert work_left(batch=batch, annotator=rater)
    for _ in range(2):  # rate both items
        html = client.get(f"/annotate/{batch.pk}/").content.decode()
        client.post(f"/annotate/{batch.pk}/{_assignment_id(html)}/submit/", _rating())
    assert Annotation.objects.filter(annotator=rater).count() == 2
    assert not work_left(batch=batch, annotator=rater)
    html = client.get("/annotate/").content.decode()
    assert 'data-batch-done="b"' in html and 'data-batch="b"' not in html
    other = make_qualified_annotator("other")
    assert work_left(batch=batch, annotator=other)  # quota 2: one slot left on each item
    Batch.objects.filter(pk=batch.pk).update(annotations_per_item=1)
    batch.refresh_from_db()
    assert not work_left(batch=batch, annotator=other)  # every item has its one rating
    client.force_login(other)
    html = client.get("/annotate/").content.decode()  # issue 30, point 7: not "your share is done" with 0 ratings
    assert 'data-batch-full="b"' in html and 'data-batch-done="b"' not in html
    assert "全項目に必要な数の評価がそろっています" in html and "あなたの担当分は終わりました" not in html
