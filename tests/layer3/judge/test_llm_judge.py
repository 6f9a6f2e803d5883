"""evaluate_layer3 --judge llm against the fake OpenAI endpoint: prompts, cache, refresh, budget, confirmation."""

import pytest
from django.core.management import CommandError, call_command

from layer3.models import Layer3Run, TrialLog
from llm.models import LLMCall
from tests.fakes.openai_server import Reply
from tests.layer3.conftest import judge_reply

pytestmark = pytest.mark.django_db


@pytest.fixture
def judged_batch(fake_llm, trials_file, settings, tmp_path):
    settings.VAR_DIR = tmp_path
    fake_llm.default_reply = judge_reply
    call_command("import_trials", str(trials_file), "--batch", "b")
    return fake_llm


def distinct_questions():
    """How many different questions the judges get (the gateway asks a repeated question once)."""
    from layer3.judge.items import gv_items, w2wr_items
    from layer3.metrics import UISpecError, parse_ui_spec

    seen = set()
    for trial in TrialLog.objects.filter(stage=3):
        try:
            spec = parse_ui_spec(trial.generated_data)
        except UISpecError:
            continue
        for kind, items in (("gv", gv_items(spec, trial.input_text)), ("w2wr", w2wr_items(spec, trial.input_text))):
            seen.update((kind, tuple(sorted(item.variables.items()))) for item in items)
    return len(seen)


def items_to_judge():
    """GV items and bindings of the batch's evaluable targets, counted the way the judges see them."""
    from layer3.judge.items import gv_items, w2wr_items
    from layer3.metrics import UISpecError, parse_ui_spec

    gv = w2wr = 0
    for trial in TrialLog.objects.filter(stage=3):
        try:
            spec = parse_ui_spec(trial.generated_data)
        except UISpecError:
            continue
        gv += len(gv_items(spec, trial.input_text))
        w2wr += len(w2wr_items(spec, trial.input_text))
    return gv, w2wr


def trials_without_gv():
    """The stored records of the evaluable targets that have no GV block."""
    records = TrialLog.objects.filter(stage=3).values_list("layer3_metrics", flat=True)
    return [m for m in records if not (m and "error" in m) and not (m and "generatedValueRelevance" in m)]


def evaluate(*args):
    call_command("evaluate_layer3", "b", "--judge", "llm", "--w2wr-semantic", "--yes", *args)


def chat_requests(server):
    return [r for r in server.requests if r["path"] == "/v1/chat/completions"]


def test_prompts_carry_the_concern_and_the_item_at_temperature_zero(judged_batch):
    evaluate()
    requests = chat_requests(judged_batch)
    assert len(requests) == distinct_questions()
    trial = TrialLog.objects.filter(stage=3, layer3_metrics__generatedValueRelevance__totalItems__gt=0).first()
    item = trial.layer3_metrics["generatedValueRelevance"]["itemEvaluations"][0]
    asked = [r["json"]["messages"][-1]["content"] for r in requests]
    assert any(trial.input_text in text and item["text"] in text for text in asked)
    assert all(r["json"]["temperature"] == 0 for r in requests)
    assert {r["json"]["model"] for r in requests} == {"fake-model"}


def test_judged_metrics_are_stored_with_the_evaluator_model(judged_batch):
    evaluate()
    gv, w2wr = items_to_judge()
    stored = [t.layer3_metrics for t in TrialLog.objects.filter(stage=3) if "error" not in t.layer3_metrics]
    assert all(m["evaluatorModel"] == "fake-model" for m in stored)
    assert sum(m["generatedValueRelevance"]["evaluatedItems"] for m in stored) == gv
    assert sum(m["w2wrSemanticCorrectness"]["evaluatedBindings"] for m in stored) == w2wr
    assert all(
        m["w2wrSemanticCorrectness"]["correctnessRate"] == 1.0
        for m in stored
        if m["w2wrSemanticCorrectness"]["evaluatedBindings"]
    )
    run = Layer3Run.objects.get()
    assert run.status == "succeeded" and run.judge_requests == distinct_questions() and run.cost_jpy > 0


def test_rate_limits_and_malformed_replies_are_recovered(judged_batch):
    judged_batch.script(
        Reply.rate_limited(retry_after=0.05),
        Reply.malformed("I think it is useful."),
        Reply.server_error(503),
    )
    evaluate()
    gv, _w2wr = items_to_judge()
    stored = [t.layer3_metrics for t in TrialLog.objects.filter(stage=3) if "error" not in t.layer3_metrics]
    assert sum(m["generatedValueRelevance"]["evaluatedItems"] for m in stored) == gv
    assert not any("judgeErrors" in m.get("generatedValueRelevance", {}) for m in stored)
    assert LLMCall.objects.filter(status="ok").count() == distinct_questions()


def test_replies_that_stay_malformed_are_recorded_per_item_and_a_forced_rerun_asks_only_them(judged_batch):
    concern = TrialLog.objects.get(external_id="A-00000").input_text

    def malformed_for_one_concern(request):
        text = "\n".join(m["content"] for m in request["messages"])
        if "連携接続" in text and concern in text:
            return Reply.malformed('{"score": 9}')
        return judge_reply(request)

    judged_batch.default_reply = malformed_for_one_concern
    evaluate("--no-gv")
    affected = [t for t in TrialLog.objects.filter(stage=3, input_text=concern) if "error" not in t.layer3_metrics]
    bindings = sum(len(t.generated_data["reactiveBindings"]["bindings"]) for t in affected)
    errors = [e for t in affected for e in t.layer3_metrics["w2wrSemanticCorrectness"].get("judgeErrors", [])]
    assert bindings and len(errors) == bindings and {e["status"] for e in errors} == {"parse_error"}
    assert all(t.layer3_metrics["w2wrSemanticCorrectness"]["evaluatedBindings"] == 0 for t in affected)
    assert Layer3Run.objects.get().status == "succeeded"  # one item's failure is not the run's

    judged_batch.default_reply = judge_reply
    asked_before = len(chat_requests(judged_batch))
    evaluate("--no-gv", "--force")
    failed_questions = LLMCall.objects.filter(status="parse_error").values("cache_key").distinct().count()
    assert len(chat_requests(judged_batch)) - asked_before == failed_questions
    for trial in TrialLog.objects.filter(pk__in=[t.pk for t in affected]):
        assert "judgeErrors" not in trial.layer3_metrics["w2wrSemanticCorrectness"]


def test_a_forced_rerun_is_served_from_the_cache_and_refresh_judge_asks_again(judged_batch):
    evaluate()
    first = len(chat_requests(judged_batch))
    before = {t.pk: t.layer3_metrics for t in TrialLog.objects.all()}
    evaluate("--force")
    assert len(chat_requests(judged_batch)) == first  # every verdict came from the cache, at no cost
    forced = Layer3Run.objects.order_by("-pk").first()
    gv, w2wr = items_to_judge()
    assert forced.judge_requests == 0 and forced.judge_cache_hits == gv + w2wr and forced.cost_jpy == 0
    after = {t.pk: t.layer3_metrics for t in TrialLog.objects.all()}
    for pk, metrics in before.items():
        if metrics and "generatedValueRelevance" in metrics:
            assert after[pk]["generatedValueRelevance"] == metrics["generatedValueRelevance"]
    evaluate("--force", "--refresh-judge")
    assert len(chat_requests(judged_batch)) == 2 * first


def test_the_budget_stops_the_run_and_a_later_run_continues_without_paying_twice(judged_batch, capsys):
    gv, _w2wr = items_to_judge()
    call_command("evaluate_layer3", "b", "--judge", "llm", "--yes", "--budget", "3JPY")
    run = Layer3Run.objects.get()
    assert run.status == "stopped_by_budget" and run.unjudged_count > 0 and run.cost_jpy <= 3
    # a trial the budget left unjudged gets its automatic metrics, never a part of a judged block
    without_gv = trials_without_gv()
    assert len(without_gv) == run.unjudged_count
    assert all(metrics and "graphComplexity" in metrics for metrics in without_gv)
    assert "run the same command again" in capsys.readouterr().out
    paid_first = len(chat_requests(judged_batch))
    call_command("evaluate_layer3", "b", "--judge", "llm", "--yes")
    assert trials_without_gv() == []
    # every distinct question was asked exactly once over both runs (the first run's answers came from the cache)
    calls = LLMCall.objects.all()
    assert len(chat_requests(judged_batch)) == calls.count() == len({c.cache_key for c in calls})
    assert paid_first < calls.count() <= gv


def test_without_a_terminal_a_judged_run_needs_yes(judged_batch, capsys):
    with pytest.raises(CommandError, match="pass --yes"):
        call_command("evaluate_layer3", "b", "--judge", "llm")
    out = capsys.readouterr().out
    assert "calls to make" in out and "¥" in out
    assert not chat_requests(judged_batch) and not Layer3Run.objects.exists()


def test_a_judge_flag_without_a_judge_is_refused(judged_batch):
    with pytest.raises(CommandError, match="need a judge"):
        call_command("evaluate_layer3", "b", "--w2wr-semantic")


@pytest.mark.parametrize(("answer", "started"), [("n", False), ("", False), ("y", True)])
def test_on_a_terminal_the_cost_is_confirmed_first(judged_batch, monkeypatch, answer, started):
    monkeypatch.setattr("sys.stdin.isatty", lambda: True)
    asked = []
    monkeypatch.setattr("builtins.input", lambda prompt: asked.append(prompt) or answer)
    if started:
        call_command("evaluate_layer3", "b", "--judge", "llm")
    else:
        with pytest.raises(CommandError, match="answered no"):
            call_command("evaluate_layer3", "b", "--judge", "llm")
    assert asked == ["Start the run? [y/N] "]
    assert Layer3Run.objects.exists() is started and bool(chat_requests(judged_batch)) is started


def test_a_rerun_with_everything_cached_asks_nothing(judged_batch, monkeypatch, capsys):
    evaluate()
    monkeypatch.setattr("sys.stdin.isatty", lambda: True)
    monkeypatch.setattr("builtins.input", lambda prompt: pytest.fail("asked although nothing costs"))
    call_command("evaluate_layer3", "b", "--judge", "llm", "--w2wr-semantic", "--force")
    assert "0 calls to make" in capsys.readouterr().out
