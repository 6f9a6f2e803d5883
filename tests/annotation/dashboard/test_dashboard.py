"""The researcher agreement dashboard: report, heat map, weekly plot, recompute job, roles."""

import re

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command

import annotation.job_handlers  # noqa: F401  (registers the annotation.agreement_report job kind)
from annotation.dashboard.selectors import heat_map, kappa_colour, open_flags, weekly_plot
from annotation.job_handlers import AGREEMENT_REPORT
from annotation.models import AgreementReport, Batch, QualityFlag
from annotation.services import agreement_report_create
from core.job_runner import job_run
from core.models import Job
from core.services import job_enqueue
from tests.annotation.conftest import dialogue, rating

pytestmark = pytest.mark.django_db

URL = "/research/agreement/"
RECOMPUTE = "/research/agreement/recompute/"
HTMX = {"HX-Request": "true"}
WEEK_2 = "2025-01-06T10:00:00Z"  # Monday of ISO week 2025-W02 (also in Tokyo)
WEEK_3 = "2025-01-13T10:00:00Z"
WEEK_4 = "2025-01-20T10:00:00Z"


@pytest.fixture
def batch(jsonl):
    """12 dialogues; ann_001 and ann_002 rate all (items 0-5 in W02, 6-11 in W04), ann_003 items 0-6 in W03."""
    call_command("import_dialogues", str(jsonl([dialogue(i) for i in range(12)])), batch="b1")
    rows = []
    for i in range(12):
        when = WEEK_2 if i < 6 else WEEK_4
        rows.append(rating(i, "ann_001", scores=(1 + i % 5, 1 + i % 3, 1, 1), timestamp=when))
        rows.append(rating(i, "ann_002", scores=(1 + i % 5 if i % 4 else 2, 1 + i % 3, 1, 1), timestamp=when))
        if i < 7:
            rows.append(rating(i, "ann_003", scores=(1 + i % 4, 1 + i % 2, 1, 1), timestamp=WEEK_3))
    rows.append(rating(11, "ann_004", scores=(3, 1, 1, 1), timestamp=WEEK_4))  # one common item with each: undefined
    # ann_001 is a live, unqualified account when a test also asks for the ``annotator`` fixture
    call_command("import_annotations", str(jsonl(rows)), allow_unqualified_annotators=True, reason="test data")
    return Batch.objects.get(name="b1")


@pytest.fixture
def report(batch):
    return agreement_report_create(batch=batch, n_boot=20)


@pytest.fixture
def researcher_client(client, researcher):
    client.force_login(researcher)
    client.cookies["django_language"] = "en"  # assert on the English msgids whatever the catalogue holds
    return client


def _section(html: str, start: str, end: str) -> str:
    return html[html.index(start) : html.index(end, html.index(start))]


# --- the page --------------------------------------------------------------------------------------------------


def test_it_shows_the_latest_report_with_numbers_and_badges(researcher_client, batch, report):
    agreement_report_create(batch=batch, n_boot=0)  # an older report must not be the one shown
    newest = AgreementReport.objects.filter(batch=batch).order_by("-created_at").first()
    newest.report["axes"]["social"]["kappa"] = 0.8123
    newest.report["axes"]["social"]["passed"] = newest.report["axes"]["social"]["target_reached"] = True
    newest.report["axes"]["social"]["ci95"] = [0.7011, 0.9]
    newest.save()
    response = researcher_client.get(URL, {"batch": batch.pk})
    assert response.status_code == 200
    html = response.content.decode()
    social = _section(html, 'data-axis="social"', "</tr>")
    assert "0.812" in social and "[0.701, 0.900]" in social
    assert "verdict-pass" in social and "verdict-target" in social
    data = newest.report["axes"]["avoidant"]
    avoidant = _section(html, 'data-axis="avoidant"', "</tr>")
    assert (
        f"{data['kappa']:.3f}" in avoidant and f"{data['alpha']:.3f}" in avoidant and f"{data['ac2']:.3f}" in avoidant
    )
    assert f"{100 * data['agreement_exact']:.1f}%" in avoidant and "verdict-fail" in avoidant
    assert "Failed: not every axis has κ ≥ 0.60" in html and "Target κ ≥ 0.80 not reached" in html
    assert "0 bootstrap replicates, seed 0" in html  # the parameters of the newest report
    assert '<table class="heatmap"' in html and '<svg class="weekly-plot"' in html


def test_it_shows_the_paradox_note(researcher_client, report):
    report.report["axes"]["self"]["paradox_note"] = "Kappa is 0.100 although raters agree exactly on 95.0% ..."
    report.save()
    html = researcher_client.get(URL).content.decode()
    assert "Kappa paradox" in html and "Kappa is 0.100 although raters agree exactly on 95.0% ..." in html


def test_it_defaults_to_the_first_batch_with_ratings(researcher_client, report):
    Batch.objects.create(name="a_empty")  # sorts first, has no ratings
    response = researcher_client.get(URL)
    assert response.context["batch"].name == "b1"
    assert re.search(r'<option value="\d+" selected>b1 \(ratings: 32\)', response.content.decode())


def test_without_a_report_it_says_so_and_offers_the_recompute_button(researcher_client, batch):
    html = researcher_client.get(URL, {"batch": batch.pk}).content.decode()
    assert "No agreement report has been computed for this batch yet." in html
    assert 'data-action="recompute"' in html and f'name="batch" value="{batch.pk}"' in html
    assert '<svg class="weekly-plot"' in html  # the weekly plot needs ratings only


def test_it_handles_no_batches_and_unknown_batches(researcher_client):
    assert "There are no batches yet." in researcher_client.get(URL).content.decode()
    assert researcher_client.get(URL, {"batch": 999}).status_code == 404
    assert researcher_client.get(URL, {"batch": "x"}).status_code == 404


def test_heat_map_prints_values_and_marks_undefined_pairs(researcher_client, batch, report):
    html = researcher_client.get(URL, {"batch": batch.pk}).content.decode()
    pair = next(p for p in report.report["axes"]["social"]["pairs"] if p["annotators"] == ["ann_001", "ann_002"])
    table = _section(html, '<table class="heatmap"', "</table>")
    assert f'title="ann_001 × ann_002: κ = {pair["kappa"]:.3f}, 12 common items">{pair["kappa"]:.2f}</td>' in table
    assert "ann_004 × ann_001: undefined (only 1 common item(s); at least 2 needed); 1 common items" in table
    assert table.count("cell diag") == 4


def test_heat_map_matrix_is_symmetric_with_no_common_items_marked(report):
    report.report["axes"]["social"]["pairs"] = [
        p for p in report.report["axes"]["social"]["pairs"] if p["annotators"] != ["ann_003", "ann_004"]
    ]
    matrix = heat_map(report, "social")
    assert matrix["annotators"] == ["ann_001", "ann_002", "ann_003", "ann_004"]
    values = [[cell.kappa for cell in row.cells] for row in matrix["rows"]]
    assert values == [list(column) for column in zip(*values, strict=True)]
    assert matrix["rows"][2].cells[3].reason == "no common items"


def test_kappa_colours_run_from_red_through_amber_to_green():
    assert kappa_colour(0.0) == ("#b42318", "#ffffff")
    assert kappa_colour(0.6)[0] == "#f5c86a" and kappa_colour(1.0)[0] == "#1f7a44"
    assert kappa_colour(None) == ("#eef0f3", "#5b6575")


def test_weekly_plot_has_a_point_per_defined_week_and_gaps_elsewhere(batch):
    plot = weekly_plot(batch, "social")
    assert [t["label"] for t in plot["x_ticks"]] == ["2025-W02", "2025-W03", "2025-W04"]
    by_name = {s["name"]: s for s in plot["series"]}
    assert [p["week"] for p in by_name["ann_001"]["points"]] == ["2025-W02", "2025-W04"]
    assert by_name["ann_001"]["lines"] == []  # W03 is undefined for ann_001: no line across it
    assert by_name["ann_004"]["points"] == []  # one common item per pair: undefined
    week_3 = plot["table"][1]["cells"]
    assert week_3[0] == {"kappa": "—", "n_items": 0, "reason": "no ratings in this week"}


def test_annotator_names_are_escaped_in_heat_map_and_plot(researcher_client, batch):
    User.objects.filter(username="ann_003").update(username='<script>alert("x")</script>')
    agreement_report_create(batch=batch, n_boot=0)
    html = researcher_client.get(URL, {"batch": batch.pk}).content.decode()
    assert "<script>alert" not in html
    escaped = "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;"
    assert escaped in _section(html, '<table class="heatmap"', "</table>")
    assert escaped in _section(html, '<svg class="weekly-plot"', "</svg>")
    assert escaped in _section(html, '<ul class="legend">', "</ul>")


def test_axis_tab_is_an_htmx_partial(researcher_client, batch, report):
    response = researcher_client.get(URL, {"batch": batch.pk, "axis": "avoidant"}, headers=HTMX)
    html = response.content.decode()
    assert response.status_code == 200 and "<html" not in html
    assert html.lstrip().startswith('<section id="axis-detail"')
    assert 'data-axis="avoidant"' in html and "Agreement by axis" not in html
    assert re.search(r'hx-get="[^"]*axis=avoidant"[^>]*aria-current="true"', html)
    assert "HX-Request" in response["Vary"]


def test_a_history_restore_gets_the_whole_page(researcher_client, batch, report):
    headers = {**HTMX, "HX-History-Restore-Request": "true"}
    html = researcher_client.get(URL, {"batch": batch.pk, "axis": "self"}, headers=headers).content.decode()
    assert "<html" in html and "Agreement by axis" in html


def test_open_flags_are_counted_and_linked_to_the_admin_changelist(client, staff_user, batch, report):
    kept = QualityFlag.objects.filter(status="open", report__batch=batch).first()
    QualityFlag.objects.filter(report__batch=batch).exclude(kind=kept.kind).update(status="dismissed")
    other = Batch.objects.create(name="other")
    QualityFlag.objects.create(source="outlier", kind="x", report=AgreementReport.objects.create(
        batch=other, source="batch other", passed=False, report={}), message="elsewhere")  # fmt: skip
    flags = open_flags(batch, staff_user)
    open_count = QualityFlag.objects.filter(status="open", report__batch=batch).count()
    assert flags["count"] == open_count > 0
    assert flags["review_site"] == "admin" and flags["review_url"].startswith("/admin/")
    client.force_login(staff_user)
    client.cookies["django_language"] = "en"
    html = client.get(URL, {"batch": batch.pk}).content.decode()
    assert f'data-open-flags="{open_count}"' in html and flags["review_url"].replace("&", "&amp;") in html
    changelist = client.get(flags["review_url"])
    assert changelist.status_code == 200
    assert changelist.context["cl"].result_count == open_count


# --- recompute -------------------------------------------------------------------------------------------------


def test_recompute_post_queues_a_job_and_swaps_in_its_status(
    researcher_client, researcher, batch, monkeypatch, django_capture_on_commit_callbacks
):
    sent = []
    monkeypatch.setattr("core.tasks.run_job.delay", lambda job_id: sent.append(job_id))
    with django_capture_on_commit_callbacks(execute=True):
        response = researcher_client.post(RECOMPUTE, {"batch": batch.pk}, headers=HTMX)
    job = Job.objects.get()
    assert (job.kind, job.params, job.created_by) == (
        AGREEMENT_REPORT,
        {"batch_id": batch.pk, "n_boot": 1000},
        researcher,
    )
    assert sent == [str(job.id)]
    html = response.content.decode()
    assert response.status_code == 200 and "<html" not in html
    assert f'id="job-{job.id}"' in html and f'hx-get="/jobs/{job.id}/"' in html
    assert f'hx-get="{URL}?job={job.id}"' in html  # the follow-up polls for the link to the new report
    assert "HX-Refresh" not in response  # not stored yet


def test_a_recompute_finished_before_its_response_reloads_the_page_at_once(researcher_client, batch, monkeypatch):
    def enqueue_and_run(**kwargs):  # a worker that is done before the view renders its response
        job = job_enqueue(**kwargs)
        job_run(job_id=job.id)
        return job

    monkeypatch.setattr("annotation.dashboard.views.job_enqueue", enqueue_and_run)
    response = researcher_client.post(RECOMPUTE, {"batch": batch.pk}, headers=HTMX)
    assert Job.objects.get().status == Job.Status.SUCCEEDED
    assert response["HX-Refresh"] == "true"


def test_the_stale_banner_is_gone_once_the_new_report_is_stored(researcher_client, batch, report):
    rating_row = batch.dialogues.first().annotations.first()
    rating_row.delete()  # the ratings changed since the report
    assert 'data-stale="true"' in researcher_client.get(URL, {"batch": batch.pk}).content.decode()
    job = job_enqueue(kind=AGREEMENT_REPORT, params={"batch_id": batch.pk, "n_boot": 0})
    job_run(job_id=job.id)
    assert researcher_client.get(URL, {"job": job.id}, headers=HTMX)["HX-Refresh"] == "true"
    assert 'data-stale="true"' not in researcher_client.get(URL, {"batch": batch.pk}).content.decode()


def test_recompute_without_htmx_redirects_to_the_dashboard_showing_the_job(researcher_client, batch, monkeypatch):
    monkeypatch.setattr("core.tasks.run_job.delay", lambda job_id: None)
    response = researcher_client.post(RECOMPUTE, {"batch": batch.pk})
    job = Job.objects.get()
    assert response.status_code == 302 and response["Location"] == f"{URL}?batch={batch.pk}&job={job.id}"
    html = researcher_client.get(response["Location"]).content.decode()
    assert f'id="job-{job.id}"' in html


def test_the_page_shows_a_recompute_still_running(researcher_client, batch):
    job = job_enqueue(kind=AGREEMENT_REPORT, params={"batch_id": batch.pk, "n_boot": 0})
    assert f'id="job-{job.id}"' in researcher_client.get(URL, {"batch": batch.pk}).content.decode()


def test_follow_up_polls_until_the_job_ends_then_links_the_new_report(researcher_client, batch):
    job = job_enqueue(kind=AGREEMENT_REPORT, params={"batch_id": batch.pk, "n_boot": 0})
    html = researcher_client.get(URL, {"job": job.id}, headers=HTMX).content.decode()
    assert 'hx-trigger="every 2s"' in html and "Show the new report" not in html
    assert "HX-Refresh" not in researcher_client.get(URL, {"job": job.id}, headers=HTMX)
    job_run(job_id=job.id)
    response = researcher_client.get(URL, {"job": job.id}, headers=HTMX)
    html = response.content.decode()
    assert "hx-trigger" not in html
    assert f'href="{URL}?batch={batch.pk}">Show the new report</a>' in html  # without JavaScript
    assert response["HX-Refresh"] == "true"  # with it, the page shows the new report by itself
    assert researcher_client.get(URL, {"job": "nope"}, headers=HTMX).status_code == 404


def test_running_the_job_stores_a_new_report(batch, report, researcher):
    job = job_enqueue(kind=AGREEMENT_REPORT, params={"batch_id": batch.pk, "n_boot": 10}, user=researcher)
    job_run(job_id=job.id)
    job.refresh_from_db()
    assert job.status == Job.Status.SUCCEEDED, job.error
    new = AgreementReport.objects.get(pk=job.result["report_id"])
    assert new != report and new.batch == batch and new.created_by == researcher
    assert new.parameters["n_boot"] == 10 and (job.progress_done, job.progress_total) == (1, 1)
    assert AgreementReport.objects.filter(batch=batch).count() == 2


def test_the_job_fails_with_a_message_for_a_missing_batch(db):
    job = job_enqueue(kind=AGREEMENT_REPORT, params={"batch_id": 4242})
    job_run(job_id=job.id)
    job.refresh_from_db()
    assert job.status == Job.Status.FAILED and "no batch with id 4242" in job.error


def test_recompute_refuses_a_batch_without_ratings(researcher_client):
    empty = Batch.objects.create(name="empty")
    response = researcher_client.post(RECOMPUTE, {"batch": empty.pk}, headers=HTMX)
    assert "Batch empty has no ratings yet" in response.content.decode()
    assert not Job.objects.exists()
    assert researcher_client.post(RECOMPUTE, {"batch": 999}).status_code == 404


# --- roles -----------------------------------------------------------------------------------------------------


def test_it_requires_the_researcher_role(client, annotator, outsider, batch):
    for user in (annotator, outsider):
        client.force_login(user)
        assert client.get(URL).status_code == 403
        assert client.get(URL, {"axis": "social"}, headers=HTMX).status_code == 403
        assert client.post(RECOMPUTE, {"batch": batch.pk}).status_code == 403
    assert not Job.objects.exists()


def test_it_sends_anonymous_users_to_the_login_page(client, db):
    response = client.get(URL)
    assert response.status_code == 302 and response["Location"] == f"/login/?next={URL}"
    assert client.post(RECOMPUTE).status_code == 302


def test_staff_may_use_it(client, staff_user, report):
    client.force_login(staff_user)
    assert client.get(URL).status_code == 200


def test_recompute_rejects_get(researcher_client):
    assert researcher_client.get(RECOMPUTE).status_code == 405
