"""Parsing generatedData into a UISpec: what is accepted, and errors that name the JSON path."""

import pytest

from layer3.metrics import UISpecError, parse_ui_spec
from tests.layer3.metrics.specs import binding, plan_spec, ui_spec, widget


def test_a_ui_spec_keeps_the_decoded_widgets_and_bindings_without_copying():
    data = ui_spec([widget("w1"), widget("w2")], [binding("b1", "w1.output", "w2.input")])
    spec = parse_ui_spec(data)
    assert spec.widgets is data["widgets"]
    assert spec.bindings is data["reactiveBindings"]["bindings"]
    assert spec.sections is None


def test_binding_ends_are_split_at_the_first_dot_like_split_dot_zero():
    data = ui_spec([widget("w1")], [binding("b1", "w1.out.items", "w2.in")])
    spec = parse_ui_spec(data)
    assert spec.source_widgets == ["w1"]
    assert spec.target_widgets == ["w2"]


def test_a_plan_ui_spec_lists_its_widgets_diverge_then_organize_then_converge():
    data = plan_spec(converge=[widget("c1")], diverge=[widget("d1"), widget("d2")], organize=[widget("o1")])
    spec = parse_ui_spec(data)
    assert [w["id"] for w in spec.widgets] == ["d1", "d2", "o1", "c1"]
    assert {name: [w["id"] for w in widgets] for name, widgets in spec.sections.items()} == {
        "diverge": ["d1", "d2"],
        "organize": ["o1"],
        "converge": ["c1"],
    }


def test_sections_make_a_plan_ui_spec_even_beside_a_widgets_key():
    data = plan_spec(diverge=[widget("d1")])
    data["widgets"] = [widget("x1"), widget("x2")]
    assert [w["id"] for w in parse_ui_spec(data).widgets] == ["d1"]


def test_optional_fields_may_be_absent_or_null():
    data = ui_spec(
        [{"id": "w1", "component": "timeline"}, {"id": "w2", "component": "timeline", "config": None}],
        [{"id": "b1", "source": "w1.a", "target": "w2.b"}, binding("b2", "w2.a", "w1.b", None, complexityCheck=None)],
    )
    spec = parse_ui_spec(data)
    assert len(spec.widgets) == 2
    assert len(spec.bindings) == 2


def test_empty_widget_and_binding_lists_are_a_valid_spec():
    spec = parse_ui_spec(ui_spec([], []))
    assert spec.widgets == []
    assert spec.bindings == []


def _with_bindings(*bindings):
    return ui_spec([widget("w1"), widget("w2")], bindings)


GOOD = binding("b0", "w1.output", "w2.input")


@pytest.mark.parametrize(
    ("data", "path", "problem"),
    [
        ([], "generatedData", "found an array of 0"),
        ("{}", "generatedData", 'found string "{}"'),
        (None, "generatedData", "found null"),
        ({"reactiveBindings": {"bindings": []}}, "generatedData", 'neither "widgets" nor "sections"'),
        ({"widgets": {}, "reactiveBindings": {"bindings": []}}, "generatedData.widgets", "found an object"),
        (ui_spec([widget("w1"), "w2"]), "generatedData.widgets[1]", 'found string "w2"'),
        (ui_spec([{"component": "timeline"}]), "generatedData.widgets[0].id", "missing"),
        (ui_spec([widget("")]), "generatedData.widgets[0].id", 'found string ""'),
        (ui_spec([widget(7)]), "generatedData.widgets[0].id", "found number 7"),
        (ui_spec([widget("w1"), widget("w2", component=3)]), "generatedData.widgets[1].component", "found number 3"),
        (ui_spec([{"id": "w1"}]), "generatedData.widgets[0].component", "missing"),
        ({"sections": [], "reactiveBindings": {"bindings": []}}, "generatedData.sections", "found an array of 0"),
        (
            {
                "sections": {"diverge": {"widgets": []}, "converge": {"widgets": []}},
                "reactiveBindings": {"bindings": []},
            },
            "generatedData.sections.organize",
            "missing",
        ),
        (
            {
                "sections": {"diverge": {"widgets": []}, "organize": {"widgets": []}, "converge": {}},
                "reactiveBindings": {"bindings": []},
            },
            "generatedData.sections.converge.widgets",
            "missing",
        ),
        (
            plan_spec(diverge=[widget("d1")], organize=[widget("o1", component=None)]),
            "generatedData.sections.organize.widgets[0].component",
            "found null",
        ),
        ({"widgets": []}, "generatedData.reactiveBindings", "missing"),
        ({"widgets": [], "reactiveBindings": []}, "generatedData.reactiveBindings", "found an array of 0"),
        ({"widgets": [], "reactiveBindings": {}}, "generatedData.reactiveBindings.bindings", "missing"),
        (
            {"widgets": [], "reactiveBindings": {"bindings": {}}},
            "generatedData.reactiveBindings.bindings",
            "found an object",
        ),
        (_with_bindings(GOOD, ["b1"]), "generatedData.reactiveBindings.bindings[1]", "found an array of 1"),
        (
            _with_bindings(GOOD, GOOD, GOOD, binding("b3", "w1", "w2.input")),
            "generatedData.reactiveBindings.bindings[3].source",
            'found string "w1"',
        ),
        (_with_bindings(binding("b0", ".output", "w2.in")), "generatedData.reactiveBindings.bindings[0].source", ""),
        (_with_bindings(binding("b0", "w1.", "w2.in")), "generatedData.reactiveBindings.bindings[0].source", ""),
        (_with_bindings(binding("b0", 12, "w2.in")), "generatedData.reactiveBindings.bindings[0].source", "number 12"),
        (
            _with_bindings({"id": "b0", "source": "w1.out"}),
            "generatedData.reactiveBindings.bindings[0].target",
            "missing",
        ),
        (_with_bindings(binding("b0", "w1.out", "w2")), "generatedData.reactiveBindings.bindings[0].target", ""),
        (_with_bindings(binding(5, "w1.out", "w2.in")), "generatedData.reactiveBindings.bindings[0].id", "number 5"),
        (
            _with_bindings({"source": "w1.out", "target": "w2.in"}),
            "generatedData.reactiveBindings.bindings[0].id",
            "missing",
        ),
        (
            _with_bindings(binding("b0", "w1.out", "w2.in", mechanism=["update"])),
            "generatedData.reactiveBindings.bindings[0].mechanism",
            "found an array of 1",
        ),
        (
            _with_bindings(binding("b0", "w1.out", "w2.in", complexityCheck="true")),
            "generatedData.reactiveBindings.bindings[0].complexityCheck",
            'found string "true"',
        ),
        (
            _with_bindings(binding("b0", "w1.out", "w2.in", complexityCheck=1)),
            "generatedData.reactiveBindings.bindings[0].complexityCheck",
            "found number 1",
        ),
    ],
)
def test_data_that_is_no_ui_spec_is_refused_with_its_json_path(data, path, problem):
    with pytest.raises(UISpecError) as caught:
        parse_ui_spec(data)
    assert caught.value.path == path
    assert problem in caught.value.problem
    assert str(caught.value).startswith(f"{path}: ")


def test_the_error_says_what_would_be_accepted():
    with pytest.raises(UISpecError) as caught:
        parse_ui_spec(_with_bindings(GOOD, binding("b1", "w1output", "w2.input")))
    error = caught.value
    assert error.path == "generatedData.reactiveBindings.bindings[1].source"
    assert '"widgetId.port"' in error.accepted
    assert f"accepted: {error.accepted}" in str(error)


def test_a_missing_reactive_bindings_suggests_an_empty_list():
    with pytest.raises(UISpecError, match=r'write \{"bindings": \[\]\}'):
        parse_ui_spec({"widgets": []})


def test_the_error_is_a_value_error():
    with pytest.raises(ValueError):
        parse_ui_spec(42)
