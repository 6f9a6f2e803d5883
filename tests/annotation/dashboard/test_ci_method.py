"""Agreement reports state how their CIs were computed, with the simulated coverage, on the dashboard, in the weekly
report and in the CSV/XLSX exports; a researcher can switch a report to BCa intervals."""

import csv
import io
import re

import numpy as np
import openpyxl
import pytest
from django.core.management import call_command
from django.utils import translation

import annotation.job_handlers  # noqa: F401  (registers the annotation.agreement_report job kind)
from annotation.aggregation import coverage_cache
from annotation.aggregation.agreement import coverage as sim
from annotation.aggregation.coverage_cache import coverage_cached
from annotation.dashboard import ci_method
from annotation.dashboard.ci_method import REPORT_COLUMNS, design_ci_method, report_ci_method
from annotation.job_handlers import AGREEMENT_REPORT
from annotation.models import AgreementReport, Batch
from annotation.monitoring import weekly_agreement_reports
from annotation.services import agreement_report_create
from core.job_runner import job_run
from core.models import Job
from core.services import job_enqueue
from tests.annotation.conftest import dialogue, rating
from tests.helpers import make_user

pytestmark = pytest.mark.django_db

URL = "/research/agreement/"
SWITCH = "/research/agreement/ci-method/"
AXES = ("social", "avoidant", "mechanical", "self")


def _import_batch(jsonl, name: str, n_items: int, n_raters: int, per_item: int) -> Batch:
    """A batch rated as the coverage model rates: each item by ``per_item`` of ``n_raters`` annotators."""
    call_command("import_dialogues", str(jsonl([dialogue(i) for i in range(n_items)])), batch=name)
    rng = np.random.default_rng(11)
    scores = {axis: sim.simulate_ratings(rng, n_items, n_raters, per_item) for axis in AXES}
    rated = scores["social"] > 0
    for axis in AXES[1:]:  # the same annotators rate an item on every axis
        scores[axis] = np.where(rated, np.maximum(scores[axis], 1), 0)
    rows = [
        rating(i, f"ann_{r + 1:03d}", scores=tuple(int(scores[axis][i, r]) for axis in AXES))
        for i in range(n_items)
        for r in range(n_raters)
        if rated[i, r]
    ]
    call_command("import_annotations", str(jsonl(rows)))
    return Batch.objects.get(name=name)


@pytest.fixture
def batch(jsonl):
    """80 items, each rated by 3 of 5 annotators: the issue's design."""
    return _import_batch(jsonl, "b80", 80, 5, 3)


@pytest.fixture
def small_batch(jsonl):
    return _import_batch(jsonl, "b12", 12, 3, 2)


@pytest.fixture
def researcher_client(client, researcher):
    client.force_login(researcher)
    client.cookies["django_language"] = "en"
    return client


@pytest.fixture
def rater(db):
    """An annotator who is none of the batches' raters."""
    return make_user("someone_rating", "annotator")


@pytest.fixture
def simulations(monkeypatch):
    """Counts the coverage simulations actually run."""
    calls = []
    real = coverage_cache.simulate_coverage

    def counted(design, **kwargs):
        calls.append(design)
        return real(design, **kwargs)

    monkeypatch.setattr(coverage_cache, "simulate_coverage", counted)
    return calls


def _html(client, batch: Batch, language: str = "en") -> str:
    client.cookies["django_language"] = language
    response = client.get(URL, {"batch": batch.pk})
    assert response.status_code == 200
    return response.content.decode()


def _coverage(html: str) -> float:
    return float(re.search(r'data-ci-coverage="([0-9.]+)"', html).group(1))


# --- the statement ---------------------------------------------------------------------------------------------


def test_the_dashboard_names_the_method_replicates_unit_and_level(researcher_client, small_batch):
    agreement_report_create(batch=small_batch, n_boot=20)
    html = _html(researcher_client, small_batch)
    assert (
        "95% CI of κ: percentile bootstrap, 20 replicates, resampling unit: items (each drawn with all its ratings), "
        "seed 0. α and AC2 are given without an interval." in html
    )
    assert 'data-ci-method="percentile" data-ci-replicates="20" data-ci-unit="items" data-ci-level="95%"' in html
    assert "Simulated coverage at this size (12 items, 2 of 3 raters per item)" in html
    assert 0.0 < _coverage(html) <= 1.0


def test_the_dashboard_states_the_method_in_japanese(researcher_client, small_batch):
    agreement_report_create(batch=small_batch, n_boot=20)
    html = _html(researcher_client, small_batch, "ja")
    assert "κ の 95% 信頼区間：パーセンタイル・ブートストラップ、反復 20 回、再標本化の単位：項目" in html
    assert "この規模（12 項目、1 項目あたり評価者 3 人中 2 人）でのシミュレーション被覆率" in html


def test_at_80_items_with_3_of_5_raters_the_dashboard_warns_and_offers_bca(researcher_client, batch):
    report = agreement_report_create(batch=batch)  # 1,000 replicates, as the dashboard's recompute asks
    kept = report.report["ci_coverage"]
    assert kept["method"]["n_items"] == 80 and kept["method"]["raters_per_item"] == 3
    assert kept["method"]["n_raters"] == 5 and kept["method"]["n_boot"] == 1000
    assert 0.87 <= kept["method"]["rate"] <= 0.91 and kept["method"]["too_low"]
    assert kept["bca"]["rate"] > kept["method"]["rate"]
    html = _html(researcher_client, batch)
    assert 0.87 <= _coverage(html) <= 0.91
    warning = html[html.index("data-ci-warning") : html.index("</div>", html.index("data-ci-warning"))]
    assert "is under 93.0%: at this size the interval is too narrow for a 95% CI" in warning
    assert "The BCa interval (bias-corrected and accelerated) covers" in warning
    assert 'name="ci_method" value="bca"' in warning and 'data-action="ci-bca"' in warning
    assert "csrfmiddlewaretoken" in warning


def test_no_warning_where_the_simulated_coverage_reaches_93_percent(researcher_client, small_batch, monkeypatch):
    report = agreement_report_create(batch=small_batch, n_boot=20)
    report.report["ci_coverage"]["method"] |= {"rate": 0.95, "too_low": False}
    report.save()
    html = _html(researcher_client, small_batch)
    assert "data-ci-warning" not in html and 'data-action="ci-bca"' not in html
    assert "<strong>95.0%</strong>" in html


def test_other_pages_include_the_partial_with_a_statement_made_from_a_design(simulations):
    from django.template.loader import render_to_string
    from django.utils import translation

    ci = design_ci_method(sim.Design(n_items=10, n_raters=3, raters_per_item=2, n_boot=40))
    with translation.override("en"):
        html = render_to_string("annotation/dashboard/_ci_method.html", {"ci": ci})
        assert ci.statement.startswith("95% CI of κ: percentile bootstrap, 40 replicates")
    assert "percentile bootstrap, 40 replicates, resampling unit: items" in html
    assert "(10 items, 2 of 3 raters per item)" in html
    assert "data-action=" not in html and "ci-downloads" not in html  # no switch and no files unless given
    assert render_to_string("annotation/dashboard/_ci_method.html", {"ci": None}).strip() == ""
    count = len(simulations)
    assert design_ci_method(sim.Design(n_items=10, n_raters=3, raters_per_item=2, n_boot=40)) == ci
    assert len(simulations) == count  # read from the cache


# --- caching ---------------------------------------------------------------------------------------------------


def test_the_coverage_is_simulated_once_then_read_from_the_cache(simulations):
    design = sim.Design(n_items=15, n_raters=3, raters_per_item=2, n_boot=30)
    first = coverage_cached(design)
    second = coverage_cached(design)
    assert len(simulations) == 1 and first == second
    assert first["n_sets"] == sim.N_SETS and first["seed"] == sim.SEED
    coverage_cached(sim.Design(n_items=15, n_raters=3, raters_per_item=2, n_boot=30, method="bca"))
    assert len(simulations) == 2  # another method is another simulation


def test_a_stored_report_keeps_its_coverage_so_showing_it_simulates_nothing(
    researcher_client, small_batch, simulations
):
    report = agreement_report_create(batch=small_batch, n_boot=20)
    assert len(simulations) >= 1
    simulations.clear()
    _html(researcher_client, small_batch)
    report_ci_method(report)
    assert simulations == []


def test_an_older_report_without_coverage_is_simulated_on_first_view_then_cached(small_batch, simulations):
    report = agreement_report_create(batch=small_batch, n_boot=20)
    del report.report["ci_coverage"]
    report.save()
    from django.core.cache import cache

    cache.clear()
    simulations.clear()
    first = report_ci_method(report)
    count = len(simulations)
    assert count >= 1 and first.coverage is not None
    assert report_ci_method(report).coverage == first.coverage and len(simulations) == count


def test_a_large_older_report_is_not_simulated_while_its_page_is_shown(small_batch, simulations, monkeypatch):
    report = agreement_report_create(batch=small_batch, n_boot=20)
    del report.report["ci_coverage"]
    monkeypatch.setattr(ci_method, "INLINE_MAX_ITEMS", 5)
    assert report_ci_method(report).coverage is not None  # simulated when the report was stored: in the cache
    from django.core.cache import cache

    cache.clear()
    simulations.clear()
    ci = report_ci_method(report)
    assert ci.coverage is None and ci.coverage_pending and simulations == []
    with translation.override("en"):
        assert "recompute it to add the simulation" in ci.statement


# --- switching to BCa -----------------------------------------------------------------------------------------


def test_switching_to_bca_recomputes_the_intervals_and_changes_the_statement(researcher_client, batch):
    before = agreement_report_create(batch=batch, n_boot=200)
    response = researcher_client.post(SWITCH, {"batch": batch.pk, "ci_method": "bca"})
    job = Job.objects.get(kind=AGREEMENT_REPORT)
    assert response.status_code == 302 and response["Location"].endswith(f"job={job.pk}")
    assert job.params == {"batch_id": batch.pk, "n_boot": 200, "ci_method": "bca"}
    job_run(job_id=job.id)
    after = AgreementReport.objects.filter(batch=batch).order_by("-created_at", "-pk").first()
    assert after.pk != before.pk and after.parameters["ci_method"] == "bca"
    assert after.report["bootstrap"]["method"] == "bca" and after.report["bootstrap"]["replicates"] == 200
    assert after.report["axes"]["social"]["kappa"] == before.report["axes"]["social"]["kappa"]
    assert after.report["axes"]["social"]["ci95"] != before.report["axes"]["social"]["ci95"]
    html = _html(researcher_client, batch)
    low, high = after.report["axes"]["social"]["ci95"]
    assert f"[{low:.3f}, {high:.3f}]" in html
    assert "95% CI of κ: BCa bootstrap (bias-corrected and accelerated), 200 replicates" in html
    assert 'data-ci-method="bca"' in html and 'data-action="ci-bca"' not in html
    assert 'data-action="ci-percentile"' in html


def test_a_later_recompute_and_the_weekly_report_keep_the_bca_method(batch, researcher, settings):
    agreement_report_create(batch=batch, n_boot=50, ci_method="bca")
    job = job_enqueue(kind=AGREEMENT_REPORT, params={"batch_id": batch.pk, "n_boot": 50}, user=researcher)
    job_run(job_id=job.id)
    assert AgreementReport.objects.order_by("-pk").first().report["bootstrap"]["method"] == "bca"
    settings.AGREEMENT_MONITOR_N_BOOT = 50
    AgreementReport.objects.filter(parameters__trigger="weekly").delete()
    (weekly,) = weekly_agreement_reports()
    assert weekly.report["bootstrap"]["method"] == "bca"


def test_the_switch_refuses_an_unknown_method_and_people_who_are_not_researchers(
    client, researcher_client, small_batch, rater
):
    assert researcher_client.post(SWITCH, {"batch": small_batch.pk, "ci_method": "basic"}).status_code == 400
    assert researcher_client.post(SWITCH, {"batch": 999_999, "ci_method": "bca"}).status_code == 404
    assert researcher_client.get(SWITCH).status_code == 405
    client.force_login(rater)
    assert client.post(SWITCH, {"batch": small_batch.pk, "ci_method": "bca"}).status_code == 403
    assert not Job.objects.exists()


def test_the_switch_needs_the_csrf_token(researcher, small_batch):
    from django.test import Client

    strict = Client(enforce_csrf_checks=True)
    strict.force_login(researcher)
    assert strict.post(SWITCH, {"batch": small_batch.pk, "ci_method": "bca"}).status_code == 403
    assert not Job.objects.exists()


def test_the_job_refuses_an_unknown_ci_method(small_batch, researcher):
    job = job_enqueue(kind=AGREEMENT_REPORT, params={"batch_id": small_batch.pk, "ci_method": "x"}, user=researcher)
    job_run(job_id=job.id)
    job.refresh_from_db()
    assert job.status == Job.Status.FAILED and "ci_method" in job.error


# --- the weekly report -----------------------------------------------------------------------------------------


def test_the_weekly_report_states_its_method_and_coverage(researcher_client, small_batch, settings):
    settings.AGREEMENT_MONITOR_N_BOOT = 20
    (weekly,) = weekly_agreement_reports()
    assert weekly.report["bootstrap"] == {
        "method": "percentile", "replicates": 20, "seed": 0, "level": 0.95, "resampled": "items",
    }  # fmt: skip
    coverage = weekly.report["ci_coverage"]["method"]
    assert (coverage["n_items"], coverage["n_raters"], coverage["raters_per_item"]) == (12, 3, 2)
    assert coverage["method"] == "percentile" and coverage["n_sets"] == sim.N_SETS
    html = _html(researcher_client, small_batch)
    assert "95% CI of κ: percentile bootstrap, 20 replicates, resampling unit: items" in html


# --- exports ---------------------------------------------------------------------------------------------------


def test_the_csv_and_excel_reports_name_method_replicates_unit_and_level(researcher_client, small_batch):
    report = agreement_report_create(batch=small_batch, n_boot=20)
    html = _html(researcher_client, small_batch)
    assert f'href="/research/agreement/{small_batch.pk}/report.csv"' in html
    response = researcher_client.get(f"/research/agreement/{small_batch.pk}/report.csv")
    assert response.status_code == 200
    body = b"".join(response.streaming_content).decode("utf-8-sig")
    rows = list(csv.DictReader(io.StringIO(body)))
    assert [row["axis"] for row in rows] == list(AXES) and tuple(rows[0]) == REPORT_COLUMNS
    coverage = report.report["ci_coverage"]["method"]["rate"]
    for row in rows:
        assert (row["ci_method"], row["ci_replicates"], row["ci_unit"], row["ci_level"]) == (
            "percentile", "20", "items", "0.95",
        )  # fmt: skip
        assert float(row["ci_coverage"]) == coverage
        assert row["ci_statement"].startswith("95% CI of κ: percentile bootstrap, 20 replicates")
    ci = report.report["axes"]["social"]["ci95"]
    if ci:
        assert float(rows[0]["ci_low"]) == ci[0] and float(rows[0]["ci_high"]) == ci[1]

    researcher_client.cookies["django_language"] = "ja"
    response = researcher_client.get(f"/research/agreement/{small_batch.pk}/report.xlsx")
    assert response.status_code == 200
    sheet = openpyxl.load_workbook(io.BytesIO(b"".join(response.streaming_content))).active
    header, *values = [list(row) for row in sheet.iter_rows(values_only=True)]
    assert tuple(header) == REPORT_COLUMNS
    first = dict(zip(header, values[0], strict=True))
    assert (first["ci_method"], first["ci_replicates"], first["ci_unit"], first["ci_level"]) == (
        "percentile", 20, "items", 0.95,
    )  # fmt: skip
    assert first["ci_statement"].startswith("κ の 95% 信頼区間：パーセンタイル・ブートストラップ、反復 20 回")


def test_report_exports_need_a_researcher_and_a_report(client, researcher_client, small_batch, rater):
    assert researcher_client.get(f"/research/agreement/{small_batch.pk}/report.csv").status_code == 404
    agreement_report_create(batch=small_batch, n_boot=20)
    client.force_login(rater)
    assert client.get(f"/research/agreement/{small_batch.pk}/report.xlsx").status_code == 403
