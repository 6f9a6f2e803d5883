"""Issue 30, point 4: the flag review's confirmation page says what the decision does before it is taken (the items
that leave or join the consensus, the consensus and κ figures now → after, from the same merge and κ as the exports
and reports), and a decision queues the batch's agreement report again so the dashboard follows it."""

import pytest
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.core.management import call_command

import annotation.job_handlers  # noqa: F401  (registers the agreement report job)
from annotation.aggregation.reports import kappa_report
from annotation.io.dataset import rating_set
from annotation.job_handlers import AGREEMENT_REPORT
from annotation.models import AgreementReport, Batch, QualityFlag
from annotation.review.decision_preview import flag_decision_preview
from annotation.review.flags import flags_review
from annotation.selectors import annotation_records
from core.job_runner import job_run
from core.models import Job
from core.services import job_enqueue
from tests.annotation.conftest import dialogue, rating

pytestmark = pytest.mark.django_db
CHANGELIST = "/admin/annotation/qualityflag/"
AXES = ("social", "avoidant", "mechanical", "self")


@pytest.fixture
def batch(jsonl):
    """16 items. ann_a, ann_b and ann_c rate items 0–7, only ann_a and ann_c rate items 8–15; they agree except
    on item 0's social axis (1, 2, 4: too wide a spread, so item 0 is rejected while ann_c's rating counts)."""
    call_command("import_dialogues", str(jsonl([dialogue(i) for i in range(16)])), batch="prev")
    rows = []
    for i in range(16):
        truth = (1 + i % 5, 1 + (2 * i) % 5, 1 + (i + 1) % 3, 1 + i % 2)
        for name in ("ann_a", "ann_b", "ann_c") if i < 8 else ("ann_a", "ann_c"):
            scores = truth
            if i == 0:
                scores = ({"ann_a": 1, "ann_b": 2, "ann_c": 4}[name], *truth[1:])
            rows.append(rating(i, name, scores=scores, conf=(1, 1, 1, 1)))
    call_command("import_annotations", str(jsonl(rows)))
    return Batch.objects.get(name="prev")


@pytest.fixture
def flag(batch):
    """A flag on ann_c in the batch (no axis: every axis), as a speed flag is."""
    from django.contrib.auth import get_user_model

    report = AgreementReport.objects.create(batch=batch, source="batch prev", passed=True, report={})
    return QualityFlag.objects.create(
        source="outlier", kind="too_fast", report=report, axis="",
        annotator=get_user_model().objects.get(username="ann_c"), message="ann_c rates too fast",
    )  # fmt: skip


def _kappas(batch, *, without: str | None = None) -> dict:
    """The agreement reports' κ per axis (kappa_report), over the batch's ratings less ``without``'s."""
    records = [r for r in annotation_records(batch_name=batch.name) if r.annotator_id != without]
    report = kappa_report(rating_set(records), n_boot=0)
    return {axis: report["axes"][axis]["kappa"] for axis in AXES}


def test_accepting_lists_the_items_that_leave_and_join_and_the_figures_before_and_after(batch, flag):
    preview = flag_decision_preview(flags=QualityFlag.objects.filter(pk=flag.pk), status="accepted")
    (shown,) = preview.batches
    assert (shown.consensus_before, shown.consensus_after) == (15, 8)
    assert [item.id for item in shown.leaving] == [f"dialogue_{i:03d}" for i in range(8, 16)]
    assert all(item.reasons[axis]["reason"] == "too_few_ratings" for item in shown.leaving for axis in AXES)
    assert [item.id for item in shown.joining] == ["dialogue_000"]  # no longer too wide without ann_c's 4
    assert (shown.ratings_left_out_before, shown.ratings_left_out_after) == (0, 16 * len(AXES))
    # κ: the reports' own figure, over all ratings now and without ann_c's after.
    before, after = _kappas(batch), _kappas(batch, without="ann_c")
    assert before != after
    for axis, kappa_before, kappa_after in shown.kappa:
        assert kappa_before == pytest.approx(before[axis]) and kappa_after == pytest.approx(after[axis])


def test_dismissing_an_accepted_flag_previews_the_way_back(batch, flag, staff_user):
    flags_review(flags=[flag], status="accepted", user=staff_user)
    preview = flag_decision_preview(flags=QualityFlag.objects.filter(pk=flag.pk), status="dismissed")
    (shown,) = preview.batches
    assert (shown.consensus_before, shown.consensus_after) == (8, 15)
    assert [item.id for item in shown.joining] == [f"dialogue_{i:03d}" for i in range(8, 16)]
    assert [item.id for item in shown.leaving] == ["dialogue_000"]
    # A flag already in the chosen state changes nothing.
    again = flag_decision_preview(flags=QualityFlag.objects.filter(pk=flag.pk), status="accepted").batches[0]
    assert again.unchanged and again.consensus_before == again.consensus_after == 8


def test_the_confirmation_page_shows_the_preview_and_the_decision_queues_the_report(
    client, staff_user, researcher, batch, flag, monkeypatch, django_capture_on_commit_callbacks
):
    client.force_login(staff_user)
    client.cookies["django_language"] = "en"
    data = {"action": "accept_flags", ACTION_CHECKBOX_NAME: [str(flag.pk)], "index": "0"}
    html = client.post(CHANGELIST, data).content.decode()
    section = html[html.index(f'data-preview-batch="{batch.pk}"') :]
    consensus = section[section.index('data-figure="consensus"') :]
    assert "<td>15</td><td><strong>8</strong></td>" in consensus[: consensus.index("</tr>")]
    leaving = section[section.index('data-preview="leaving"') : section.index("</details>")]
    assert "8 items leave the consensus" in leaving
    assert all(f'data-item="dialogue_{i:03d}"' in leaving for i in range(8, 16))
    assert "usable rating(s)" in leaving  # the reason in words
    assert 'data-preview="joining"' in section and 'data-item="dialogue_000"' in section
    assert section.count('data-figure="kappa"') == len(AXES)
    assert not Job.objects.exists() and QualityFlag.objects.get().status == "open"  # nothing decided yet

    sent = []
    monkeypatch.setattr("core.tasks.run_job.delay", lambda job_id: sent.append(job_id))
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(CHANGELIST, {**data, "apply": "1", "note": ""}, follow=True)
    assert "being recomputed" in response.content.decode()
    job = Job.objects.get(kind=AGREEMENT_REPORT)
    assert job.params["batch_id"] == batch.pk and job.created_by == staff_user and sent == [str(job.id)]
    job_run(job_id=job.id)
    stored = AgreementReport.objects.filter(batch=batch).latest("created_at")
    assert stored.parameters["trigger"] == "flag review"
    assert QualityFlag.objects.get(pk=flag.pk).status == "accepted"  # the recompute keeps the decision
    # The recomputed report carries the preview's "after" κ beside its κ over every rating, and the dashboard
    # shows both: what the confirmation page promised is what the dashboard then says.
    after, every = _kappas(batch, without="ann_c"), _kappas(batch)
    assert stored.report["accepted_flags"]["flags"] == 1
    for axis in AXES:
        assert stored.report["accepted_flags"]["kappa"][axis] == pytest.approx(after[axis], abs=1e-12)
        assert stored.report["axes"][axis]["kappa"] == pytest.approx(every[axis], abs=1e-12)
    client.force_login(researcher)
    page = client.get(f"/research/agreement/?batch={batch.pk}").content.decode()
    assert 'data-column="accepted-flags"' in page and 'data-note="accepted-flags"' in page
    assert f'data-accepted-kappa="social">{after["social"]:.3f}</td>' in page


def test_a_report_of_a_batch_without_accepted_flags_has_no_such_column(client, researcher, batch, flag):
    from annotation.services import agreement_report_create

    stored = agreement_report_create(batch=batch, n_boot=0)
    assert "accepted_flags" not in stored.report
    client.force_login(researcher)
    page = client.get(f"/research/agreement/?batch={batch.pk}").content.decode()
    assert 'data-column="accepted-flags"' not in page


def test_no_second_recompute_is_queued_while_one_waits(batch, flag, staff_user):
    waiting = job_enqueue(kind=AGREEMENT_REPORT, params={"batch_id": batch.pk, "n_boot": 0})
    flags_review(flags=[flag], status="accepted", user=staff_user)
    assert list(Job.objects.filter(kind=AGREEMENT_REPORT)) == [waiting]
    job_run(job_id=waiting.id)
    flags_review(flags=[flag], status="open", user=staff_user)
    assert Job.objects.filter(kind=AGREEMENT_REPORT).count() == 2


def test_a_flags_own_page_previews_the_decision_that_would_change_something(client, staff_user, batch, flag):
    client.force_login(staff_user)
    client.cookies["django_language"] = "en"
    html = client.get(f"{CHANGELIST}{flag.pk}/change/").content.decode()
    assert "If this flag is accepted:" in html and "8 items leave the consensus" in html
    flags_review(flags=[flag], status="accepted", user=staff_user)
    html = client.get(f"{CHANGELIST}{flag.pk}/change/").content.decode()
    assert "If this flag is dismissed (or reopened):" in html and "8 items join the consensus" in html
