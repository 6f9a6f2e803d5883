"""Property tests: bounds that hold for every spec, and js_round against exact arithmetic."""

import json
import math
from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from layer3.metrics import (
    UISpecError,
    calculate_graph_complexity,
    calculate_widget_diversity,
    compute_trial_metrics,
    extract_generated_values,
    parse_ui_spec,
)
from layer3.metrics.jscompat import js_round
from tests.layer3.metrics.specs import binding, ui_spec, widget


@st.composite
def simple_graphs(draw):
    """Distinct widget ids and bindings between distinct listed widgets, no pair twice: a simple digraph."""
    node_count = draw(st.integers(min_value=0, max_value=12))
    pairs = [(i, j) for i in range(node_count) for j in range(node_count) if i != j]
    chosen = draw(st.lists(st.sampled_from(pairs), unique=True)) if pairs else []
    bindings = [binding(f"b{n}", f"w{i}.out", f"w{j}.in") for n, (i, j) in enumerate(chosen)]
    return ui_spec([widget(f"w{i}") for i in range(node_count)], bindings)


@given(simple_graphs())
def test_density_of_a_simple_graph_stays_between_zero_and_one(data):
    result = calculate_graph_complexity(parse_ui_spec(data))
    assert 0 <= result["density"] <= 1
    assert result["maxDegree"] <= 2 * max(result["nodeCount"] - 1, 0)


COMPONENTS = st.sampled_from(["brainstorm_cards", "emotion_palette", "priority_matrix", "timeline", "7", "10", "a.b"])


@given(st.lists(COMPONENTS, max_size=40))
def test_entropy_never_exceeds_log2_of_the_unique_widget_count(components):
    data = ui_spec([widget(f"w{i}", component) for i, component in enumerate(components)])
    result = calculate_widget_diversity(parse_ui_spec(data))
    unique = result["uniqueWidgetCount"]
    assert unique == len(set(components))
    assert sum(result["widgetCounts"].values()) == len(components)
    # Rounding to 4 decimals may lift a maximal entropy by up to half a unit of the last decimal.
    assert 0 <= result["entropy"] <= (math.log2(unique) if unique else 0) + 0.5e-4
    assert 0 <= result["normalizedEntropy"] <= 1


@given(st.floats(allow_nan=False, allow_infinity=False, min_value=-1e12, max_value=1e12), st.integers(0, 6))
def test_js_round_equals_floor_of_x_plus_one_half_in_exact_arithmetic(value, digits):
    scaled = value * 10.0**digits  # the double JavaScript multiplies out first
    assert js_round(value, digits) == math.floor(Fraction(scaled) + Fraction(1, 2)) / 10.0**digits


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=5), children, max_size=4),
    max_leaves=25,
)
SPEC_LIKE = st.fixed_dictionaries(
    {},
    optional={
        "widgets": st.lists(
            st.fixed_dictionaries({}, optional={"id": JSON_VALUES | st.just("w1"), "component": JSON_VALUES}),
            max_size=3,
        )
        | JSON_VALUES,
        "reactiveBindings": st.fixed_dictionaries(
            {},
            optional={
                "bindings": st.lists(
                    st.fixed_dictionaries(
                        {},
                        optional={
                            "id": JSON_VALUES,
                            "source": JSON_VALUES | st.just("w1.out"),
                            "target": JSON_VALUES | st.just("w2.in"),
                            "mechanism": JSON_VALUES,
                            "complexityCheck": JSON_VALUES,
                        },
                    ),
                    max_size=3,
                )
            },
        )
        | JSON_VALUES,
    },
)


@given(SPEC_LIKE | JSON_VALUES)
def test_any_json_either_computes_or_raises_a_ui_spec_error(data):
    try:
        result = compute_trial_metrics(data)
    except UISpecError as error:
        assert error.path.startswith("generatedData")
    else:
        assert json.loads(json.dumps(result, allow_nan=False)) == result


@given(JSON_VALUES)
def test_extraction_takes_any_json_config_and_returns_items_of_strings(config):
    found = extract_generated_values(parse_ui_spec(ui_spec([widget("w1", config=config)])))
    for item in found:
        assert list(item) == ["widgetId", "itemId", "text", "path"]
        assert all(isinstance(value, str) for value in item.values())
