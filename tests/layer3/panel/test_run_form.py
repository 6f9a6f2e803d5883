"""The run modal's form parsed into EvaluationOptions (pure)."""

import pytest

from layer3.panel.run_form import RunFormError, parse_run_form

CONFIGS = ["A", "B", "C"]


def parse(data, llm_models=()):
    return parse_run_form(data, model_configs=CONFIGS, llm_models=list(llm_models))


def automatic(**extra):
    return {"evaluateComplexity": ["1"], "evaluateDiversity": ["1"], "evaluateW2WRType": ["1"],
            "modelConfigs": CONFIGS, **extra}  # fmt: skip


def test_automatic_metrics_only_use_no_judge_and_every_config():
    options = parse(automatic())
    assert (options.judge, options.evaluate_gv, options.evaluate_w2wr_semantic) == ("none", False, False)
    assert options.model_configs == () and not options.force


def test_a_judged_metric_defaults_to_the_baseline_judge():
    options = parse(automatic(evaluateGV=["1"]))
    assert options.judge == "baseline" and options.judges_gv and not options.judges_w2wr


def test_an_llm_judge_with_a_budget_and_a_subset_of_configs():
    options = parse(
        automatic(
            evaluateW2WRSemantic=["1"],
            judge=["llm:gpt-4o"],
            budget=["500"],
            modelConfigs=["C", "A"],
            forceReEvaluate=["1"],
        ),
        llm_models=["gpt-4o"],
    )
    assert (options.judge, options.llm_model, options.budget, options.budget_currency) == (
        "llm",
        "gpt-4o",
        500.0,
        "JPY",
    )
    assert options.model_configs == ("A", "C") and options.force


@pytest.mark.parametrize(
    ("data", "field", "code"),
    [
        ({"modelConfigs": CONFIGS}, "metrics", "no_metric"),
        (automatic(modelConfigs=[]), "modelConfigs", "no_config"),
        (automatic(modelConfigs=["A", "Z<script>"]), "modelConfigs", "unknown_config"),
        (automatic(evaluateGV=["1"], judge=["llm:not-configured"]), "judge", "unknown_judge"),
        (automatic(evaluateGV=["1"], judge=["llm:gpt-4o"], budget=["lots"]), "budget", "bad_budget"),
        (automatic(evaluateGV=["1"], judge=["llm:gpt-4o"], budget=["-1"]), "budget", "bad_budget"),
        (automatic(evaluateGV=["1"], judge=["llm:gpt-4o"], budget=["nan"]), "budget", "bad_budget"),
    ],
)
def test_each_problem_is_named_by_its_field(data, field, code):
    with pytest.raises(RunFormError) as caught:
        parse(data, llm_models=["gpt-4o"])
    assert caught.value.problems[field][0] == code


def test_every_problem_is_reported_at_once():
    with pytest.raises(RunFormError) as caught:
        parse({"modelConfigs": []})
    assert set(caught.value.problems) == {"metrics", "modelConfigs"}


def test_a_judge_is_ignored_without_a_judged_metric():
    assert parse(automatic(judge=["llm:whatever"], budget=["x"])).judge == "none"
