"""§4.2 W2WR binding types: sync before meta before flow, unknown for the rest, and the || 1 ratio guard."""

from layer3.metrics import classify_binding_types, parse_ui_spec
from tests.layer3.metrics.specs import binding, ui_spec, widget

WIDGETS = [widget("a"), widget("b"), widget("c")]


def classify(*bindings):
    return classify_binding_types(parse_ui_spec(ui_spec(WIDGETS, bindings)))


def types(result):
    return [(c["bindingId"], c["type"], c["reason"]) for c in result["bindingClassifications"]]


def test_each_mechanism_gets_its_type_and_reason():
    result = classify(
        binding("b1", "a.out", "b.in", "update"),
        binding("b2", "b.out", "c.in", "validate"),
        binding("b3", "a.out", "c.in", "update", complexityCheck=True),
        binding("b4", "c.out", "x.in", "compute"),
        binding("b5", "x.out", "y.in", None),
    )
    assert types(result) == [
        ("b1", "flow", "Unidirectional update"),
        ("b2", "meta", "Validate mechanism"),
        ("b3", "meta", "Complexity check enabled"),
        ("b4", "unknown", "Unknown binding pattern"),
        ("b5", "unknown", "Unknown binding pattern"),
    ]
    assert result["totalBindings"] == 5
    assert result["distribution"] == {"flow": 1, "meta": 2, "sync": 0, "unknown": 2}
    assert result["ratios"] == {"flow": 1 / 5, "meta": 2 / 5, "sync": 0.0}


def test_validate_wins_over_complexity_check_for_the_reason():
    result = classify(binding("b1", "a.out", "b.in", "validate", complexityCheck=True))
    assert types(result) == [("b1", "meta", "Validate mechanism")]


def test_complexity_check_false_leaves_an_update_a_flow():
    assert types(classify(binding("b1", "a.out", "b.in", "update", complexityCheck=False))) == [
        ("b1", "flow", "Unidirectional update")
    ]


def test_a_bidirectional_pair_is_sync_on_both_sides_whatever_the_ports_and_mechanisms():
    result = classify(
        binding("b1", "a.items", "b.input", "update"),
        binding("b2", "b.summary", "a.feedback", "validate", complexityCheck=True),
        binding("b3", "a.out", "c.in", "update"),
    )
    assert types(result) == [
        ("b1", "sync", "Bidirectional dependency detected"),
        ("b2", "sync", "Bidirectional dependency detected"),
        ("b3", "flow", "Unidirectional update"),
    ]
    assert result["distribution"] == {"flow": 1, "meta": 0, "sync": 2, "unknown": 0}


def test_a_binding_from_a_widget_to_itself_is_its_own_reverse_and_so_sync():
    assert types(classify(binding("b1", "a.out", "a.in", "update"))) == [
        ("b1", "sync", "Bidirectional dependency detected")
    ]


def test_ratios_of_no_bindings_are_zero_through_the_or_one_guard():
    result = classify()
    assert result == {
        "totalBindings": 0,
        "distribution": {"flow": 0, "meta": 0, "sync": 0, "unknown": 0},
        "ratios": {"flow": 0.0, "meta": 0.0, "sync": 0.0},
        "bindingClassifications": [],
    }


def test_ratios_are_not_rounded_and_unknown_has_no_ratio():
    result = classify(
        binding("b1", "a.out", "b.in"), binding("b2", "b.out", "c.in", "other"), binding("b3", "a.o", "c.i", "x")
    )
    assert result["ratios"] == {"flow": 1 / 3, "meta": 0.0, "sync": 0.0}


def test_bindings_to_unknown_widgets_are_classified_like_any_other():
    result = classify(binding("b1", "ghost.out", "a.in"), binding("b2", "a.out", "ghost.in", "validate"))
    assert [c["type"] for c in result["bindingClassifications"]] == ["sync", "sync"]


def test_a_classification_repeats_the_binding_as_written():
    result = classify(binding("b-1", "a.out.value", "b.in", "update"))
    assert result["bindingClassifications"] == [
        {
            "bindingId": "b-1",
            "source": "a.out.value",
            "target": "b.in",
            "type": "flow",
            "reason": "Unidirectional update",
        }
    ]
