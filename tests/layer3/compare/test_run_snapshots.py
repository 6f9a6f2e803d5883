"""Each run's figures are kept when it ends, so two runs of one batch compare trial by trial."""

import pytest

from layer3.compare.selectors import runs_comparison
from layer3.models import Layer3Run, Layer3RunResult, TrialLog
from layer3.runs import services
from layer3.runs.options import EvaluationOptions
from tests.layer3.compare.runs import run

pytestmark = pytest.mark.django_db


def test_a_run_keeps_every_target_trials_metrics_as_they_were_when_it_ended(batch):
    first = run(batch, evaluate_gv=False)
    snapshot = dict(Layer3RunResult.objects.filter(run=first).values_list("trial__external_id", "metrics"))
    targets = TrialLog.objects.filter(batch=batch, stage=3)
    assert set(snapshot) == set(targets.values_list("external_id", flat=True)) and len(snapshot) == 19
    assert all("generatedValueRelevance" not in m for m in snapshot.values() if "error" not in m)
    second = run(batch, judge="baseline", force=True)
    kept = dict(Layer3RunResult.objects.filter(run=first).values_list("trial__external_id", "metrics"))
    assert kept == snapshot  # the first run's snapshot is not touched by the second run
    later = dict(Layer3RunResult.objects.filter(run=second).values_list("trial__external_id", "metrics"))
    assert later == dict(targets.values_list("external_id", "layer3_metrics"))
    assert "generatedValueRelevance" in later["A-00000"]


def test_a_run_of_some_model_configs_snapshots_only_its_targets(batch):
    partial = run(batch, model_configs=("A", "B"))
    configs = set(Layer3RunResult.objects.filter(run=partial).values_list("trial__model_config", flat=True))
    assert configs == {"A", "B"}


def test_a_cancelled_run_keeps_a_snapshot_and_a_failed_one_does_not(batch):
    cancelled = services.layer3_run_create(batch=batch, options=EvaluationOptions())
    services.layer3_run_finish(cancelled, Layer3Run.Status.CANCELLED)
    failed = services.layer3_run_create(batch=batch, options=EvaluationOptions())
    services.layer3_run_finish(failed, Layer3Run.Status.FAILED, error="boom")
    assert Layer3RunResult.objects.filter(run=cancelled).count() == 19
    assert not Layer3RunResult.objects.filter(run=failed).exists()


def test_two_runs_with_different_options_compare_and_the_changed_trials_are_listed(batch):
    first = run(batch, evaluate_gv=False)
    second = run(batch, judge="baseline", force=True)
    comparison = runs_comparison(run_a=first, run_b=second).as_dict(sort="metric")
    assert comparison["snapshotMissing"] == []
    assert comparison["matching"]["pairs"] == 19 and comparison["unmatched"] == []
    rows = {(row["modelConfig"], row["metric"]): row for row in comparison["rows"]}
    assert len(rows) == 5 * 11
    gv = rows["A", "GV_CR"]
    assert gv["valueA"] is None and gv["pValue"] is None and gv["reasonCode"] == "no_pairs"
    assert gv["judgeB"] == "baseline:baseline-tfidf@1:layer3.gv_relevance@1"
    graph = rows["A", "GC_NC"]
    assert (graph["test"], graph["reasonCode"], graph["difference"]) == (
        "wilcoxon_signed_rank",
        "all_differences_zero",
        0.0,
    )
    flow = rows["A", "W2WR_FR"]
    assert flow["test"] == "mcnemar_exact" and flow["reasonCode"] == "no_discordant_pairs"
    assert comparison["summary"]["familySize"] == 55 and comparison["summary"]["adjustedAlpha"] == 0.05 / 55
    changed = comparison["changed"]
    assert changed and {row["metric"] for row in changed} <= {"GV_CR", "GV_UR"}
    assert [row["metric"] for row in changed] == sorted(
        (row["metric"] for row in changed), key=["GV_CR", "GV_UR"].index
    )


def test_a_run_from_before_snapshots_is_named_instead_of_failing(batch):
    old = run(batch)
    Layer3RunResult.objects.filter(run=old).delete()
    new = run(batch, force=True)
    comparison = runs_comparison(run_a=old, run_b=new).as_dict()
    assert comparison["snapshotMissing"] == ["A"] and comparison["rows"] == [] and comparison["summary"] is None


def test_a_run_a_worker_executes_through_its_job_keeps_a_snapshot_too(
    batch, monkeypatch, django_capture_on_commit_callbacks
):
    from core.job_runner import job_run

    monkeypatch.setattr("core.tasks.run_job.delay", lambda job_id: job_run(job_id=job_id))
    with django_capture_on_commit_callbacks(execute=True):
        queued = services.layer3_run_create(batch=batch, options=EvaluationOptions(judge="baseline"), enqueue=True)
    queued.refresh_from_db()
    assert queued.status == "succeeded"
    kept = dict(Layer3RunResult.objects.filter(run=queued).values_list("trial_id", "metrics"))
    assert kept == dict(TrialLog.objects.filter(batch=batch, stage=3).values_list("pk", "layer3_metrics"))
