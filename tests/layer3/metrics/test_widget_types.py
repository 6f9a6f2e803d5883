"""The batch's widget types outside its catalogue, and its one |W| (pure)."""

import math

from layer3.metrics import calculate_widget_diversity, parse_ui_spec
from layer3.metrics.jscompat import js_round
from layer3.metrics.widget_types import available_types, merge_seen, outside_counts, seen_entries, spec_components
from tests.layer3.metrics.specs import plan_spec, ui_spec, widget

CATALOGUE = ("timeline", "checklist", *(f"type_{i}" for i in range(13)))


def spec(*components):
    return ui_spec([widget(f"w{i}", name) for i, name in enumerate(components)])


THREE = [spec("timeline", "checklist"), spec("timeline", "custom_chart"), spec("custom_chart", "custom_table")]


def test_types_are_the_widgets_components_of_a_ui_spec_and_of_every_section_of_a_plan():
    assert spec_components(spec("a", "b", "a")) == {"a": 2, "b": 1}
    plan = plan_spec(diverge=[widget("d", "x")], organize=[widget("o", "y")], converge=[widget("c", "x")])
    assert spec_components(plan) == {"x": 2, "y": 1}


def test_data_that_is_not_a_ui_spec_contributes_nothing():
    assert spec_components({"widgets": [widget("w1", "custom")]}) is None  # no reactiveBindings
    assert spec_components([1, 2]) is None
    assert outside_counts([{"widgets": [widget("w1", "custom")]}, "text", None], CATALOGUE) == {}


def test_types_outside_the_catalogue_are_counted_in_trials_and_widgets():
    found = outside_counts([*THREE, spec("custom_chart", "custom_chart")], CATALOGUE)
    assert found == {"custom_chart": [3, 4], "custom_table": [1, 1]}
    assert seen_entries(found) == [
        {"type": "custom_chart", "trials": 3, "widgets": 4},
        {"type": "custom_table", "trials": 1, "widgets": 1},
    ]


def test_merging_adds_counts_and_names_only_the_types_new_to_the_batch():
    stored = [{"type": "custom_chart", "trials": 1, "widgets": 1}]
    seen, added = merge_seen(stored, {"custom_table": [1, 2], "custom_chart": [2, 2]})
    assert added == ("custom_table",)
    assert seen == [
        {"type": "custom_chart", "trials": 3, "widgets": 3},
        {"type": "custom_table", "trials": 1, "widgets": 2},
    ]
    assert merge_seen(seen, {"custom_chart": [1, 1]})[1] == ()
    assert stored == [{"type": "custom_chart", "trials": 1, "widgets": 1}]  # not changed in place


def test_the_batch_s_types_are_its_catalogue_then_the_types_seen_outside_it():
    seen, _ = merge_seen([], outside_counts(THREE, CATALOGUE))
    assert available_types(CATALOGUE, seen) == (*CATALOGUE, "custom_chart", "custom_table")
    assert available_types(CATALOGUE, []) == CATALOGUE


def test_three_trials_with_the_same_distribution_get_one_normalised_entropy():
    # H = 1 bit each; per trial |W| would be 15, 16, 17 (0.256, 0.25, 0.2447); the batch's |W| is 17 for all.
    seen, _ = merge_seen([], outside_counts(THREE, CATALOGUE))
    types = available_types(CATALOGUE, seen)
    figures = [
        calculate_widget_diversity(parse_ui_spec(data), catalogue=CATALOGUE, available_types=types) for data in THREE
    ]
    expected = js_round(1 / math.log2(17), 4)
    assert expected == 0.2447
    assert [f["normalizedEntropy"] for f in figures] == [expected] * 3
    assert [f["availableWidgetCount"] for f in figures] == [17] * 3
    assert [f["outOfCatalogue"] for f in figures] == [[], ["custom_chart"], ["custom_chart", "custom_table"]]
    alone = [calculate_widget_diversity(parse_ui_spec(data), catalogue=CATALOGUE) for data in THREE]
    assert [f["normalizedEntropy"] for f in alone] == [0.256, 0.25, 0.2447]  # what one |W| per trial gave


def test_a_trial_with_a_type_its_batch_record_missed_still_stays_at_most_one():
    result = calculate_widget_diversity(parse_ui_spec(spec("a", "b")), catalogue=("a",), available_types=("a",))
    assert result["availableWidgetCount"] == 2 and result["normalizedEntropy"] == 1.0
