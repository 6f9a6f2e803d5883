"""The batch list: counts, progress, agreement verdict, open flags and problem reports, in a fixed number of queries."""

import re

import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from annotation.models import AgreementReport, Batch
from tests.annotation.conftest import dialogue

pytestmark = pytest.mark.django_db

URL = "/research/batches/"


def _row(html: str, name: str) -> str:
    start = html.index(f'data-batch="{name}"')
    return html[start : html.index("</tr>", start)]


def test_each_batch_shows_its_counts_progress_and_open_flags(researcher_client, batch):
    html = researcher_client.get(URL).content.decode()
    row = _row(html, "ws")
    assert 'data-items="6"' in row and 'data-ratings="13"' in row
    assert 'data-percent="72"' in row  # 13 of 6 × 3 = 18 ratings
    assert '<progress max="100" value="72"' in row
    assert 'data-open-flags="2"' in row  # one open flag, one open problem report
    assert 'data-kappa="none"' in row and "no report yet" in row
    assert 'href="/research/batches/new/"' in html  # the "New batch" button


def test_the_latest_agreement_report_gives_the_verdict_and_the_lowest_axis_kappa(researcher_client, batch):
    axes = {"social": {"kappa": 0.71}, "avoidant": {"kappa": 0.52}, "mechanical": {"kappa": None}, "self": {}}
    AgreementReport.objects.create(batch=batch, source="ws", passed=True, report={"axes": {"social": {"kappa": 0.9}}},
                                   created_at=timezone.now() - timezone.timedelta(days=1))  # fmt: skip
    AgreementReport.objects.create(batch=batch, source="ws", passed=False, report={"axes": axes})
    row = _row(researcher_client.get(URL).content.decode(), "ws")
    assert 'data-kappa="failed"' in row and "not passed" in row
    assert re.search(r"lowest κ 0\.520<div class=\"muted\">Avoidant ingratiation</div>", row)


def test_a_resolved_problem_report_and_a_dismissed_flag_no_longer_count(researcher_client, batch):
    from annotation.models import ItemComment, QualityFlag

    QualityFlag.objects.update(status=QualityFlag.Status.DISMISSED)
    ItemComment.objects.update(resolved_at=timezone.now())
    row = _row(researcher_client.get(URL).content.decode(), "ws")
    assert 'data-open-flags="0"' in row


def test_status_and_chosen_annotators_are_shown(researcher_client, batch):
    Batch.objects.filter(pk=batch.pk).update(status=Batch.Status.PAUSED, restricted=True)
    row = _row(researcher_client.get(URL).content.decode(), "ws")
    assert 'data-status="paused"' in row and "chosen annotators only" in row


def test_the_list_costs_the_same_number_of_queries_for_one_batch_or_many(researcher_client, batch, jsonl):
    with CaptureQueriesContext(connection) as one:
        researcher_client.get(URL)
    for b in range(5):
        call_command("import_dialogues", str(jsonl([dialogue(100 + 10 * b + i) for i in range(3)])), batch=f"more_{b}")
    with CaptureQueriesContext(connection) as six:
        html = researcher_client.get(URL).content.decode()
    assert html.count("data-batch=") == 6
    assert len(six) == len(one)


def test_without_batches_the_page_offers_to_create_one(researcher_client):
    html = researcher_client.get(URL).content.decode()
    assert "There are no batches yet" in html and 'href="/research/batches/new/"' in html
