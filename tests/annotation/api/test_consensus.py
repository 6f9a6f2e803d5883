"""``batches/{id}/consensus/``: the seed A.6 consensus with the researchers' adjudications applied and marked."""

import pytest
from django.utils import timezone

from annotation.models import Adjudication, Dialogue
from tests.annotation.api.support import API, logged_in, make_batch, token_client

pytestmark = pytest.mark.django_db


@pytest.fixture
def batch(disputed_batch):
    return disputed_batch


def test_anonymous_gets_401_and_annotators_403(client, ann, batch):
    assert client.get(API + f"batches/{batch.pk}/consensus/").status_code == 401
    response = ann.get(API + f"batches/{batch.pk}/consensus/")
    assert response.status_code == 403 and "researcher role" in response.json()["error"]


def test_the_disputed_item_is_rejected_until_a_researcher_adjudicates_it(res, researcher, batch):
    body = res.get(API + f"batches/{batch.pk}/consensus/").json()
    assert set(body) == {"consensus", "rejected", "summary"}
    assert [r["id"] for r in body["rejected"]] == ["dialogue_000"]
    assert body["rejected"][0]["reasons"]["social"]["reason"] == "spread_too_wide"
    assert len(body["consensus"]) == 5 and not any("adjudicated" in line for line in body["consensus"])
    disputed = Dialogue.objects.get(external_id="dialogue_000")
    Adjudication.objects.create(
        dialogue=disputed, axis="social", score=3, reason="中間の評価が妥当", decided_by=researcher,
        decided_at=timezone.now(),
    )  # fmt: skip
    body = res.get(API + f"batches/{batch.pk}/consensus/").json()
    line = next(line for line in body["consensus"] if line["id"] == "dialogue_000")
    assert line["annotations"]["social"] == 3
    assert line["adjudicated"]["social"]["score"] == 3 and line["adjudicated"]["social"]["by"] == "res_001"
    assert line["adjudicated"]["social"]["reason"] == "中間の評価が妥当" and set(line["adjudicated"]) == {"social"}
    assert body["rejected"] == [] and body["summary"]["adjudicated_items"] == 1


def test_the_method_can_be_chosen_and_is_checked(res, batch):
    body = res.get(API + f"batches/{batch.pk}/consensus/?method=median").json()
    assert body["summary"]["method"] == "median" and body["consensus"][0]["method"] == "median"
    bad = res.get(API + f"batches/{batch.pk}/consensus/?method=vote")
    assert bad.status_code == 400 and bad.json()["field"] == "method"


def test_a_batch_without_ratings_is_404_with_a_message(res):
    empty = make_batch("empty")
    response = res.get(API + f"batches/{empty.pk}/consensus/")
    assert response.status_code == 404 and "no ratings" in response.json()["error"]
    assert res.get(API + "batches/999/consensus/").json()["error"] == "no batch with id 999"


def test_scripts_read_the_consensus_with_a_token(researcher, batch):
    assert len(token_client(researcher).get(API + f"batches/{batch.pk}/consensus/").json()["consensus"]) == 5
    assert logged_in(researcher).get(API + f"batches/{batch.pk}/consensus/").status_code == 200
