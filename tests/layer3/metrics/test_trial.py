"""compute_trial_metrics: the non-LLM Layer3MetricsV1 of one trial, key for key."""

import json
from datetime import UTC, datetime

import pytest

from layer3.metrics import UISpecError, compute_trial_metrics
from tests.layer3.metrics.specs import binding, generated, plan_spec, widget

MOMENT = datetime(2025, 3, 4, 5, 6, 7, 891000, tzinfo=UTC)

PLAN = plan_spec(
    diverge=[
        widget("cards", "brainstorm_cards", {"items": [generated("s1", "上司に相談する")]}),
        widget("feel", "emotion_palette"),
    ],
    organize=[widget("matrix", "priority_matrix")],
    converge=[widget("summary", "structured_summary")],
    bindings=[
        binding("b1", "cards.items", "matrix.input", "update"),
        binding("b2", "feel.selected", "matrix.weights", "validate"),
        binding("b3", "matrix.ranked", "summary.input", "update", complexityCheck=True),
        binding("b4", "summary.feedback", "matrix.hint", "update"),
        binding("b5", "cards.count", "ghost.in", "notify"),
    ],
)


def classified(binding_id, source, target, kind, reason):
    return {"bindingId": binding_id, "source": source, "target": target, "type": kind, "reason": reason}


def test_a_plan_ui_spec_gives_the_whole_non_llm_result_by_hand():
    assert compute_trial_metrics(PLAN, evaluated_at=MOMENT) == {
        "version": "1.0",
        "evaluatedAt": "2025-03-04T05:06:07.891Z",
        "graphComplexity": {
            "nodeCount": 4,
            "edgeCount": 5,
            "density": 0.4167,  # 5 / 12
            "avgDegree": 2.5,  # 10 / 4
            "maxDegree": 4,  # matrix: b1, b2, b3, b4
            "sectionNodeCounts": {"diverge": 2, "organize": 1, "converge": 1},
            "crossSectionEdges": 5,  # all of them, b5 to a widget in no section
        },
        "widgetDiversity": {
            "selectedWidgets": ["brainstorm_cards", "emotion_palette", "priority_matrix", "structured_summary"],
            "widgetCounts": {
                "brainstorm_cards": 1,
                "emotion_palette": 1,
                "priority_matrix": 1,
                "structured_summary": 1,
            },
            "uniqueWidgetCount": 4,
            "entropy": 2.0,
            "normalizedEntropy": 0.5119,  # 2 / log2(15) = 0.511916...
            "maxEntropy": 3.9069,
            "availableWidgetCount": 15,
            "outOfCatalogue": [],
        },
        "w2wrTypeDistribution": {
            "totalBindings": 5,
            "distribution": {"flow": 1, "meta": 1, "sync": 2, "unknown": 1},
            "ratios": {"flow": 0.2, "meta": 0.2, "sync": 0.4},
            "bindingClassifications": [
                classified("b1", "cards.items", "matrix.input", "flow", "Unidirectional update"),
                classified("b2", "feel.selected", "matrix.weights", "meta", "Validate mechanism"),
                classified("b3", "matrix.ranked", "summary.input", "sync", "Bidirectional dependency detected"),
                classified("b4", "summary.feedback", "matrix.hint", "sync", "Bidirectional dependency detected"),
                classified("b5", "cards.count", "ghost.in", "unknown", "Unknown binding pattern"),
            ],
        },
    }


def test_keys_come_in_the_typescripts_order_and_the_judge_fields_are_absent():
    result = compute_trial_metrics(PLAN, evaluated_at=MOMENT)
    assert list(result) == ["version", "evaluatedAt", "graphComplexity", "widgetDiversity", "w2wrTypeDistribution"]
    assert not {"evaluatorModel", "generatedValueRelevance", "w2wrSemanticCorrectness"} & set(result)


def test_the_evaluate_switches_leave_their_metric_out():
    result = compute_trial_metrics(
        PLAN, evaluated_at=MOMENT, evaluate_complexity=False, evaluate_diversity=False, evaluate_w2wr_type=False
    )
    assert result == {"version": "1.0", "evaluatedAt": "2025-03-04T05:06:07.891Z"}


def test_the_available_widget_count_reaches_the_diversity():
    result = compute_trial_metrics(PLAN, evaluated_at=MOMENT, available_widget_count=4)
    assert result["widgetDiversity"]["normalizedEntropy"] == 1.0


def test_without_a_moment_evaluated_at_is_now_in_utc():
    before = datetime.now(UTC).replace(microsecond=0)
    stamp = compute_trial_metrics(PLAN)["evaluatedAt"]
    moment = datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)
    assert stamp.endswith("Z")
    assert before <= moment <= datetime.now(UTC)


def test_the_result_is_plain_json():
    result = compute_trial_metrics(PLAN, evaluated_at=MOMENT)
    assert json.loads(json.dumps(result, allow_nan=False)) == result


def test_generated_data_that_is_no_ui_spec_raises_with_its_path():
    with pytest.raises(UISpecError) as caught:
        compute_trial_metrics({"widgets": [widget("a")], "reactiveBindings": {"bindings": [{"id": "b"}]}})
    assert caught.value.path == "generatedData.reactiveBindings.bindings[0].source"
