"""trial_graph: the widget / binding graph of a trial's generatedData, and its SVG template."""

import copy
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections import Counter
from dataclasses import astuple, fields
from pathlib import Path

import pytest
from django.template.loader import render_to_string
from django.utils import translation

from layer3.demo.generator import generate_trials
from layer3.metrics import classify_binding_types, parse_ui_spec
from layer3.metrics.spec import UISpecError
from layer3.panel.trial_graph import MAX_W, TYPES, trial_graph
from tests.layer3.metrics.specs import binding, plan_spec, ui_spec, widget

NUMBER = r"-?\d+(?:\.\d)?"
PATH = re.compile(rf"M {NUMBER} {NUMBER} C {NUMBER} {NUMBER} {NUMBER} {NUMBER} {NUMBER} {NUMBER}")
TEMPLATE = "layer3/panel/_trial_graph.html"
BINDINGS = "generatedData.reactiveBindings.bindings"


def points(path):
    """The four points of a path ``M p0 C p1 p2 p3``."""
    assert PATH.fullmatch(path), path
    numbers = [float(n) for n in re.findall(NUMBER, path)]
    return [tuple(numbers[i : i + 2]) for i in range(0, 8, 2)]


def node(graph, node_id):
    return next(n for n in graph.nodes if n.id == node_id)


def all_numbers(graph):
    yield graph.width
    yield graph.height
    for item in (*graph.groups, *graph.nodes, *graph.edges):
        yield from (value for value in astuple(item) if isinstance(value, float))
        if hasattr(item, "path"):
            yield from (coordinate for point in points(item.path) for coordinate in point)


def assert_well_formed(graph):
    """Numbers rounded to 1 decimal, paths of numbers, nodes and groups inside the view box."""
    for number in all_numbers(graph):
        assert round(number, 1) == number
    for item in (*graph.groups, *graph.nodes):
        assert item.x >= 0 and item.x + item.w <= graph.width
        assert item.y >= 0 and item.y + item.h <= graph.height
    for edge in graph.edges:
        p0, p1, p2, p3 = points(edge.path)
        for t in (i / 20 for i in range(21)):  # the curve, sampled
            weights = ((1 - t) ** 3, 3 * t * (1 - t) ** 2, 3 * t**2 * (1 - t), t**3)
            x, y = (sum(w * p[i] for w, p in zip(weights, (p0, p1, p2, p3), strict=True)) for i in (0, 1))
            assert -0.1 <= x <= graph.width + 0.1 and -0.1 <= y <= graph.height + 0.1


FLAT = ui_spec(
    [widget("a", "brainstorm_cards"), widget("b", "card_sorting"), widget("c", "mind_map")],
    [
        binding("b1", "a.items", "b.input", "update"),
        binding("b2", "b.summary", "c.input", "validate"),
        binding("b3", "a.out", "c.in", "compute"),
    ],
)


def test_a_flat_spec_is_one_unnamed_column_in_order():
    graph = trial_graph(FLAT)
    assert graph.error is None
    assert [g.name for g in graph.groups] == [""]
    assert [(n.id, n.label, n.title, n.kind, n.group, n.missing) for n in graph.nodes] == [
        ("a", "a", "a", "brainstorm_cards", "", False),
        ("b", "b", "b", "card_sorting", "", False),
        ("c", "c", "c", "mind_map", "", False),
    ]
    assert len({n.x for n in graph.nodes}) == 1
    assert [n.y for n in graph.nodes] == sorted(n.y for n in graph.nodes)
    assert [(e.id, e.source, e.target, e.type, e.label, e.title) for e in graph.edges] == [
        ("b1", "a", "b", "flow", "items → input", "a.items → b.input"),
        ("b2", "b", "c", "meta", "summary → input", "b.summary → c.input"),
        ("b3", "a", "c", "unknown", "out → in", "a.out → c.in"),
    ]
    assert graph.counts == {"flow": 1, "meta": 1, "sync": 0, "unknown": 1}
    assert graph.missing_count == 0
    assert graph.labelled
    assert_well_formed(graph)


def test_edges_within_a_column_arc_out_to_the_right_and_stay_apart():
    graph = trial_graph(FLAT)
    a, b, _ = graph.nodes
    right = a.x + a.w
    p0, p1, p2, p3 = points(graph.edges[0].path)
    assert p0 == (right, a.y + a.h / 2) and p3 == (right, b.y + b.h / 2)
    assert p1[0] > right + 10 and p2[0] > right + 10  # visible, not a line along the border
    farther = points(graph.edges[2].path)  # a -> c spans two rows: a wider arc
    assert farther[1][0] > p1[0]


def test_a_plan_spec_has_a_column_per_section_and_curves_from_right_to_left_edges():
    data = plan_spec(
        diverge=[widget("d1"), widget("d2")],
        organize=[widget("o1", "matrix_placement")],
        converge=[],
        bindings=[binding("b1", "d1.items", "o1.input"), binding("b2", "o1.out", "d2.in")],
    )
    graph = trial_graph(data)
    assert [g.name for g in graph.groups] == ["diverge", "organize", "converge"]
    assert [g.x for g in graph.groups] == sorted(g.x for g in graph.groups)
    assert len({(g.y, g.h) for g in graph.groups}) == 1
    assert [(n.id, n.group) for n in graph.nodes] == [("d1", "diverge"), ("d2", "diverge"), ("o1", "organize")]
    for n in graph.nodes:
        group = next(g for g in graph.groups if g.name == n.group)
        assert group.x < n.x and n.x + n.w < group.x + group.w
        assert group.y < n.y and n.y + n.h < group.y + group.h
        assert n.y > group.label_y  # below the section name
    d1, d2, o1 = graph.nodes
    forward, back = graph.edges
    assert points(forward.path)[0] == (d1.x + d1.w, d1.y + d1.h / 2)
    assert points(forward.path)[3] == (o1.x, o1.y + o1.h / 2)
    p0, p1, p2, p3 = points(back.path)  # back to an earlier section: left edge to right edge, a little lower
    assert p0 == (o1.x, o1.y + o1.h / 2 + 8) and p3 == (d2.x + d2.w, d2.y + d2.h / 2 + 8)
    assert p1[0] < p0[0] and p2[0] > p3[0]
    assert_well_formed(graph)


def test_an_edge_past_a_column_runs_between_the_rows_not_through_a_node():
    data = plan_spec([widget("d1")], [widget("o1")], [widget("c1")], [binding("b1", "d1.x", "c1.y", "validate")])
    graph = trial_graph(data)
    d1, o1, _ = graph.nodes
    (edge,) = graph.edges
    assert edge.label_y < o1.y  # the middle of the curve, where it passes o1's column
    assert d1.y + d1.h / 2 == points(edge.path)[0][1]


def test_a_sync_pair_draws_two_distinct_curves():
    graph = trial_graph(ui_spec([widget("a"), widget("b")], [binding("b1", "a.x", "b.y"), binding("b2", "b.y", "a.x")]))
    assert [e.type for e in graph.edges] == ["sync", "sync"]
    assert graph.edges[0].path != graph.edges[1].path
    assert points(graph.edges[0].path)[1][0] != points(graph.edges[1].path)[1][0]


def test_a_binding_to_a_missing_widget_gets_a_placeholder_in_its_source_group():
    data = plan_spec(
        diverge=[widget("d1")],
        organize=[widget("o1")],
        bindings=[binding("b1", "o1.out", "ghost.in"), binding("b2", "ghost.out", "d1.in", "validate")],
    )
    graph = trial_graph(data)
    ghost = node(graph, "ghost")
    assert (ghost.kind, ghost.missing, ghost.group, ghost.kind_label) == ("missing", True, "organize", "")
    assert [n.id for n in graph.nodes] == ["d1", "o1", "ghost"]  # one placeholder for both bindings
    assert [(e.source, e.target, e.missing) for e in graph.edges] == [("o1", "ghost", True), ("ghost", "d1", True)]
    assert graph.missing_count == 1
    assert graph.counts["flow"] == 1 and graph.counts["meta"] == 1
    assert_well_formed(graph)


def test_a_binding_between_two_missing_widgets_puts_both_in_the_last_group():
    graph = trial_graph(plan_spec(diverge=[widget("d1")], bindings=[binding("b1", "x.out", "y.in")]))
    assert [(n.id, n.group, n.missing) for n in graph.nodes] == [
        ("d1", "diverge", False),
        ("x", "converge", True),
        ("y", "converge", True),
    ]


def test_a_self_loop_is_a_visible_loop_on_the_right_edge():
    graph = trial_graph(ui_spec([widget("a")], [binding("b1", "a.out", "a.in")]))
    (a,) = graph.nodes
    (edge,) = graph.edges
    assert (edge.source, edge.target, edge.type) == ("a", "a", "sync")
    p0, p1, p2, p3 = points(edge.path)
    right = a.x + a.w
    assert p0[0] == p3[0] == right
    assert a.y <= p0[1] < p3[1] <= a.y + a.h
    assert p1[0] >= right + 30 and p2[0] >= right + 30
    assert edge.label_x > right
    assert_well_formed(graph)


@pytest.mark.parametrize(
    ("data", "path"),
    [
        ([], "generatedData"),
        ({"widgets": [{"id": "a"}], "reactiveBindings": {"bindings": []}}, "generatedData.widgets[0].component"),
        (ui_spec([widget("a")], [binding("b1", "a.out", "nodot")]), f"{BINDINGS}[0].target"),
        ({"sections": {"diverge": {"widgets": []}}}, "generatedData.sections.organize"),
    ],
)
def test_data_that_is_no_ui_spec_gives_the_error_and_its_json_path(data, path):
    graph = trial_graph(data)
    with pytest.raises(UISpecError) as raised:
        parse_ui_spec(data)
    assert graph.error is not None
    assert graph.error.path == path == raised.value.path
    assert raised.value.problem in graph.error.message and raised.value.accepted in graph.error.message
    assert graph.nodes == graph.edges == graph.groups == ()
    assert graph.counts == dict.fromkeys(TYPES, 0)


def test_long_ids_are_cut_with_an_ellipsis_and_kept_whole_in_the_title():
    long_id = "a_very_long_widget_identifier_that_goes_on_and_on"
    wide_id = "とても長いウィジェットの識別子でカードを並べるもの"
    graph = trial_graph(ui_spec([widget(long_id, "x" * 60), widget(wide_id), widget("s")]))
    first, second, short = graph.nodes
    for n, full in ((first, long_id), (second, wide_id)):
        assert n.label.endswith("…") and full.startswith(n.label[:-1]) and len(n.label) < len(full)
        assert n.title == n.id == full
        assert n.w <= MAX_W
    assert first.kind == "x" * 60 and first.kind_label.endswith("…")
    assert len(second.label) < len(first.label)  # wide characters take more room
    assert short.label == "s"


def test_node_width_fits_the_longest_label_of_the_column():
    narrow = trial_graph(ui_spec([widget("a", "x")]))
    wider = trial_graph(ui_spec([widget("a", "x"), widget("widget_with_a_longer_id", "x")]))
    assert narrow.nodes[0].w < wider.nodes[0].w == wider.nodes[1].w <= MAX_W


def test_forty_widgets_wrap_into_columns_and_stay_in_the_view_box():
    widgets = [widget(f"w{i}", "priority_slider_grid") for i in range(40)]
    bindings = [binding(f"b{i}", f"w{i}.out", f"w{(i * 7 + 3) % 40}.in") for i in range(40)]
    graph = trial_graph(ui_spec(widgets, bindings))
    assert not graph.labelled  # forty labels would hide the graph: the tooltips have the ports
    columns = Counter(n.x for n in graph.nodes)
    assert len(columns) == 4 and set(columns.values()) == {10}
    assert graph.height < 700
    assert_well_formed(graph)


def test_the_layout_is_deterministic():
    data = generate_trials(4, seed=3, broken_share=0.0)[2]["generatedData"]  # a PlanUISpec (config C)
    first = trial_graph(data)
    assert first == trial_graph(copy.deepcopy(data))
    assert repr(first) == repr(trial_graph(data))


def test_edge_types_match_classify_binding_types_on_every_demo_trial():
    trials = generate_trials(250, seed=11, broken_share=0.05)
    broken = 0
    for trial in trials:
        data = trial["generatedData"]
        graph = trial_graph(data)
        try:
            spec = parse_ui_spec(data)
        except UISpecError as error:
            broken += 1
            assert graph.error is not None and graph.error.path == error.path and graph.nodes == ()
            continue
        classified = classify_binding_types(spec)
        assert graph.error is None
        assert [e.type for e in graph.edges] == [c["type"] for c in classified["bindingClassifications"]]
        assert [e.id for e in graph.edges] == [c["bindingId"] for c in classified["bindingClassifications"]]
        assert graph.counts == classified["distribution"]
        assert [n.id for n in graph.nodes if not n.missing] == [w["id"] for w in spec.widgets]
        assert_well_formed(graph)
    assert 0 < broken < len(trials)


def test_the_dataclasses_are_frozen():
    graph = trial_graph(FLAT)
    with pytest.raises(AttributeError):
        graph.nodes[0].x = 1.0  # type: ignore[misc]
    assert {f.name for f in fields(graph)} >= {"width", "height", "groups", "nodes", "edges", "counts", "error"}


def test_the_module_loads_no_django():
    check = "import sys, layer3.panel.trial_graph\nprint(sorted(n for n in sys.modules if n.split('.')[0] == 'django'))"
    root = Path(__file__).resolve().parents[3]
    result = subprocess.run([sys.executable, "-c", check], cwd=root, capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


# The template (needs Django's settings, no database).


def render(graph, **context):
    with translation.override("en"):
        return render_to_string(TEMPLATE, {"graph": graph, **context})


def svg_of(html):
    start = html.index("<svg")
    end = html.index("</svg>", start) + len("</svg>")  # the graph holds no svg (the legend's swatches follow)
    return html[start:end]


def test_the_template_escapes_widget_ids_and_uses_no_style_attribute():
    evil = '<script>alert("x")</script>'
    data = plan_spec(
        diverge=[widget(evil, "<b>kind</b>")],
        organize=[widget("o1")],
        bindings=[binding("b1", f"{evil}.out", "o1.in"), binding("b2", "o1.out", "gone.in", "validate")],
    )
    html = render(trial_graph(data))
    assert "<script" not in html and "<b>" not in html
    assert "&lt;script&gt;" in html and "&lt;b&gt;kind&lt;/b&gt;" in html
    assert "style=" not in html and "<style" not in html
    svg = svg_of(html)
    root = ET.fromstring(svg)  # well-formed XML
    assert root.get("role") == "img" and root.get("viewBox").startswith("0 0 ")
    assert root.get("aria-labelledby") == "trial-graph-title trial-graph-desc"
    assert 'id="trial-graph-title">Widgets and bindings</title>' in svg
    assert 'class="edge edge-flow"' in svg and 'class="edge edge-meta edge-missing"' in svg
    assert 'marker-end="url(#trial-graph-arrow-meta)"' in svg and 'id="trial-graph-arrow-sync"' in svg
    assert ">diverge</text>" in svg and ">organize</text>" in svg
    assert "missing widget" in svg and 'class="node node-missing"' in svg
    assert re.search(r'class="legend-item">.*?flow <span class="legend-count">1</span>', html)
    assert "missing widget <span" in html
    assert 'class="edge-label edge-label-flow"' in svg and "out → in" in svg


def test_the_template_keeps_numbers_unlocalized_and_takes_an_id_prefix(settings):
    settings.USE_THOUSAND_SEPARATOR = True
    widgets = [widget(f"w{i}") for i in range(40)]
    bindings = [binding("b1", "w0.a", "w1.b")]
    graph = trial_graph(plan_spec(diverge=widgets, organize=widgets, converge=widgets, bindings=bindings))
    with translation.override("de"):  # a decimal comma, were numbers localized
        html = render_to_string(TEMPLATE, {"graph": graph, "graph_id": "g2"})
    assert f'viewBox="0 0 {graph.width} {graph.height}"' in html and graph.width > 1000
    assert 'aria-labelledby="g2-title g2-desc"' in html and "url(#g2-arrow-flow)" in html
    assert "edge-label" in html  # one binding: labelled


def test_the_template_shows_the_error_and_its_path():
    html = render(trial_graph({"widgets": "<x>", "reactiveBindings": {"bindings": []}}))
    assert "<svg" not in html
    assert "is not a UISpec" in html and "generatedData.widgets" in html
    assert "&lt;x&gt;" in html and "<x>" not in html
