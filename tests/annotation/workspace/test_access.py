"""Every workspace page is for researchers only, and every POST needs the CSRF token."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from annotation.models import Adjudication, Batch, ItemComment
from tests.annotation.workspace.conftest import item

pytestmark = pytest.mark.django_db


def _urls(batch) -> dict[str, str]:
    dialogue = item("dialogue_000")
    comment = ItemComment.objects.get()
    return {
        "workspace": reverse("annotation:workspace"),
        "batch-create": reverse("annotation:batch-create"),
        "batch": reverse("annotation:batch", args=[batch.pk]),
        "batch-settings": reverse("annotation:batch-settings", args=[batch.pk]),
        "items": reverse("annotation:items", args=[batch.pk]),
        "item": reverse("annotation:item", args=[batch.pk, dialogue.pk]),
        "adjudicate": reverse("annotation:adjudicate", args=[batch.pk, dialogue.pk]),
        "comment-resolve": reverse("annotation:comment-resolve", args=[batch.pk, comment.pk]),
    }


GET_PAGES = ["workspace", "batch-create", "batch", "batch-settings", "items", "item"]
POSTS = ["batch-create", "batch", "batch-settings", "adjudicate", "comment-resolve"]


def test_the_paths_are_the_documented_ones(batch):
    urls = _urls(batch)
    pk, dialogue_pk, comment_pk = batch.pk, item("dialogue_000").pk, ItemComment.objects.get().pk
    assert urls == {
        "workspace": "/research/batches/",
        "batch-create": "/research/batches/new/",
        "batch": f"/research/batches/{pk}/",
        "batch-settings": f"/research/batches/{pk}/settings/",
        "items": f"/research/batches/{pk}/items/",
        "item": f"/research/batches/{pk}/items/{dialogue_pk}/",
        "adjudicate": f"/research/batches/{pk}/items/{dialogue_pk}/adjudicate/",
        "comment-resolve": f"/research/batches/{pk}/comments/{comment_pk}/resolve/",
    }


@pytest.mark.parametrize("name", GET_PAGES)
def test_anonymous_visitors_are_sent_to_log_in(client, batch, name):
    url = _urls(batch)[name]
    response = client.get(url)
    assert response.status_code == 302
    assert response["Location"].startswith("/login/") and "next=" in response["Location"]


@pytest.mark.parametrize("name", GET_PAGES)
def test_annotators_are_refused_every_page(annotator_client, batch, name):
    assert annotator_client.get(_urls(batch)[name]).status_code == 403


@pytest.mark.parametrize("name", POSTS)
def test_annotators_cannot_post_anything(annotator_client, batch, name):
    response = annotator_client.post(_urls(batch)[name], {"reason": "x", "social": "2", "status": "paused"})
    assert response.status_code == 403
    assert not Adjudication.objects.exists()
    assert Batch.objects.get(pk=batch.pk).status == Batch.Status.OPEN
    assert ItemComment.objects.get().resolved_at is None


@pytest.mark.parametrize("name", GET_PAGES)
def test_researchers_see_every_page(researcher_client, batch, name):
    response = researcher_client.get(_urls(batch)[name])
    assert response.status_code == 200
    assert b'href="/research/batches/"' in response.content  # the crumbs or the top bar lead back to the list


@pytest.mark.parametrize("name", POSTS)
def test_a_post_without_the_csrf_token_is_refused_and_changes_nothing(csrf_client, batch, name):
    data = {
        "name": "sneaky", "annotations_per_item": "2", "file": SimpleUploadedFile("d.jsonl", b'{"id": "x"}\n'),
        "status": "paused", "restricted": "False", "disagreement_spread": "2", "social": "2", "reason": "r",
    }  # fmt: skip
    response = csrf_client.post(_urls(batch)[name], data)
    assert response.status_code == 403
    assert not Batch.objects.filter(name="sneaky").exists()
    assert Batch.objects.get(pk=batch.pk).status == Batch.Status.OPEN
    assert not Adjudication.objects.exists()
    assert ItemComment.objects.get().resolved_at is None


def test_a_post_with_the_csrf_token_goes_through(csrf_client, batch):
    page = csrf_client.get(_urls(batch)["item"])
    token = page.cookies["csrftoken"].value if "csrftoken" in page.cookies else csrf_client.cookies["csrftoken"].value
    response = csrf_client.post(
        _urls(batch)["adjudicate"], {"social": "3", "reason": "the middle reading", "csrfmiddlewaretoken": token}
    )
    assert response.status_code == 302
    assert Adjudication.objects.get().score == 3


def test_pages_of_a_missing_batch_or_an_item_of_another_batch_are_not_found(researcher_client, batch, jsonl):
    from django.core.management import call_command

    call_command("import_dialogues", str(jsonl([{"id": "other_1", "user": "u", "response": "r", "context": []}])),
                 batch="other")  # fmt: skip
    other = Batch.objects.get(name="other")
    assert researcher_client.get(f"/research/batches/{batch.pk + 100}/").status_code == 404
    assert researcher_client.get(f"/research/batches/{other.pk}/items/{item('dialogue_000').pk}/").status_code == 404
    comment = ItemComment.objects.get()
    assert researcher_client.post(f"/research/batches/{other.pk}/comments/{comment.pk}/resolve/").status_code == 404
