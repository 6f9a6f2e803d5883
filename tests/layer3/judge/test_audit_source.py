"""The judged units Layer3 offers to judge audits: keys, judge, baseline, context, and the errors users see."""

import pytest
from django.core.management import call_command

from core import judge_audits
from core.judge_audits import AuditSourceError
from layer3.judge.audit_source import judged_units
from layer3.judge.services import GV_PROMPT, W2WR_PROMPT
from layer3.metrics import parse_ui_spec
from layer3.models import Batch, TrialLog
from llm import baseline
from tests.layer3.conftest import judge_reply

pytestmark = pytest.mark.django_db


@pytest.fixture
def imported(trials_file, settings, tmp_path):
    settings.VAR_DIR = tmp_path
    call_command("import_trials", str(trials_file), "--batch", "b")
    return Batch.objects.get(name="b")


@pytest.fixture
def baseline_judged(imported):
    call_command("evaluate_layer3", "b", "--judge", "baseline", "--w2wr-semantic")
    return imported


@pytest.fixture
def llm_judged(fake_llm, imported):
    fake_llm.default_reply = judge_reply
    call_command("evaluate_layer3", "b", "--judge", "llm", "--w2wr-semantic", "--yes")
    return imported


def judged_trials():
    return [t for t in TrialLog.objects.order_by("external_id") if t.layer3_metrics and "error" not in t.layer3_metrics]


def widget_of(trial, widget_id):
    """The widget object itself (a PlanUISpec holds its widgets in sections)."""
    return next(w for w in parse_ui_spec(trial.generated_data).widgets if w["id"] == widget_id)


def test_gv_units_are_the_stored_item_evaluations_with_their_concern_and_widget(baseline_judged):
    population = judged_units("b", "gv")
    units = {unit.key: unit for unit in population.units}
    expected = 0
    for trial in judged_trials():
        for evaluation in trial.layer3_metrics["generatedValueRelevance"]["itemEvaluations"]:
            expected += 1
            unit = units[f"{trial.external_id}:{evaluation['itemId']}"]
            assert (unit.trial_id, unit.model_config) == (trial.external_id, trial.model_config)
            assert (unit.score, unit.label, unit.reasoning) == (
                evaluation["score"], evaluation["label"], evaluation["reasoning"]
            )  # fmt: skip
            assert (unit.judge_model, unit.judge_prompt) == (baseline.BASELINE_MODEL, GV_PROMPT)
            assert unit.baseline_score == evaluation["score"]  # the judge is the baseline: its own score
            widget = widget_of(trial, evaluation["widgetId"])
            assert unit.context == {
                "concern": trial.input_text,
                "trialId": trial.external_id,
                "itemId": evaluation["itemId"],
                "widgetId": evaluation["widgetId"],
                "widgetType": widget["component"],
                "portId": evaluation["portId"],
                "text": evaluation["text"],
                "widget": widget,
            }
            assert "score" not in unit.context and "reasoning" not in unit.context  # raters never see the judge
    assert expected == len(units) == len(population.units) > 20
    assert (population.batch, population.kind) == ("b", "gv")


def test_w2wr_units_carry_both_widgets_their_ports_and_the_binding_description(baseline_judged):
    units = {unit.key: unit for unit in judged_units("b", "w2wr").units}
    expected = 0
    for trial in judged_trials():
        bindings = {b["id"]: b for b in trial.generated_data["reactiveBindings"]["bindings"]}
        for evaluation in trial.layer3_metrics["w2wrSemanticCorrectness"]["bindingEvaluations"]:
            expected += 1
            unit = units[f"{trial.external_id}:{evaluation['bindingId']}"]
            assert unit.judge_prompt == W2WR_PROMPT and unit.score == evaluation["score"]
            source = widget_of(trial, evaluation["sourceWidget"])
            target = widget_of(trial, evaluation["targetWidget"])
            assert unit.context == {
                "concern": trial.input_text,
                "trialId": trial.external_id,
                "bindingId": evaluation["bindingId"],
                "description": bindings[evaluation["bindingId"]].get("description", ""),
                "source": {
                    "widget": source["id"], "type": source["component"], "port": evaluation["sourcePort"],
                    "config": source,
                },
                "target": {
                    "widget": target["id"], "type": target["component"], "port": evaluation["targetPort"],
                    "config": target,
                },
            }  # fmt: skip
    assert expected == len(units) > 10


def test_the_judge_rate_is_the_share_of_units_scored_two(baseline_judged):
    for kind, prompt in (("gv", GV_PROMPT), ("w2wr", W2WR_PROMPT)):
        population = judged_units("b", kind)
        top = sum(unit.score == 2 for unit in population.units) / len(population.units)
        assert population.judge_rates == {f"{baseline.BASELINE_MODEL}@{prompt}": pytest.approx(top)}


def test_an_llm_judged_batch_gets_the_baseline_score_of_the_same_question(llm_judged):
    gv = judged_units("b", "gv")
    assert {unit.judge_model for unit in gv.units} == {"fake-model"}
    assert set(gv.judge_rates) == {f"fake-model@{GV_PROMPT}"}
    for unit in gv.units:
        context = unit.context
        expected = baseline.gv_relevance(context["concern"], context["text"], context["widgetType"])["score"]
        assert unit.baseline_score is None  # asked for the sampled units only
        assert gv.baseline_of(unit) == expected
    assert {unit.score for unit in gv.units} == {1, 2}  # the fake judge's answers
    w2wr = judged_units("b", "w2wr")
    for unit in w2wr.units:
        source, target = unit.context["source"], unit.context["target"]
        expected = baseline.w2wr_semantic(
            unit.context["concern"], source["widget"], source["type"], source["port"],
            target["widget"], target["type"], target["port"], unit.context["description"],
        )["score"]  # fmt: skip
        assert w2wr.baseline_of(unit) == expected and unit.score == 2


def test_the_source_is_registered_for_the_annotation_app(baseline_judged):
    assert judge_audits.judged_units("b", "gv") == judged_units("b", "gv")


def test_an_unknown_batch_is_named_with_the_batches_there_are(baseline_judged):
    with pytest.raises(AuditSourceError, match=r"no Layer3 batch named 'nope'; Layer3 batches: b"):
        judged_units("nope", "gv")


def test_a_batch_without_judged_gv_items_says_which_metric_is_missing_and_how_to_get_it(imported):
    call_command("evaluate_layer3", "b")  # no judge
    with pytest.raises(AuditSourceError) as caught:
        judged_units("b", "gv")
    message = str(caught.value)
    assert "'b' has no judged GV items" in message and "generatedValueRelevance.itemEvaluations" in message
    assert "evaluate_layer3 b --judge llm" in message


def test_a_batch_judged_without_w2wr_semantic_says_so(imported):
    call_command("evaluate_layer3", "b", "--judge", "baseline")  # GV only
    assert judged_units("b", "gv").units
    with pytest.raises(AuditSourceError) as caught:
        judged_units("b", "w2wr")
    message = str(caught.value)
    assert "no judged W2WR bindings" in message and "w2wrSemanticCorrectness.bindingEvaluations" in message
    assert "--w2wr-semantic" in message


def test_an_unknown_kind_is_refused(baseline_judged):
    with pytest.raises(AuditSourceError, match="kind 'graph': accepted gv, w2wr"):
        judged_units("b", "graph")


# Odd generated data ---------------------------------------------------------------------------------------


def item(item_id, text):
    return {"id": item_id, "text": text, "isGenerated": True}


def evaluation(item_id, widget_id, text, score, **extra):
    return {
        "widgetId": widget_id, "portId": "items", "itemId": item_id, "text": text, "score": score,
        "label": ["not_relevant", "generic", "useful"][score] if isinstance(score, int) else "?", "reasoning": "r",
        **extra,
    }  # fmt: skip


@pytest.fixture
def odd_batch(db):
    """Repeated widget, item and binding ids; a trial whose data no longer parses; a malformed score."""
    batch = Batch.objects.create(name="odd")
    data = {
        "widgets": [
            {"id": "w1", "component": "list_a", "config": {"items": [item("i1", "転職の条件")]}},
            {"id": "w1", "component": "list_b", "config": {"items": [item("i1", "今の会社の良さ")]}},
            {"id": "w2", "component": "memo", "config": {}},
        ],
        "reactiveBindings": {
            "bindings": [
                {"id": "b1", "source": "w1.out", "target": "w2.in", "description": "first"},
                {"id": "b1", "source": "w2.in", "target": "w9.x", "description": "second"},
            ]
        },
    }
    metrics = {
        "evaluatorModel": "judge-x",
        "generatedValueRelevance": {
            "itemEvaluations": [
                evaluation("i1", "w1", "転職の条件", 2),
                evaluation("i1", "w1", "今の会社の良さ", 0),
                evaluation("i9", "w1", "bad score", True),  # not a 0–2 score: skipped
            ]
        },
        "w2wrSemanticCorrectness": {
            "bindingEvaluations": [
                {"bindingId": "b1", "sourceWidget": "w1", "sourcePort": "out", "targetWidget": "w2",
                 "targetPort": "in", "score": 2, "label": "correct", "reasoning": "ok"},
                {"bindingId": "b1", "sourceWidget": "w2", "sourcePort": "in", "targetWidget": "w9",
                 "targetPort": "x", "score": 0, "label": "wrong", "reasoning": "no"},
            ]
        },
    }  # fmt: skip
    TrialLog.objects.create(
        batch=batch, external_id="t1", model_config="A", stage=3, input_text="転職の悩み",
        generated_data=data, layer3_metrics=metrics,
    )  # fmt: skip
    TrialLog.objects.create(
        batch=batch, external_id="t2", model_config="B", stage=3, input_text="悩み", generated_data="not a spec",
        layer3_metrics={"generatedValueRelevance": {"itemEvaluations": [evaluation("i1", "w1", "x", 1)]}},
    )  # fmt: skip
    return batch


def test_repeated_ids_get_their_own_keys_widgets_and_descriptions(odd_batch):
    gv = {unit.key: unit for unit in judged_units("odd", "gv").units}
    assert sorted(gv) == ["t1:i1", "t1:i1#2", "t2:i1"]
    assert gv["t1:i1"].context["widget"]["component"] == "list_a"
    assert gv["t1:i1#2"].context["widget"]["component"] == "list_b"
    assert gv["t1:i1#2"].context["widgetType"] == "list_b" and gv["t1:i1#2"].score == 0
    assert gv["t1:i1"].judge_model == "judge-x"
    w2wr = {unit.key: unit for unit in judged_units("odd", "w2wr").units}
    assert sorted(w2wr) == ["t1:b1", "t1:b1#2"]
    assert [w2wr[k].context["description"] for k in ("t1:b1", "t1:b1#2")] == ["first", "second"]
    missing = w2wr["t1:b1#2"].context["target"]
    assert missing == {"widget": "w9", "type": "unknown", "port": "x", "config": None}  # the spec lacks w9


def test_data_that_no_longer_parses_keeps_what_the_evaluation_recorded(odd_batch):
    unit = next(u for u in judged_units("odd", "gv").units if u.trial_id == "t2")
    assert unit.context["widget"] is None and unit.context["widgetType"] == ""
    assert unit.context["text"] == "x" and unit.judge_model == "unknown" and unit.baseline_score is None
    assert judged_units("odd", "gv").baseline_of(unit) in (0, 1, 2)  # the baseline still answers


def test_an_over_long_key_is_shortened_and_stays_unique(odd_batch):
    trial = TrialLog.objects.get(external_id="t1")
    long_id = "i" * 400
    gv = trial.layer3_metrics["generatedValueRelevance"]
    gv["itemEvaluations"] = [evaluation(long_id, "w1", "a", 1), evaluation(long_id, "w1", "b", 2)]
    trial.save()
    keys = [u.key for u in judged_units("odd", "gv").units if u.trial_id == "t1"]
    assert len(keys) == len(set(keys)) == 2 and all(len(key) <= 300 for key in keys)


@pytest.mark.django_db
def test_the_batch_page_of_a_name_is_the_panel_page_and_none_for_an_unknown_name():
    batch = Batch.objects.create(name="named")
    assert judge_audits.batch_page_url("named") == f"/research/layer3/{batch.pk}/"
    assert judge_audits.batch_page_url("nope") is None


def test_the_evaluated_batches_are_offered_to_audit(baseline_judged):
    Batch.objects.create(name="never evaluated")
    assert judge_audits.evaluated_batch_names() == ["b"]
