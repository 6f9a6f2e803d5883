"""evaluate_layer3 without an LLM: stored metrics, located errors, batch results, resumability, the job flow."""

import json
from datetime import timedelta

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from core.job_runner import job_run
from core.models import Job
from layer3.metrics import compute_trial_metrics
from layer3.models import Batch, Layer3Run, TrialLog
from layer3.runs import chunk as chunk_module
from layer3.runs import services
from layer3.runs.options import EvaluationOptions
from layer3.runs.services import RunInFlight, layer3_run_create

pytestmark = pytest.mark.django_db


@pytest.fixture
def batch(trials_file, settings, tmp_path):
    settings.VAR_DIR = tmp_path
    call_command("import_trials", str(trials_file), "--batch", "b", "--experiment", "exp-1")
    return Batch.objects.get(name="b")


def stored():
    return {t.external_id: t.layer3_metrics for t in TrialLog.objects.order_by("external_id")}


def test_metrics_equal_the_pure_computation_and_broken_data_is_located(batch, capsys):
    call_command("evaluate_layer3", "b")
    metrics = stored()
    for trial in TrialLog.objects.filter(stage=3).exclude(external_id="D-00003"):
        expected = compute_trial_metrics(trial.generated_data)
        got = dict(metrics[trial.external_id])
        assert got.pop("evaluatedAt") and expected.pop("evaluatedAt")
        assert got == expected
    error = metrics["D-00003"]
    assert error["path"] == "generatedData.reactiveBindings.bindings[0].source" and "widgetId.port" in error["error"]
    assert metrics["E-00004"] is None  # stage 2: not a target
    run = Layer3Run.objects.get()
    assert (run.status, run.total_targets, run.evaluated_count, run.error_count) == ("succeeded", 19, 18, 1)
    out = capsys.readouterr().out
    assert "error in trial D-00003: generatedData.reactiveBindings.bindings[0].source" in out
    assert "1 other trials not targeted" in out and "GC_DEN" in out


def test_the_batch_results_hold_overall_by_model_and_statistics(batch):
    call_command("evaluate_layer3", "b")
    batch.refresh_from_db()
    assert batch.layer3_results["graphComplexity"]["avgNodeCount"] > 0
    gv = batch.layer3_results["gvContentRelevance"]
    assert (gv["avgScore"], gv["usefulRate"], gv["sampleSize"], gv["judges"]) == (None, None, 0, [])
    assert [entry["modelConfig"] for entry in batch.layer3_by_model] == ["A", "B", "C", "D", "E"]
    assert sum(entry["trialCount"] for entry in batch.layer3_by_model) == 19
    comparisons = batch.layer3_statistics["layer3Comparisons"]
    assert len(comparisons) == 11 * 10
    assert batch.layer3_statistics["summary"]["correction"] == "bonferroni"
    json.dumps(batch.layer3_statistics, allow_nan=False)
    assert batch.layer3_evaluated_at is not None


def test_a_log_file_records_the_run(batch, tmp_path):
    call_command("evaluate_layer3", "b")
    run = Layer3Run.objects.get()
    text = (tmp_path / "logs" / "layer3").joinpath(run.log_file.rsplit("/", 1)[-1]).read_text(encoding="utf-8")
    assert run.log_file.startswith(str(tmp_path / "logs" / "layer3" / "b-"))
    assert "error in trial D-00003" in text and f"run {run.pk}: succeeded" in text and "GC_DEN" in text


def test_a_rerun_skips_evaluated_trials_and_force_recomputes_them(batch):
    call_command("evaluate_layer3", "b")
    first = stored()
    call_command("evaluate_layer3", "b")
    second_run = Layer3Run.objects.order_by("-pk").first()
    assert (second_run.evaluated_count, second_run.skipped_count) == (0, 19)
    assert stored() == first
    call_command("evaluate_layer3", "b", "--force")
    forced = Layer3Run.objects.order_by("-pk").first()
    assert (forced.evaluated_count, forced.error_count, forced.skipped_count) == (18, 1, 0)


def test_a_run_that_dies_in_a_chunk_is_completed_by_the_next_and_each_trial_is_evaluated_once(
    batch, monkeypatch, settings
):
    settings.LAYER3_CHUNK_SIZE = 4
    calls = {"n": 0}
    real = chunk_module.evaluate_chunk
    evaluated = []

    def dies_in_the_third_chunk(rows, **kwargs):
        calls["n"] += 1
        if calls["n"] == 3:
            raise RuntimeError("worker killed")
        evaluated.extend(row.external_id for row in rows)
        return real(rows, **kwargs)

    monkeypatch.setattr(services, "evaluate_chunk", dies_in_the_third_chunk)
    with pytest.raises(CommandError, match="worker killed"):
        call_command("evaluate_layer3", "b")
    failed = Layer3Run.objects.get()
    assert failed.status == "failed" and "worker killed" in failed.error
    assert failed.evaluated_count + failed.error_count == 8 == len(evaluated)
    assert TrialLog.objects.filter(stage=3, layer3_metrics__isnull=False).count() == 8
    kept = {k: v for k, v in stored().items() if v is not None}

    call_command("evaluate_layer3", "b")
    resumed = Layer3Run.objects.order_by("-pk").first()
    assert resumed.status == "succeeded" and resumed.skipped_count == 8
    assert resumed.evaluated_count + resumed.error_count == 11
    assert sorted(evaluated) == sorted(TrialLog.objects.filter(stage=3).values_list("external_id", flat=True))
    assert len(evaluated) == len(set(evaluated))  # nobody twice
    after = stored()
    assert all(after[k] == v for k, v in kept.items())  # the first run's chunks were not redone
    batch.refresh_from_db()
    assert sum(e["evaluatedCount"] + e["errorCount"] for e in batch.layer3_by_model) == 19


def test_the_baseline_judge_fills_the_judged_metrics_and_says_it_is_not_an_llm(batch):
    call_command("evaluate_layer3", "b", "--judge", "baseline", "--w2wr-semantic")
    metrics = [m for m in stored().values() if m and "error" not in m]
    assert {m["evaluatorModel"] for m in metrics} == {"baseline-tfidf@1"}
    assert all("generatedValueRelevance" in m and "w2wrSemanticCorrectness" in m for m in metrics)
    batch.refresh_from_db()
    assert batch.layer3_results["gvContentRelevance"]["sampleSize"] > 0


def test_model_configs_limit_the_targets(batch):
    call_command("evaluate_layer3", "b", "--model-configs", "A,C")
    assert {k[0] for k, v in stored().items() if v is not None} == {"A", "C"}
    with pytest.raises(CommandError, match="has no model config Z; it has A, B, C, D, E"):
        call_command("evaluate_layer3", "b", "--model-configs", "Z")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["nope"], "no batch named 'nope'; batches: b \\(id"),
        (["99999"], "no batch with id 99999"),
        (["b", "--judge", "llm"], "set LLM_BASE_URL"),
        (["b", "--judge", "baseline", "--budget", "lots"], "write an amount and a currency"),
    ],
)
def test_bad_input_is_refused_before_anything_is_stored(batch, args, message):
    with pytest.raises(CommandError, match=message):
        call_command("evaluate_layer3", *args)
    assert not Layer3Run.objects.exists() and not TrialLog.objects.filter(layer3_metrics__isnull=False).exists()


def test_the_batch_is_found_by_its_id_too(batch):
    call_command("evaluate_layer3", str(batch.pk))
    assert Layer3Run.objects.get().status == "succeeded"


def test_a_second_run_is_refused_while_one_is_alive_and_a_dead_one_is_marked_interrupted(batch):
    running = layer3_run_create(batch=batch, options=EvaluationOptions())
    Layer3Run.objects.filter(pk=running.pk).update(status="running", heartbeat_at=timezone.now())
    with pytest.raises(RunInFlight):
        layer3_run_create(batch=batch, options=EvaluationOptions())
    with pytest.raises(CommandError, match="is running"):
        call_command("evaluate_layer3", "b")
    Layer3Run.objects.filter(pk=running.pk).update(heartbeat_at=timezone.now() - timedelta(minutes=11))
    call_command("evaluate_layer3", "b")
    running.refresh_from_db()
    assert running.status == "interrupted"
    assert Layer3Run.objects.order_by("-pk").first().status == "succeeded"


def test_a_queued_run_is_executed_by_the_worker_through_a_job(batch, monkeypatch, django_capture_on_commit_callbacks):
    monkeypatch.setattr("core.tasks.run_job.delay", lambda job_id: job_run(job_id=job_id))
    with django_capture_on_commit_callbacks(execute=True):
        run = layer3_run_create(batch=batch, options=EvaluationOptions(judge="baseline"), enqueue=True)
    run.refresh_from_db()
    job = Job.objects.get(pk=run.job_id)
    assert job.kind == "layer3.evaluate" and job.status == "succeeded"
    assert job.result == {
        "run_id": run.pk,
        "batch": "b",
        "batch_id": batch.pk,
        "status": "succeeded",
        "evaluated": 18,
        "skipped": 0,
        "errors": 1,
        "left_for_later": 0,
        "judge_failures": 0,
    }
    assert (job.progress_done, job.progress_total) == (19, 19)
    assert run.status == "succeeded" and run.last_metrics and "itemEvaluations" not in str(run.last_metrics)


def test_the_figures_a_whole_batch_run_keeps_in_memory_equal_those_read_back(batch):
    from layer3.runs.services import batch_results_refresh

    call_command("evaluate_layer3", "b", "--judge", "baseline", "--w2wr-semantic")
    batch.refresh_from_db()
    kept = (batch.layer3_results, batch.layer3_by_model, batch.layer3_statistics)
    batch_results_refresh(batch=batch)
    batch.refresh_from_db()
    assert (batch.layer3_results, batch.layer3_by_model, batch.layer3_statistics) == kept


def test_a_run_split_into_chunks_keeps_the_figures_a_single_process_run_gives(batch, monkeypatch, settings):
    from layer3.runs.services import batch_results_refresh

    settings.LAYER3_JUDGED_CHUNK_SIZE = 4
    monkeypatch.setattr("core.tasks.run_job.delay", lambda job_id: job_run(job_id=job_id))
    run = layer3_run_create(batch=batch, options=EvaluationOptions(judge="baseline"), enqueue=True)
    job_run(job_id=run.job_id)
    run.refresh_from_db()
    assert run.status == "succeeded" and Job.objects.get(pk=run.job_id).chunks.count() == 5
    assert not Job.objects.get(pk=run.job_id).chunks.exclude(result=None).exists()  # the summaries are not kept
    batch.refresh_from_db()
    kept = (batch.layer3_results, batch.layer3_by_model, batch.layer3_statistics)
    batch_results_refresh(batch=batch)
    batch.refresh_from_db()
    assert (batch.layer3_results, batch.layer3_by_model, batch.layer3_statistics) == kept
