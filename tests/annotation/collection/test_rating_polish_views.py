"""The rating page for long sessions: undoable skips, notes on items, exact progress, a history that shows edits."""

import re
from datetime import UTC, datetime

import pytest
from django.test import Client

from annotation.models import Annotation, AnnotationEdit, Assignment, Batch, Dialogue, ItemComment
from annotation.services import annotation_update
from tests.helpers import make_qualified_annotator, make_user

pytestmark = pytest.mark.django_db
HTMX = {"HX-Request": "true"}
AXES = ("social", "avoidant", "mechanical", "self")


def _rating(**overrides):
    data = {"social": "2", "avoidant": "1", "mechanical": "3", "self": "1"}
    data.update({f"{axis}_confidence": "1.0" for axis in AXES})
    data.update(overrides)
    return data


@pytest.fixture
def batch():
    batch = Batch.objects.create(name="b", annotations_per_item=2)
    user_text, response_text = "<script>alert('u')</script>この案は？", "<b>素晴らしい</b>"
    Dialogue.objects.create(external_id="d1", user_text=user_text, response_text=response_text, batch=batch)
    Dialogue.objects.create(external_id="d2", user_text="u2", response_text="r2", batch=batch)
    Dialogue.objects.create(external_id="d3", user_text="u3", response_text="r3", batch=batch)
    return batch


@pytest.fixture
def rater(client):
    user = make_qualified_annotator("rater")
    client.force_login(user)
    return user


def _assignment_id(html: str) -> int:
    return int(re.search(r'data-assignment="(\d+)"', html).group(1))


def _item_id(html: str) -> str:
    return re.search(r"<code data-item-id>([^<]+)</code>", html).group(1)


def _progress(html: str) -> tuple[int, int]:
    found = re.search(r'<progress max="(\d+)" value="(\d+)">', html)
    return int(found.group(2)), int(found.group(1))


# ---------------------------------------------------------------- undoing a skip


def test_an_htmx_skip_offers_the_undo_and_the_undo_shows_the_item_again(client, rater, batch):
    first = _assignment_id(client.get(f"/annotate/{batch.pk}/").content.decode())
    html = client.post(f"/annotate/{batch.pk}/{first}/skip/", {"reason": "文脈不足"}, headers=HTMX).content.decode()
    assert 'hx-swap-oob="innerHTML:#toast-region"' in html and "data-toast" in html
    assert f'hx-post="/annotate/skipped/{first}/reopen/"' in html
    assert _item_id(html) == "d2"

    html = client.post(f"/annotate/skipped/{first}/reopen/", headers=HTMX).content.decode()

    assert _item_id(html) == "d1" and _assignment_id(html) == first
    assert re.search(r'hx-swap-oob="innerHTML:#toast-region">\s*</div>', html)  # the toast is taken away
    reopened = Assignment.objects.get(pk=first)
    assert reopened.status == "reserved" and reopened.skip_reason == ""
    assert Assignment.objects.filter(annotator=rater, status="reserved").count() == 1


def test_a_skip_without_htmx_offers_the_undo_on_the_next_page(client, rater, batch):
    first = _assignment_id(client.get(f"/annotate/{batch.pk}/").content.decode())
    response = client.post(f"/annotate/{batch.pk}/{first}/skip/")
    assert response.status_code == 302 and response["Location"] == f"/annotate/{batch.pk}/?undo={first}"
    html = client.get(response["Location"]).content.decode()
    assert "data-toast" in html and f'action="/annotate/skipped/{first}/reopen/"' in html
    response = client.post(f"/annotate/skipped/{first}/reopen/")
    assert response.status_code == 302 and response["Location"] == f"/annotate/{batch.pk}/"
    assert _item_id(client.get(response["Location"]).content.decode()) == "d1"


def test_the_undo_offer_is_only_for_ones_own_skip(client, rater, batch):
    other = make_qualified_annotator("other")
    client.force_login(other)
    theirs = _assignment_id(client.get(f"/annotate/{batch.pk}/").content.decode())
    client.post(f"/annotate/{batch.pk}/{theirs}/skip/")
    client.force_login(rater)
    assert "data-toast" not in client.get(f"/annotate/{batch.pk}/?undo={theirs}").content.decode()
    assert client.post(f"/annotate/skipped/{theirs}/reopen/").status_code == 404
    assert Assignment.objects.get(pk=theirs).status == "skipped"


def test_reopen_refuses_a_full_item_and_says_why(client, rater, batch):
    Batch.objects.filter(pk=batch.pk).update(annotations_per_item=1)
    first = _assignment_id(client.get(f"/annotate/{batch.pk}/").content.decode())
    client.post(f"/annotate/{batch.pk}/{first}/skip/")
    other = make_qualified_annotator("other")
    client.force_login(other)
    assert _item_id(client.get(f"/annotate/{batch.pk}/").content.decode()) == "d1"  # the freed slot is taken
    client.force_login(rater)
    history = client.get("/annotate/history/").content.decode()
    assert f'data-skipped="{first}"' in history and 'data-why-not="complete"' in history
    assert f'action="/annotate/skipped/{first}/reopen/"' not in history

    response = client.post(f"/annotate/skipped/{first}/reopen/", follow=True)

    assert response.redirect_chain[-1][0] == "/annotate/history/#skipped"
    message = re.search(r'<li class="message message-error">(.*?)</li>', response.content.decode()).group(1)
    assert "d1" in message
    assert Assignment.objects.get(pk=first).status == "skipped"


def test_reopen_needs_post_the_annotator_role_and_the_csrf_token(batch):
    user = make_qualified_annotator("strict")
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    first = _assignment_id(client.get(f"/annotate/{batch.pk}/").content.decode())
    token = client.cookies["csrftoken"].value
    client.post(f"/annotate/{batch.pk}/{first}/skip/", HTTP_X_CSRFTOKEN=token)
    assert client.get(f"/annotate/skipped/{first}/reopen/").status_code == 405
    assert client.post(f"/annotate/skipped/{first}/reopen/", headers=HTMX).status_code == 403
    assert Assignment.objects.get(pk=first).status == "skipped"
    assert client.post(f"/annotate/skipped/{first}/reopen/", headers=HTMX, HTTP_X_CSRFTOKEN=token).status_code == 200
    assert Assignment.objects.get(pk=first).status == "reserved"
    researcher = make_user("res", "researcher")
    client.force_login(researcher)
    assert client.post(f"/annotate/skipped/{first}/reopen/").status_code == 403


def test_history_lists_skipped_items_with_preview_reason_and_reopen(client, rater, batch):
    first = _assignment_id(client.get(f"/annotate/{batch.pk}/").content.decode())
    client.post(f"/annotate/{batch.pk}/{first}/skip/", {"reason": "<i>文脈不足</i>"})
    html = client.get("/annotate/history/").content.decode()
    row = re.search(rf'<tr data-skipped="{first}">(.*?)</tr>', html, re.S).group(1)
    assert "<code>d1</code>" in row and "&lt;script&gt;alert(&#x27;u&#x27;)&lt;/script&gt;この案は？" in row
    assert "&lt;i&gt;文脈不足&lt;/i&gt;" in row and "<script>" not in html
    assert f'action="/annotate/skipped/{first}/reopen/"' in row
    assert re.search(r'<time datetime="([^"]+)"', row).group(1).endswith("+09:00")  # in the site's time zone


# ---------------------------------------------------------------- notes on items


def test_a_note_is_stored_without_touching_the_rating(client, rater, batch):
    first = _assignment_id(client.get(f"/annotate/{batch.pk}/").content.decode())
    html = client.post(
        f"/annotate/{batch.pk}/{first}/comment/", {"text": "文脈が切れている", "problem": "on"}, headers=HTMX
    ).content.decode()
    assert "data-note-sent" in html and "<html" not in html and 'id="workspace"' not in html
    note = ItemComment.objects.get()
    assert (note.dialogue.external_id, note.author, note.text, note.problem) == ("d1", rater, "文脈が切れている", True)
    assert Assignment.objects.get(pk=first).status == "reserved" and not Annotation.objects.exists()


def test_a_problem_mark_alone_is_a_note_and_an_empty_note_is_refused(client, rater, batch):
    first = _assignment_id(client.get(f"/annotate/{batch.pk}/").content.decode())
    html = client.post(f"/annotate/{batch.pk}/{first}/comment/", {"text": "  "}, headers=HTMX).content.decode()
    assert 'class="error"' in html and "data-note-sent" not in html and not ItemComment.objects.exists()
    client.post(f"/annotate/{batch.pk}/{first}/comment/", {"problem": "on"}, headers=HTMX)
    assert ItemComment.objects.get().problem is True


def test_a_refused_note_is_shown_again_escaped(client, rater, batch):
    first = _assignment_id(client.get(f"/annotate/{batch.pk}/").content.decode())
    text = "<script>alert(1)</script>" + "長" * 2000
    html = client.post(f"/annotate/{batch.pk}/{first}/comment/", {"text": text}, headers=HTMX).content.decode()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;長" in html and "<script>alert(1)</script>" not in html
    assert "2000" in html and not ItemComment.objects.exists()


def test_a_note_without_htmx_goes_back_to_the_item(client, rater, batch):
    first = _assignment_id(client.get(f"/annotate/{batch.pk}/").content.decode())
    response = client.post(f"/annotate/{batch.pk}/{first}/comment/", {"text": "要確認"})
    assert response.status_code == 302 and response["Location"] == f"/annotate/{batch.pk}/"
    assert ItemComment.objects.get().text == "要確認"


def test_notes_need_ones_own_assignment_and_the_csrf_token(client, rater, batch):
    other = make_qualified_annotator("other")
    client.force_login(other)
    theirs = _assignment_id(client.get(f"/annotate/{batch.pk}/").content.decode())
    client.force_login(rater)
    assert client.post(f"/annotate/{batch.pk}/{theirs}/comment/", {"text": "x"}).status_code == 404
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(rater)
    mine = _assignment_id(strict.get(f"/annotate/{batch.pk}/").content.decode())
    assert strict.post(f"/annotate/{batch.pk}/{mine}/comment/", {"text": "x"}, headers=HTMX).status_code == 403
    token = strict.cookies["csrftoken"].value
    ok = strict.post(f"/annotate/{batch.pk}/{mine}/comment/", {"text": "x"}, headers=HTMX, HTTP_X_CSRFTOKEN=token)
    assert ok.status_code == 200 and ItemComment.objects.get().author == rater


def test_the_rating_page_offers_the_note_and_keeps_markers_out_of_the_tab_order(client, rater, batch):
    html = client.get(f"/annotate/{batch.pk}/").content.decode()
    first = _assignment_id(html)
    assert f'hx-post="/annotate/{batch.pk}/{first}/comment/"' in html and "data-note" in html
    assert html.count('<summary tabindex="-1">') == 4  # the markers toggles
    assert html.count('tabindex="0"') == 4  # one tab stop per axis
    assert 'id="submit-rating"' in html and 'form="rating-form"' in html


# ---------------------------------------------------------------- progress


def test_the_progress_after_ones_own_submit_counts_it(client, rater, batch):
    html = client.get(f"/annotate/{batch.pk}/").content.decode()
    assert _progress(html) == (0, 6)  # the batch counts are now cached
    html = client.post(f"/annotate/{batch.pk}/{_assignment_id(html)}/submit/", _rating(), headers=HTMX).content.decode()
    assert _progress(html) == (1, 6)
    # the plain form: the redirect's page counts it too
    response = client.post(f"/annotate/{batch.pk}/{_assignment_id(html)}/submit/", _rating())
    assert _progress(client.get(response["Location"]).content.decode()) == (2, 6)


def test_the_progress_counts_ratings_stored_another_way(client, rater, batch):
    client.get(f"/annotate/{batch.pk}/")
    other = make_user("imported", "annotator")
    values = {f"{axis}_score": 3 for axis in AXES}
    Annotation.objects.create(dialogue=Dialogue.objects.get(external_id="d3"), annotator=other, **values)
    html = client.get(f"/annotate/{batch.pk}/").content.decode()
    from django.db import connection

    if connection.vendor == "postgresql":  # the triggers' tallies are exact at once
        assert _progress(html) == (1, 6)
    else:  # others' ratings may lag by the cache's few seconds
        assert _progress(html)[0] in (0, 1)


def test_a_paused_batch_hands_out_nothing_and_says_so(client, rater, batch):
    Batch.objects.filter(pk=batch.pk).update(status=Batch.Status.PAUSED)
    html = client.get(f"/annotate/{batch.pk}/").content.decode()
    assert 'data-batch-state="paused"' in html and "data-assignment" not in html
    assert not Assignment.objects.exists()


# ---------------------------------------------------------------- history with edits


def test_history_shows_scores_confidences_and_each_edit_as_old_to_new(client, rater, batch):
    first = _assignment_id(client.get(f"/annotate/{batch.pk}/").content.decode())
    client.post(f"/annotate/{batch.pk}/{first}/submit/", _rating(social="2", avoidant_confidence="0.8"))
    annotation = Annotation.objects.get(annotator=rater)
    response = client.post(
        f"/annotate/history/{annotation.pk}/edit/",
        _rating(social="4", avoidant_confidence="0.6", reason="<b>読み直した</b>"),
    )
    assert response["Location"] == "/annotate/history/"
    researcher = make_user("res", "researcher")
    annotation_update(annotation=annotation, values={"self_score": 5}, user=researcher, reason="adjudication")
    AnnotationEdit.objects.filter(reason="adjudication").update(edited_at=datetime(2030, 1, 2, 15, 30, tzinfo=UTC))

    html = client.get("/annotate/history/").content.decode()
    block = re.search(rf'<tbody id="rating-{annotation.pk}".*?</tbody>', html, re.S).group(0)
    assert "&lt;script&gt;alert(&#x27;u&#x27;)&lt;/script&gt;" in block and "<script>" not in html
    assert "社会的迎合" in html and "自己迎合" in html  # the axes by their names
    scores = re.findall(r'<span class="score">(\d)</span> <span class="conf"[^>]*>([\d.]+)</span>', block)
    assert scores == [("4", "1.0"), ("1", "0.6"), ("3", "1.0"), ("5", "1.0")]
    edits = re.findall(r'<li class="edit" data-edit="\d+">(.*?)</ul>\s*</li>', block, re.S)
    assert len(edits) == 2
    newest, older = edits  # newest first
    assert "2030/01/03 0:30" in newest  # 15:30 UTC, shown in the site's time zone (Asia/Tokyo)
    assert "res" in newest and "adjudication" in newest
    assert re.search(r'data-axis="self">.*?<del>1</del> → <ins>5</ins>', newest, re.S)
    assert newest.count("<del>") == 1
    assert re.search(r'data-axis="social">.*?<del>2</del> → <ins>4</ins>', older, re.S)
    assert re.search(r'data-axis="avoidant">.*?<del>0.8</del> → <ins>0.6</ins>', older, re.S)
    assert 'data-axis="mechanical"' not in older  # unchanged axes are left out
    assert "&lt;b&gt;読み直した&lt;/b&gt;" in older and "<b>読み直した</b>" not in html


def test_an_edit_without_a_reason_is_kept_as_the_annotators_edit(client, rater, batch):
    first = _assignment_id(client.get(f"/annotate/{batch.pk}/").content.decode())
    client.post(f"/annotate/{batch.pk}/{first}/submit/", _rating())
    annotation = Annotation.objects.get(annotator=rater)
    client.post(f"/annotate/history/{annotation.pk}/edit/", _rating(self="2"))
    assert AnnotationEdit.objects.get().reason == "annotator edit"
    page = client.get(f"/annotate/history/{annotation.pk}/edit/").content.decode()
    assert re.search(r"<del>1</del> → <ins>2</ins>", page)


def test_a_second_click_on_the_undo_shows_the_item_without_an_error(client, rater, batch):
    first = _assignment_id(client.get(f"/annotate/{batch.pk}/").content.decode())
    client.post(f"/annotate/{batch.pk}/{first}/skip/", headers=HTMX)
    client.post(f"/annotate/skipped/{first}/reopen/", headers=HTMX)
    html = client.post(f"/annotate/skipped/{first}/reopen/", headers=HTMX).content.decode()
    assert _assignment_id(html) == first and "message-error" not in html
