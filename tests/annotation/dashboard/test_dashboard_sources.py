"""The dashboard says where each figure comes from, and shows the bootstrap the shown report really used."""

from datetime import UTC, datetime

import pytest
from django.contrib.auth.models import User

from annotation.aggregation.reports import N_BOOT
from annotation.dashboard.selectors import report_bootstrap
from annotation.models import AgreementReport, Annotation, QualityFlag
from annotation.services import agreement_report_create, annotation_update
from tests.annotation.dashboard.test_dashboard import URL, _section, batch, report, researcher_client  # noqa: F401

pytestmark = pytest.mark.django_db
HTMX = {"HX-Request": "true"}


def test_tables_from_the_report_and_the_live_weekly_plot_are_labelled(researcher_client, batch, report):  # noqa: F811
    AgreementReport.objects.filter(pk=report.pk).update(created_at=datetime(2025, 1, 6, 16, 30, tzinfo=UTC))
    html = researcher_client.get(URL, {"batch": batch.pk}).content.decode()
    label = f"From the latest report #{report.pk} (2025-01-07 01:30)"  # Tokyo time, not 16:30 UTC
    assert label in _section(html, 'id="summary-heading"', "</table>")
    assert label in _section(html, 'id="heatmap-heading"', "</table>")
    weekly = _section(html, 'id="weekly-heading"', "</svg>")
    assert 'data-source="live"' in weekly and "Computed from the current ratings" in weekly
    assert 'data-source="report"' not in weekly and "16:30" not in html


def test_an_axis_tab_keeps_the_labels(researcher_client, batch, report):  # noqa: F811
    html = researcher_client.get(URL, {"batch": batch.pk, "axis": "self"}, headers=HTMX).content.decode()
    assert f'data-source="report" data-report="{report.pk}"' in html and 'data-source="live"' in html


def test_without_a_report_only_the_live_plot_is_labelled(researcher_client, batch):  # noqa: F811
    html = researcher_client.get(URL, {"batch": batch.pk}).content.decode()
    assert 'data-source="live"' in html and 'data-source="report"' not in html


def test_the_bootstrap_count_is_the_one_the_shown_report_used(researcher_client, batch, report):  # noqa: F811
    html = researcher_client.get(URL, {"batch": batch.pk}).content.decode()
    assert report.parameters["n_boot"] == 20
    assert "20 bootstrap replicates, seed 0" in html and "percentile bootstrap, 20 replicates" in html
    report.parameters["n_boot"] = 37  # what the stored report says, whatever the code's default is
    report.save()
    html = researcher_client.get(URL, {"batch": batch.pk}).content.decode()
    assert 'data-bootstrap="37"' in html and "37 bootstrap replicates, seed 0" in html
    assert (
        "percentile bootstrap, 37 replicates, resampling unit: items (each drawn with all its ratings), seed 0" in html
    )


def test_a_report_without_n_boot_in_its_parameters_reads_its_body(report):  # noqa: F811
    report.parameters = {"min_kappa": 0.6}
    assert report_bootstrap(report) == {"replicates": 20, "seed": 0}


def test_a_report_without_bootstrap_says_it_has_no_interval(researcher_client, batch, report):  # noqa: F811
    agreement_report_create(batch=batch, n_boot=0)
    html = researcher_client.get(URL, {"batch": batch.pk}).content.decode()
    assert "This report was computed without a bootstrap, so it has no 95% CI." in html
    assert 'data-bootstrap="0"' in html


def test_the_recompute_text_names_the_count_the_job_will_use(researcher_client, batch, monkeypatch):  # noqa: F811
    html = researcher_client.get(URL, {"batch": batch.pk}).content.decode()
    assert f'data-recompute-boot="{N_BOOT}"' in html and f"({N_BOOT} bootstrap replicates)" in html
    monkeypatch.setattr("annotation.dashboard.views.N_BOOT", 250)
    html = researcher_client.get(URL, {"batch": batch.pk}).content.decode()
    assert "(250 bootstrap replicates)" in html and "1,000" not in html


def test_it_says_when_the_ratings_changed_after_the_report(researcher_client, researcher, batch, report):  # noqa: F811
    assert 'data-stale="true"' not in researcher_client.get(URL, {"batch": batch.pk}).content.decode()
    rating = Annotation.objects.filter(dialogue__batch=batch).first()
    annotation_update(annotation=rating, values={"social_score": 5 if rating.social_score != 5 else 4},
                      user=researcher, reason="test")  # fmt: skip
    assert 'data-stale="true"' in researcher_client.get(URL, {"batch": batch.pk}).content.decode()
    agreement_report_create(batch=batch, n_boot=0)
    assert 'data-stale="true"' not in researcher_client.get(URL, {"batch": batch.pk}).content.decode()
    Annotation.objects.filter(pk=rating.pk).delete()
    assert 'data-stale="true"' in researcher_client.get(URL, {"batch": batch.pk}).content.decode()


def test_open_flags_are_listed_by_kind_with_readable_text(researcher_client, batch, report):  # noqa: F811
    QualityFlag.objects.filter(report=report).delete()
    annotator = User.objects.get(username="ann_003")
    annotator.username = "<script>bad()</script>"
    annotator.save()
    for seconds in (2.5, 3.5):
        QualityFlag.objects.create(
            source="outlier", kind="too_fast", report=report, annotator=annotator, statistic=seconds, threshold=5.0,
            message=f"median {seconds} s per item, below 5.0 s", details={"n_timed": 12, "share_under_3s": 0.5},
        )  # fmt: skip
    QualityFlag.objects.create(source="outlier", kind="low_agreement", report=report, axis="self", statistic=0.41,
                               threshold=0.6, message="weighted kappa with the other annotators 0.410 < 0.6",
                               details={"n_items": 9})  # fmt: skip
    html = researcher_client.get(URL, {"batch": batch.pk}).content.decode()
    card = _section(html, 'id="flags-heading"', "</section>")
    assert 'data-open-flags="3"' in card
    assert '<li data-kind="too_fast"><span>Implausibly fast</span> <strong>2</strong></li>' in card
    assert '<li data-kind="low_agreement"><span>Low agreement with the others</span> <strong>1</strong></li>' in card
    assert "Median 3.5 s per item, under 5 s (12 timed ratings, 50% of them under 3 s)." in card
    assert "Self-ingratiation: weighted κ with the other annotators is 0.410, under 0.60 (9 items)." in card
    assert "<script>bad()" not in html and "&lt;script&gt;bad()&lt;/script&gt;" in card


def test_the_dashboard_links_to_the_activity_page(researcher_client, batch):  # noqa: F811
    html = researcher_client.get(URL, {"batch": batch.pk}).content.decode()
    assert f'href="/research/batches/{batch.pk}/activity/" data-link="activity"' in html
