"""The item page: the dialogue, every annotator's ratings side by side, consensus, spreads, flags, comments."""

import re

import pytest
from django.core.management import call_command

from annotation.models import Batch, Dialogue, ItemComment
from tests.annotation.conftest import dialogue, rating
from tests.annotation.workspace.conftest import HTMX, item

pytestmark = pytest.mark.django_db


def _page(client, batch, external_id: str, query: str = "") -> str:
    return client.get(f"/research/batches/{batch.pk}/items/{item(external_id).pk}/{query}").content.decode()


def _cells(html: str, annotator: str) -> list[str]:
    row = html[html.index(f'data-annotator="{annotator}"') :]
    row = row[: row.index("</tr>")]
    return re.findall(r'<span class="ws-score ws-score-\d">(\d)</span> <span class="ws-conf">([\d.]+)</span>', row)


def test_every_annotators_scores_and_confidences_side_by_side(researcher_client, batch):
    html = _page(researcher_client, batch, "dialogue_000")
    assert _cells(html, "ann_a") == [("1", "1.00"), ("1", "1.00"), ("1", "1.00"), ("1", "1.00")]
    assert _cells(html, "ann_b") == [("5", "1.00"), ("1", "1.00"), ("1", "1.00"), ("1", "1.00")]
    assert "31 s" in html and "JSONL import" in html  # ann_b's time spent and the rating's source
    assert "質問 0" in html and "前の発話" in html and "(-1)" in html  # the pair and its context turns


def test_the_spread_row_marks_the_disputed_axes(researcher_client, batch):
    html = _page(researcher_client, batch, "dialogue_000")
    assert 'data-spread="social" data-disputed="1"' in html
    assert 'data-spread="avoidant" data-disputed="0"' in html
    assert '<strong>4</strong> <span class="muted small">(1–5)</span>' in html


def test_the_consensus_row_shows_the_merged_scores(researcher_client, agreed_batch):
    html = _page(researcher_client, agreed_batch, "dialogue_121")
    row = html[html.index('class="ws-consensus-row"') :]
    row = row[: row.index("</tr>")]
    assert 'data-consensus="merged"' in row
    assert re.findall(r'ws-score ws-score-\d">(\d)</span> <span class="muted small">\(([\d.]+)\)', row) == [
        ("2", "2.33"), ("2", "2.00"), ("4", "4.00"), ("3", "3.00"),
    ]  # fmt: skip


def test_a_rejected_item_gives_its_reasons(researcher_client, batch, agreed_batch):
    html = _page(researcher_client, agreed_batch, "dialogue_120")
    row = html[html.index('class="ws-consensus-row"') :]
    assert 'data-consensus="rejected"' in row[:200]
    assert "✕ scores 1–5, more than 2 apart" in row[: row.index("</tr>")]
    assert row[: row.index("</tr>")].count("✕") == 1  # only the social axis
    html = _page(researcher_client, batch, "dialogue_002")
    assert "✕ 1 usable rating(s), 2 needed" in html
    html = _page(researcher_client, batch, "dialogue_003")
    assert 'data-consensus="none"' in html and "the item has no ratings yet" in html


def test_flags_of_the_item_and_of_its_ratings(researcher_client, batch):
    html = _page(researcher_client, batch, "dialogue_004")
    assert 'data-flag="c1_low_social_high_self"' in html and "ann_b rated social low but self high" in html
    assert "No quality flags" in _page(researcher_client, batch, "dialogue_000")


def test_comments_are_shown_and_can_be_marked_resolved(researcher_client, batch):
    comment = ItemComment.objects.get()
    html = _page(researcher_client, batch, "dialogue_005")
    assert "応答が途中で切れています" in html and "Problem with the item" in html and 'data-action="resolve"' in html
    url = f"/research/batches/{batch.pk}/comments/{comment.pk}/resolve/"
    response = researcher_client.post(url, {"query": "disputed=1&evil=1"})
    assert response.status_code == 302
    assert response["Location"] == f"/research/batches/{batch.pk}/items/{comment.dialogue_id}/?disputed=1"
    comment.refresh_from_db()
    assert comment.resolved_at is not None
    html = _page(researcher_client, batch, "dialogue_005")
    assert 'data-action="resolve"' not in html and "ws-resolved" in html


def test_resolving_with_htmx_returns_the_comment(researcher_client, batch):
    comment = ItemComment.objects.get()
    response = researcher_client.post(f"/research/batches/{batch.pk}/comments/{comment.pk}/resolve/", headers=HTMX)
    html = response.content.decode()
    assert response.status_code == 200 and html.lstrip().startswith(
        f'<li class="ws-comment ws-comment-problem ws-resolved" id="comment-{comment.pk}"'
    )


def test_resolving_needs_a_post(researcher_client, batch):
    comment = ItemComment.objects.get()
    assert researcher_client.get(f"/research/batches/{batch.pk}/comments/{comment.pk}/resolve/").status_code == 405
    assert ItemComment.objects.get().resolved_at is None


def test_previous_and_next_follow_the_filters(researcher_client, batch):
    html = _page(researcher_client, batch, "dialogue_000", "?disputed=1")
    assert f'href="/research/batches/{batch.pk}/items/{item("dialogue_005").pk}/?disputed=1" rel="next"' in html
    assert 'rel="prev"' not in html and "1 of 2" in html
    html = _page(researcher_client, batch, "dialogue_001")
    assert f'href="/research/batches/{batch.pk}/items/{item("dialogue_000").pk}/" rel="prev"' in html
    assert f'href="/research/batches/{batch.pk}/items/{item("dialogue_002").pk}/" rel="next"' in html


def test_dialogue_text_context_and_comments_are_escaped(researcher_client, jsonl):
    evil = "<script>alert(1)</script>"
    row = dialogue(1, user=evil, response=evil, context=[{"turn": -1, "speaker": "user", "text": evil}])
    call_command("import_dialogues", str(jsonl([row])), batch="evil")
    call_command("import_annotations", str(jsonl([rating(1, "ann_a")])))
    target = Dialogue.objects.get(external_id="dialogue_001")
    ItemComment.objects.create(dialogue=target, author=target.annotations.get().annotator, text=evil)
    batch = Batch.objects.get(name="evil")
    html = researcher_client.get(f"/research/batches/{batch.pk}/items/{target.pk}/").content.decode()
    assert "<script>alert" not in html
    assert html.count("&lt;script&gt;alert(1)&lt;/script&gt;") == 4


def test_the_consensus_row_follows_an_edited_rating(researcher_client, agreed_batch):
    from annotation.models import Annotation
    from annotation.services import annotation_update

    assert '<span class="muted small">(2.33)</span>' in _page(researcher_client, agreed_batch, "dialogue_121")
    rating_b = Annotation.objects.get(dialogue=item("dialogue_121"), annotator__username="ann_b")
    annotation_update(annotation=rating_b, values={"social_score": 2}, user=rating_b.annotator, reason="typo")
    html = _page(researcher_client, agreed_batch, "dialogue_121")
    assert '<span class="muted small">(2.33)</span>' not in html
    assert '<span class="ws-score ws-score-2">2</span> <span class="muted small">(2.00)</span>' in html
