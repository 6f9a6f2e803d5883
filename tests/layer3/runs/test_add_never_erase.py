"""Runs add what trials lack and erase nothing; every judged figure knows its judge; judges are never mixed."""

import pytest
from django.core.management import CommandError, call_command

from layer3.metrics.batch import RESULTS_VERSION
from layer3.metrics.provenance import block_judge
from layer3.models import Batch, Layer3Run, Layer3RunProblem, TrialLog
from layer3.runs.options import EvaluationOptions
from layer3.runs.services import layer3_run_create, layer3_run_execute, run_plan
from tests.fakes.openai_server import Reply
from tests.layer3.conftest import judge_reply

pytestmark = pytest.mark.django_db

GV = "generatedValueRelevance"
W2WR = "w2wrSemanticCorrectness"
BASELINE_GV = "baseline:baseline-tfidf@1:layer3.gv_relevance@1"
LLM_GV = "llm:fake-model:layer3.gv_relevance@1"


@pytest.fixture
def batch(trials_file, settings, tmp_path):
    settings.VAR_DIR = tmp_path
    call_command("import_trials", str(trials_file), "--batch", "b", "--experiment", "exp-1")
    return Batch.objects.get(name="b")


def records():
    """The stored records of the evaluable stage-3 targets, by trial id."""
    return {
        trial.external_id: trial.layer3_metrics
        for trial in TrialLog.objects.filter(stage=3).order_by("external_id")
        if not (trial.layer3_metrics and "error" in trial.layer3_metrics)
    }


def without_times(record):
    return {key: value for key, value in record.items() if key not in ("evaluatedAt",)}


def evaluate(*args):
    call_command("evaluate_layer3", "b", *args)
    return Layer3Run.objects.order_by("-pk").first()


def test_the_issue_sequence_adds_the_judge_keeps_it_and_never_compares_two_judges(batch, fake_llm):
    """evaluate_layer3 B --judge none; --judge baseline; --judge none --force; --judge llm --force for A only."""
    fake_llm.default_reply = judge_reply
    first = evaluate("--judge", "none")
    assert first.evaluated_count == 18 and all(GV not in m for m in records().values())

    second = evaluate("--judge", "baseline")
    assert second.evaluated_count == 18, "adding the judge to evaluated trials evaluates them"
    after_baseline = records()
    assert all(GV in m and block_judge(m[GV]) == BASELINE_GV for m in after_baseline.values())
    # the automatic blocks were not recomputed: a run asks only for what a trial lacks
    assert second.plan["blocks"]["graphComplexity"] == {"compute": 0, "keep": 18, "replace": 0, "retry": 0}
    assert second.plan["blocks"][GV]["compute"] == 18

    third = evaluate("--judge", "none", "--force")
    assert third.evaluated_count == 18 and GV not in third.plan["blocks"]
    after_force = records()
    assert {k: m[GV] for k, m in after_force.items()} == {k: m[GV] for k, m in after_baseline.items()}

    fourth = evaluate("--judge", "llm", "--model", "fake-model", "--force", "--model-configs", "A", "--yes")
    assert fourth.plan["replacedJudges"] == {GV: {BASELINE_GV: 4}}
    batch.refresh_from_db()
    judges = {entry["modelConfig"]: entry["judge"]["gv"] for entry in batch.layer3_by_model}
    assert judges == {"A": LLM_GV, "B": BASELINE_GV, "C": BASELINE_GV, "D": BASELINE_GV, "E": BASELINE_GV}
    assert batch.layer3_results["gvContentRelevance"]["usefulRate"] is None  # never a blend of two judges
    rows = [c for c in batch.layer3_statistics["layer3Comparisons"] if c["metric"] in ("GV_UR", "GV_CR")]
    with_a = [c for c in rows if "A" in (c["modelA"], c["modelB"])]
    assert with_a and all(c["pValue"] is None and c["reasonCode"] == "different_judges" for c in with_a)
    assert all(LLM_GV in c["reason"] and BASELINE_GV in c["reason"] for c in with_a)
    others = [c for c in rows if "A" not in (c["modelA"], c["modelB"]) and c["metric"] == "GV_UR"]
    assert any(c["pValue"] is not None for c in others), "configs judged alike are still compared"


def test_a_rerun_of_the_automatic_metrics_keeps_every_judged_block(batch):
    evaluate("--judge", "baseline", "--w2wr-semantic")
    before = records()
    evaluate("--judge", "none", "--force")
    after = records()
    assert {k: (m[GV], m[W2WR]) for k, m in after.items()} == {k: (m[GV], m[W2WR]) for k, m in before.items()}
    assert all(m["evaluatorModel"] == "baseline-tfidf@1" for m in after.values())


def test_force_recomputes_only_the_blocks_asked_for(batch):
    evaluate("--judge", "baseline")
    before = records()
    run = evaluate("--judge", "baseline", "--no-gv", "--w2wr-semantic", "--force")
    after = records()
    assert run.plan["blocks"][W2WR]["compute"] == 19 and GV not in run.plan["blocks"]  # with the broken trial
    assert all(after[k][GV] == before[k][GV] and W2WR in after[k] for k in before)


def test_a_rerun_without_force_computes_nothing_and_changes_nothing(batch):
    evaluate("--judge", "baseline", "--w2wr-semantic")
    before = records()
    run = evaluate("--judge", "baseline", "--w2wr-semantic")
    assert (run.evaluated_count, run.skipped_count) == (0, 19)
    assert records() == before


def test_adding_another_judge_to_a_few_trials_is_warned_about_as_mixing(batch, capsys):
    options = EvaluationOptions(judge="baseline", model_configs=("A",))
    layer3_run_execute(run=layer3_run_create(batch=batch, options=options))
    TrialLog.objects.filter(external_id="A-00000").update(layer3_metrics=None)
    plan = run_plan(batch=batch, options=EvaluationOptions(judge="llm", llm_model="other", model_configs=("A",)))
    assert plan.mixed_configs == {GV: ["A"]}
    assert plan.kept_judges == {GV: {BASELINE_GV: 3}}


def test_trials_whose_data_is_not_a_uispec_are_skipped_unless_forced(batch):
    evaluate()
    run = evaluate("--judge", "baseline")
    assert run.plan["errorTrialsSkipped"] == 1 and run.error_count == 0
    forced = evaluate("--force")
    assert forced.error_count == 1


def test_judge_answers_given_up_on_are_counted_reported_and_asked_again_by_the_next_run(batch, fake_llm, capsys):
    failing = {"on": True}

    def reply(request):
        if failing["on"] and "項目1" in request["messages"][-1]["content"]:
            return Reply.server_error()
        return judge_reply(request)

    fake_llm.default_reply = reply
    run = evaluate("--judge", "llm", "--yes")
    assert run.judge_failures > 0 and run.error_count == 1  # the trial whose data is not a UISpec
    problems = Layer3RunProblem.objects.filter(run=run, kind="judge")
    assert problems.exists() and sum(problems.values_list("items", flat=True)) == run.judge_failures
    out = capsys.readouterr().out
    summary = out.split(f"run {run.pk}: ")[-1]
    assert f"1 trial not evaluable (data not a UISpec), {run.judge_failures} judge answers given up on" in summary
    assert "no errors" not in summary and "0 errors" not in summary
    assert any(m[GV].get("judgeErrors") for m in records().values())

    failing["on"] = False
    again = evaluate("--judge", "llm", "--yes")
    assert again.plan["blocks"][GV]["retry"] > 0 and again.judge_failures == 0
    assert not any(m[GV].get("judgeErrors") for m in records().values())
    assert not Layer3RunProblem.objects.filter(run=again).exists()  # the earlier run's problems stay its own


def test_replacing_llm_verdicts_with_the_baseline_asks_first(batch, fake_llm, capsys):
    fake_llm.default_reply = judge_reply
    evaluate("--judge", "llm", "--yes")
    with pytest.raises(CommandError, match="pass --yes"):
        evaluate("--judge", "baseline", "--force")
    assert "replaces the verdicts of llm:fake-model" in capsys.readouterr().out
    assert all(block_judge(m[GV]) == LLM_GV for m in records().values())
    evaluate("--judge", "baseline", "--force", "--yes")
    assert all(block_judge(m[GV]) == BASELINE_GV for m in records().values())


def test_a_trial_without_generated_values_reports_no_items_not_zero(batch):
    bare = {"widgets": [{"id": "w1", "component": "free_writing"}], "reactiveBindings": {"bindings": []}}
    TrialLog.objects.filter(external_id="A-00000").update(generated_data=bare)
    evaluate("--judge", "baseline", "--w2wr-semantic")
    block = records()["A-00000"]
    assert (block[GV]["totalItems"], block[GV]["avgScore"], block[GV]["usefulRate"]) == (0, None, None)
    assert (block[W2WR]["evaluatedBindings"], block[W2WR]["correctnessRate"]) == (0, None)
    batch.refresh_from_db()
    a = next(entry for entry in batch.layer3_by_model if entry["modelConfig"] == "A")
    assert a["layer3"]["gvContentRelevance"]["trialCount"] == 3  # the bare trial adds no score


def test_each_metric_has_one_value_per_config_in_the_model_table_and_the_statistics(batch):
    """The statistics' M1/M2 of every metric are the per-model table's figures (one unit of averaging each)."""
    from layer3.panel.labels import RESULT_PATHS

    evaluate("--judge", "baseline", "--w2wr-semantic")
    batch.refresh_from_db()
    table = {entry["modelConfig"]: entry["layer3"] for entry in batch.layer3_by_model}
    checked = 0
    for row in batch.layer3_statistics["layer3Comparisons"]:
        block, key = RESULT_PATHS[row["metric"]]
        for config, value in ((row["modelA"], row["valueA"]), (row["modelB"], row["valueB"])):
            assert value == pytest.approx(table[config][block][key], abs=1e-12), (row["metric"], config)
            checked += 1
    assert checked == 220


def test_figures_stored_by_an_older_release_are_recomputed_on_their_next_read(batch, client, researcher):
    evaluate("--judge", "baseline")
    batch.refresh_from_db()
    current = batch.layer3_results
    Batch.objects.filter(pk=batch.pk).update(
        results_version=0, layer3_results={"gvContentRelevance": {"avgScore": 0.0, "usefulRate": 0.0}}
    )
    client.force_login(researcher)
    body = client.get(f"/api/experiment/batch/{batch.pk}/layer3-results").json()
    assert body["data"]["overall"] == current
    batch.refresh_from_db()
    assert batch.results_version == RESULTS_VERSION
