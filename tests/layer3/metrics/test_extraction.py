"""§4.1 generatedValue extraction: containers, items under keys, paths, and what the TypeScript skips."""

from layer3.metrics import extract_generated_values, parse_ui_spec
from tests.layer3.metrics.specs import generated, plan_spec, ui_spec, widget


def extract(*widgets):
    return extract_generated_values(parse_ui_spec(ui_spec(widgets)))


def paths(found):
    return [(item["widgetId"], item["itemId"], item["path"]) for item in found]


def test_a_container_config_gives_its_generated_items_with_the_path_items():
    config = {"items": [generated("i1", "締め切りが近い"), {"id": "i2", "text": "手書き"}, generated("i3")]}
    assert extract(widget("w1", config=config)) == [
        {"widgetId": "w1", "itemId": "i1", "text": "締め切りが近い", "path": "items"},
        {"widgetId": "w1", "itemId": "i3", "text": "サンプル", "path": "items"},
    ]


def test_a_nested_container_gives_its_own_path_without_items_or_index():
    config = {"board": {"columns": [{"title": "x"}, {"cards": {"items": [generated("c1"), generated("c2")]}}]}}
    assert paths(extract(widget("w1", config=config))) == [
        ("w1", "c1", "board.columns[1].cards"),
        ("w1", "c2", "board.columns[1].cards"),
    ]


def test_nothing_inside_a_container_is_searched_beyond_its_items():
    config = {"items": [{"nested": generated("deep")}], "hint": generated("beside")}
    assert extract(widget("w1", config=config)) == []


def test_a_generated_item_directly_under_a_key_is_taken_with_that_keys_path():
    config = {"placeholder": generated("p1"), "axes": {"x": generated("x1")}}
    assert paths(extract(widget("w1", config=config))) == [("w1", "p1", "placeholder"), ("w1", "x1", "axes.x")]


def test_a_generated_item_as_an_array_element_under_a_key_is_skipped_as_in_the_typescript():
    # extractFromConfig walks the element as an object; its own keys (id, text, isGenerated) hold nothing.
    config = {"cards": [generated("c1"), generated("c2")]}
    assert extract(widget("w1", config=config)) == []


def test_an_array_walked_as_a_config_lists_its_elements_under_index_keys():
    assert paths(extract(widget("w1", config=[generated("a"), {"x": generated("b")}]))) == [
        ("w1", "a", "0"),
        ("w1", "b", "1.x"),
    ]
    assert paths(extract(widget("w2", config={"grid": [[{}, generated("g")]]}))) == [("w2", "g", "grid[0].1")]


def test_only_the_boolean_true_marks_an_item_as_generated():
    config = {
        "a": {"id": "a", "text": "t", "isGenerated": 1},
        "b": {"id": "b", "text": "t", "isGenerated": "true"},
        "c": {"id": "c", "text": "t"},
        "d": {"id": 4, "text": "t", "isGenerated": True},
        "e": {"id": "e", "text": None, "isGenerated": True},
        "f": {"id": "f", "text": "", "isGenerated": True},
    }
    assert paths(extract(widget("w1", config=config))) == [("w1", "f", "f")]


def test_a_generated_item_under_a_key_wins_over_being_a_container():
    config = {"hint": {**generated("h"), "items": [generated("inner")]}}
    assert paths(extract(widget("w1", config=config))) == [("w1", "h", "hint")]


def test_keys_are_visited_in_javascripts_object_entries_order():
    config = {"b": generated("b"), "10": generated("ten"), "2": generated("two"), "a": generated("a")}
    assert [item["itemId"] for item in extract(widget("w1", config=config))] == ["two", "ten", "b", "a"]


def test_widgets_without_config_or_with_a_scalar_config_give_nothing():
    assert extract(widget("w1"), widget("w2", config="text"), widget("w3", config=3), widget("w4", config={})) == []


def test_plan_ui_spec_widgets_are_searched_diverge_organize_converge():
    data = plan_spec(
        converge=[widget("c", config={"items": [generated("3")]})],
        diverge=[widget("d", config={"items": [generated("1")]})],
        organize=[widget("o", config={"items": [generated("2")]})],
    )
    assert paths(extract_generated_values(parse_ui_spec(data))) == [
        ("d", "1", "items"),
        ("o", "2", "items"),
        ("c", "3", "items"),
    ]
