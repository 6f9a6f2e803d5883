"""§4.4 widget diversity, hand-computed: Shannon entropy, normalisation by 15 types, JavaScript key order."""

import pytest

from layer3.metrics import calculate_widget_diversity, parse_ui_spec
from tests.layer3.metrics.specs import plan_spec, ui_spec, widget


def diversity(components, **kwargs):
    widgets = [widget(f"w{i}", component) for i, component in enumerate(components)]
    return calculate_widget_diversity(parse_ui_spec(ui_spec(widgets)), **kwargs)


def test_two_of_one_type_and_one_each_of_two_more_by_hand():
    # p = 1/2, 1/4, 1/4: H = 0.5 + 0.5 + 0.5 = 1.5 bits; log2(15) = 3.906890...; 1.5 / 3.906890 = 0.383935...
    assert diversity(["brainstorm_cards", "priority_matrix", "brainstorm_cards", "timeline"]) == {
        "selectedWidgets": ["brainstorm_cards", "priority_matrix", "timeline"],
        "widgetCounts": {"brainstorm_cards": 2, "priority_matrix": 1, "timeline": 1},
        "uniqueWidgetCount": 3,
        "entropy": 1.5,
        "normalizedEntropy": 0.3839,
        "maxEntropy": 3.9069,
        "availableWidgetCount": 15,
        "outOfCatalogue": [],
    }


def test_no_widgets_give_zero_entropy_and_empty_counts():
    assert diversity([]) == {
        "selectedWidgets": [],
        "widgetCounts": {},
        "uniqueWidgetCount": 0,
        "entropy": 0,
        "normalizedEntropy": 0,
        "maxEntropy": 3.9069,
        "availableWidgetCount": 15,
        "outOfCatalogue": [],
    }


def test_a_single_type_has_zero_entropy():
    result = diversity(["timeline"] * 4)
    assert (result["entropy"], result["normalizedEntropy"], result["uniqueWidgetCount"]) == (0, 0, 1)


def test_all_available_types_once_each_reach_normalized_entropy_one():
    result = diversity(["a", "b", "c", "d"], available_widget_count=4)
    assert (result["entropy"], result["normalizedEntropy"], result["maxEntropy"]) == (2.0, 1.0, 2.0)


def test_three_equal_types_round_log2_of_three_to_four_decimals():
    result = diversity(["a", "b", "c"])
    assert result["entropy"] == 1.585  # log2(3) = 1.5849625...
    assert result["normalizedEntropy"] == 0.4057  # 1.5849625 / 3.9068906 = 0.4056839...


def test_more_types_than_a_count_allows_raise_the_count_so_the_normalized_entropy_stays_at_most_one():
    result = diversity(["a", "b", "c", "d"], available_widget_count=2)
    assert (result["normalizedEntropy"], result["maxEntropy"]) == (1.0, 2.0)


def test_one_available_type_used_alone_has_zero_max_entropy_and_zero_normalized_entropy():
    result = diversity(["a", "a"], available_widget_count=1)
    assert (result["entropy"], result["normalizedEntropy"], result["maxEntropy"]) == (0, 0, 0)


def test_a_catalogue_sets_the_available_types_and_lists_the_types_outside_it():
    result = diversity(["a", "x", "b", "y", "x"], catalogue=("a", "b", "c"))
    assert result["outOfCatalogue"] == ["x", "y"]
    # Alone (no batch types given) |W| = 3 catalogue types + 2 used outside it = 5:
    # H = 1.9219 (p = .2, .4, .2, .2), log2(5) = 2.3219
    assert result["availableWidgetCount"] == 5
    assert (result["entropy"], result["maxEntropy"], result["normalizedEntropy"]) == (1.9219, 2.3219, 0.8277)


def test_within_the_catalogue_the_figures_equal_those_of_its_size():
    components = ["brainstorm_cards", "mind_map", "mind_map", "free_writing"]
    from layer3.metrics.catalogue import DEFAULT_WIDGET_TYPES

    by_catalogue = diversity(components, catalogue=DEFAULT_WIDGET_TYPES)
    assert by_catalogue == diversity(components, available_widget_count=15)
    assert by_catalogue["outOfCatalogue"] == []


def test_the_normalized_entropy_never_exceeds_one_whatever_the_types_used():
    for used in range(1, 30):
        result = diversity([f"t{i}" for i in range(used)], catalogue=("t0", "t1", "t2"))
        assert result["normalizedEntropy"] <= 1.0


@pytest.mark.parametrize(("count", "error"), [(0, ValueError), (-3, ValueError), (True, TypeError), (15.0, TypeError)])
def test_an_available_widget_count_that_is_no_positive_integer_is_refused(count, error):
    with pytest.raises(error, match="availableWidgetCount"):
        diversity(["a"], available_widget_count=count)


def test_component_names_that_are_array_indices_come_first_like_object_keys():
    result = diversity(["b", "10", "a", "2", "b", "01"])
    assert result["selectedWidgets"] == ["2", "10", "b", "a", "01"]
    assert list(result["widgetCounts"].items()) == [("2", 1), ("10", 1), ("b", 2), ("a", 1), ("01", 1)]


def test_plan_ui_spec_counts_widgets_of_all_sections_in_their_order():
    data = plan_spec(
        converge=[widget("c1", "summary")], diverge=[widget("d1", "cards")], organize=[widget("o1", "matrix")]
    )
    result = calculate_widget_diversity(parse_ui_spec(data))
    assert result["selectedWidgets"] == ["cards", "matrix", "summary"]
    assert result["entropy"] == 1.585
