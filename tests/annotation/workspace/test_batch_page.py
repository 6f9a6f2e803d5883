"""The batch page: settings, counts, links and the downloads there is something for."""

import pytest
from django.core.management import call_command
from django.utils import timezone

from annotation.models import AgreementReport, Batch
from annotation.review.services import adjudication_record
from tests.annotation.conftest import dialogue
from tests.annotation.workspace.conftest import item

pytestmark = pytest.mark.django_db


def _count(html: str, name: str) -> str:
    start = html.index(f'data-count="{name}">') + len(f'data-count="{name}">')
    return html[start : html.index("<", start)]


def test_counts_of_items_ratings_complete_disputed_adjudicated_and_open_flags(researcher_client, batch, researcher):
    adjudication_record(dialogue=item("dialogue_000"), axis="social", score=3, reason="middle", user=researcher)
    html = researcher_client.get(f"/research/batches/{batch.pk}/").content.decode()
    assert _count(html, "items") == "6"
    assert _count(html, "ratings") == "13"
    assert _count(html, "complete") == "4"
    assert _count(html, "disputed") == "2"  # dialogue_000 (social 1–5) and dialogue_005 (avoidant 1–3)
    assert _count(html, "adjudicated") == "1"
    assert _count(html, "flags") == "1 / 1"
    assert "by 3 annotators" in html


def test_the_disputed_count_follows_the_batch_spread(researcher_client, batch):
    Batch.objects.filter(pk=batch.pk).update(disagreement_spread=3)
    html = researcher_client.get(f"/research/batches/{batch.pk}/").content.decode()
    assert _count(html, "disputed") == "1"


def test_links_to_items_activity_dashboard_and_settings(researcher_client, batch):
    html = researcher_client.get(f"/research/batches/{batch.pk}/").content.decode()
    assert f'href="/research/batches/{batch.pk}/items/"' in html
    assert f'href="/research/batches/{batch.pk}/activity/"' in html
    assert f'href="/research/agreement/?batch={batch.pk}"' in html
    assert f'href="/research/batches/{batch.pk}/settings/"' in html
    assert "A paused batch" not in html and "Annotators get items from this batch." in html


def test_downloads_are_offered_when_there_is_something_to_download(researcher_client, batch):
    html = researcher_client.get(f"/research/batches/{batch.pk}/").content.decode()
    assert f'href="/research/agreement/{batch.pk}/ratings.jsonl"' in html
    assert f'href="/research/agreement/{batch.pk}/consensus.jsonl"' in html
    assert f'href="/research/agreement/{batch.pk}/rejected.jsonl"' in html
    for sheet in ("ratings.xlsx", "ratings.csv", "consensus.xlsx", "consensus.csv", "rejected.csv"):
        assert f'href="/research/agreement/{batch.pk}/{sheet}"' in html
    assert 'data-download="report"' not in html
    AgreementReport.objects.create(batch=batch, source="ws", passed=True, report={}, created_at=timezone.now())
    html = researcher_client.get(f"/research/batches/{batch.pk}/").content.decode()
    assert f'href="/research/agreement/{batch.pk}/report.json"' in html


def test_a_batch_without_ratings_offers_no_download(researcher_client, jsonl):
    call_command("import_dialogues", str(jsonl([dialogue(1)])), batch="fresh")
    fresh = Batch.objects.get(name="fresh")
    html = researcher_client.get(f"/research/batches/{fresh.pk}/").content.decode()
    assert "data-download" not in html and "Nothing to download yet" in html


def test_chosen_annotators_are_named_in_the_settings_summary(researcher_client, batch):
    from tests.helpers import make_user

    person = make_user("person_1", "annotator")
    batch.restricted = True
    batch.save()
    batch.annotators.set([person])
    html = researcher_client.get(f"/research/batches/{batch.pk}/").content.decode()
    assert "Only the chosen annotators: person_1" in html
