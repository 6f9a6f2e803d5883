"""The items table: search, filters (ratings, disputed by the batch spread, flags, adjudicated), order, pages."""

import re

import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotation.models import Batch, ItemComment, QualityFlag
from annotation.review.services import adjudication_record
from tests.annotation.conftest import dialogue, rating
from tests.annotation.workspace.conftest import HTMX, item

pytestmark = pytest.mark.django_db


def _ids(client, batch, query: str = "", **headers) -> list[str]:
    html = client.get(f"/research/batches/{batch.pk}/items/{query}", headers=headers).content.decode()
    return re.findall(r'<tr data-item="([^"]+)"', html)


ALL = [f"dialogue_{i:03d}" for i in range(6)]


def test_every_item_with_ratings_spread_and_marks(researcher_client, batch):
    html = researcher_client.get(f"/research/batches/{batch.pk}/items/").content.decode()
    assert re.findall(r'<tr data-item="([^"]+)"', html) == ALL
    row = html[html.index('data-item="dialogue_000"') : html.index("</tr>", html.index('data-item="dialogue_000"'))]
    assert 'data-ratings="3"' in row and "3 / 3" in row
    assert 'data-spread="4"' in row and "Social ingratiation" in row and "ws-disputed" in row
    row_4 = html[html.index('data-item="dialogue_004"') : html.index("</tr>", html.index('data-item="dialogue_004"'))]
    assert 'data-flags="1"' in row_4
    row_5 = html[html.index('data-item="dialogue_005"') : html.index("</tr>", html.index('data-item="dialogue_005"'))]
    assert 'data-problems="1"' in row_5
    assert "6 items" in html


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("?ratings=none", ["dialogue_003"]),
        ("?ratings=under", ["dialogue_002"]),
        ("?ratings=complete", ["dialogue_000", "dialogue_001", "dialogue_004", "dialogue_005"]),
        ("?disputed=1", ["dialogue_000", "dialogue_005"]),
        ("?flagged=1", ["dialogue_004", "dialogue_005"]),
        ("?q=キーワード", ["dialogue_004"]),
        ("?q=dialogue_00", ALL),
        ("?q=回答 2", ["dialogue_002"]),  # the response text
        ("?q=nothing-like-this", []),
        ("?ratings=complete&disputed=1&q=dialogue_005", ["dialogue_005"]),
        (
            "?sort=spread",
            ["dialogue_000", "dialogue_005", "dialogue_001", "dialogue_002", "dialogue_003", "dialogue_004"],
        ),
        (
            "?sort=ratings",
            ["dialogue_003", "dialogue_002", "dialogue_000", "dialogue_001", "dialogue_004", "dialogue_005"],
        ),
        ("?ratings=bogus&sort=sideways&disputed=1", ["dialogue_000", "dialogue_005"]),  # a bad value drops only itself
    ],
)
def test_filters_and_search_narrow_the_table(researcher_client, batch, query, expected):
    assert _ids(researcher_client, batch, query) == expected


def test_the_disputed_filter_uses_the_batch_spread(researcher_client, batch):
    Batch.objects.filter(pk=batch.pk).update(disagreement_spread=1)
    assert _ids(researcher_client, batch, "?disputed=1") == ["dialogue_000", "dialogue_001", "dialogue_005"]
    Batch.objects.filter(pk=batch.pk).update(disagreement_spread=3)
    assert _ids(researcher_client, batch, "?disputed=1") == ["dialogue_000"]


def test_resolved_reports_and_dismissed_flags_leave_the_flagged_filter(researcher_client, batch):
    QualityFlag.objects.update(status=QualityFlag.Status.DISMISSED)
    ItemComment.objects.update(resolved_at="2025-01-01T00:00:00Z")
    assert _ids(researcher_client, batch, "?flagged=1") == []


def test_the_adjudicated_filter_follows_the_decisions_in_force(researcher_client, batch, researcher):
    adjudication_record(dialogue=item("dialogue_005"), axis="avoidant", score=2, reason="r", user=researcher)
    assert _ids(researcher_client, batch, "?adjudicated=1") == ["dialogue_005"]
    adjudication_record(dialogue=item("dialogue_005"), axis="avoidant", score=None, reason="withdrawn", user=researcher)
    assert _ids(researcher_client, batch, "?adjudicated=1") == []


def test_htmx_gets_only_the_results_and_links_keep_the_filters(researcher_client, batch):
    response = researcher_client.get(f"/research/batches/{batch.pk}/items/?disputed=1&q=dialogue", headers=HTMX)
    html = response.content.decode()
    assert "<html" not in html and html.lstrip().startswith('<div id="ws-results"')
    assert "HX-Request" in response.headers["Vary"]
    assert f'href="/research/batches/{batch.pk}/items/{item("dialogue_000").pk}/?q=dialogue&amp;disputed=1"' in html


def test_fifty_items_a_page_and_the_same_queries_for_any_page_size(researcher_client, jsonl):
    call_command("import_dialogues", str(jsonl([dialogue(i) for i in range(3)])), batch="big")
    big = Batch.objects.get(name="big")
    with CaptureQueriesContext(connection) as few:
        researcher_client.get(f"/research/batches/{big.pk}/items/")
    call_command("import_dialogues", str(jsonl([dialogue(i) for i in range(3, 60)])), batch="big")
    call_command("import_annotations", str(jsonl([rating(i, "ann_a") for i in range(60)])))
    with CaptureQueriesContext(connection) as many:
        html = researcher_client.get(f"/research/batches/{big.pk}/items/").content.decode()
    assert html.count("<tr data-item=") == 50 and "page 1 of 2" in html
    assert len(many) == len(few)
    assert _ids(researcher_client, big, "?page=2") == [f"dialogue_{i:03d}" for i in range(50, 60)]
    assert (
        'href="?ratings=under&amp;page=2"'
        in researcher_client.get(f"/research/batches/{big.pk}/items/?ratings=under").content.decode()
    )


def test_item_text_is_escaped(researcher_client, jsonl):
    call_command("import_dialogues", str(jsonl([dialogue(1, user="<script>alert(1)</script>")])), batch="x")
    html = researcher_client.get(f"/research/batches/{Batch.objects.get(name='x').pk}/items/").content.decode()
    assert "<script>alert(1)" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
