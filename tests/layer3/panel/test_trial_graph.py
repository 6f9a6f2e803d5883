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
from layer3.panel.trial_graph import DISPLAY_SCALE, LINE_DY, MAX_COLUMNS, MAX_ROWS, MAX_W, TYPES, trial_graph
from tests.layer3.metrics.specs import binding, plan_spec, ui_spec, widget

NUMBER = r"-?\d+(?:\.\d)?"
PIECE = rf"{NUMBER} {NUMBER} C {NUMBER} {NUMBER} {NUMBER} {NUMBER} {NUMBER} {NUMBER}"
PATH = re.compile(rf"M {PIECE}(?: L {PIECE})*")
TEMPLATE = "layer3/panel/_trial_graph.html"
BINDINGS = "generatedData.reactiveBindings.bindings"


def pieces(path):
    """The cubic pieces [p0, p1, p2, p3] of a path ``M p0 C p1 p2 p3``, then ``L p0 C p1 p2 p3`` per column passed."""
    assert PATH.fullmatch(path), path
    numbers = [float(n) for n in re.findall(NUMBER, path)]
    xy = [tuple(numbers[i : i + 2]) for i in range(0, len(numbers), 2)]
    return [xy[i : i + 4] for i in range(0, len(xy), 4)]


def points(path):
    """The four points of a one-piece path ``M p0 C p1 p2 p3``."""
    (piece,) = pieces(path)
    return piece


def curve(path, steps=20):
    """Points along the path, each piece sampled (the straight runs between pieces join their ends)."""
    for piece in pieces(path):
        for t in (i / steps for i in range(steps + 1)):
            weights = ((1 - t) ** 3, 3 * t * (1 - t) ** 2, 3 * t**2 * (1 - t), t**3)
            yield tuple(sum(w * p[i] for w, p in zip(weights, piece, strict=True)) for i in (0, 1))


def node(graph, node_id):
    return next(n for n in graph.nodes if n.id == node_id)


def box(item):
    return (item.x, item.y, item.x + item.w, item.y + item.h)


def label_box(edge):
    """A printed edge label's box, estimated from the character count: 0.62 em a character, 10 px, two lines."""
    half = max(len(line) for line in edge.lines) * 6.2 / 2
    return (edge.label_x - half, edge.label_y - 10, edge.label_x + half, edge.label_y + LINE_DY + 3)


def overlap(one, other):
    return one[0] < other[2] and other[0] < one[2] and one[1] < other[3] and other[1] < one[3]


def all_numbers(graph):
    yield graph.width
    yield graph.height
    for item in (*graph.groups, *graph.nodes, *graph.edges):
        yield from (value for value in astuple(item) if isinstance(value, float))
        if hasattr(item, "path"):
            yield from (coordinate for piece in pieces(item.path) for point in piece for coordinate in point)


def assert_well_formed(graph):
    """Numbers rounded to 1 decimal, paths of numbers, everything inside the view box, no node over another, no
    edge through a node, no printed edge label over a node or another label."""
    for number in all_numbers(graph):
        assert round(number, 1) == number
    for item in (*graph.groups, *graph.nodes):
        assert item.x >= 0 and item.x + item.w <= graph.width
        assert item.y >= 0 and item.y + item.h <= graph.height
    for i, one in enumerate(graph.nodes):
        assert not any(overlap(box(one), box(other)) for other in graph.nodes[i + 1 :]), one
    for edge in graph.edges:
        for x, y in curve(edge.path):
            assert -0.1 <= x <= graph.width + 0.1 and -0.1 <= y <= graph.height + 0.1, edge
            assert not any(n.x + 0.1 < x < n.x + n.w - 0.1 and n.y + 0.1 < y < n.y + n.h - 0.1 for n in graph.nodes)
    labels = [label_box(edge) for edge in graph.edges if edge.show_label]
    assert graph.labelled == bool(labels)
    for i, one in enumerate(labels):
        assert one[0] >= 0 and one[1] >= 0 and one[2] <= graph.width and one[3] <= graph.height, one
        assert not any(overlap(one, other) for other in labels[i + 1 :]), one
        assert not any(overlap(one, box(n)) for n in graph.nodes), one


FLAT = ui_spec(
    [widget("a", "brainstorm_cards"), widget("b", "card_sorting"), widget("c", "mind_map")],
    [
        binding("b1", "a.items", "b.input", "update"),
        binding("b2", "b.summary", "c.input", "validate"),
        binding("b3", "a.out", "c.in", "compute"),
    ],
)


def test_a_flat_spec_is_one_unnamed_group_in_columns_along_its_bindings():
    graph = trial_graph(FLAT)
    assert graph.error is None
    assert [g.name for g in graph.groups] == [""]
    assert [(n.id, n.label, n.title, n.kind, n.group, n.missing) for n in graph.nodes] == [
        ("a", "a", "a", "brainstorm_cards", "", False),
        ("b", "b", "b", "card_sorting", "", False),
        ("c", "c", "c", "mind_map", "", False),
    ]
    a, b, c = graph.nodes
    assert a.x + a.w < b.x and b.x + b.w < c.x  # a -> b -> c: three columns, left to right
    assert [(e.id, e.source, e.target, e.type, e.label, e.lines, e.title) for e in graph.edges] == [
        ("b1", "a", "b", "flow", "items → input", ("items →", "input"), "a.items → b.input"),
        ("b2", "b", "c", "meta", "summary → input", ("summary →", "input"), "b.summary → c.input"),
        ("b3", "a", "c", "unknown", "out → in", ("out →", "in"), "a.out → c.in"),
    ]
    assert graph.counts == {"flow": 1, "meta": 1, "sync": 0, "unknown": 1}
    assert graph.missing_count == 0
    assert graph.labelled and all(e.show_label for e in graph.edges)
    assert_well_formed(graph)


def test_a_chain_is_three_columns_left_to_right_whatever_the_spec_order():
    data = ui_spec([widget("c"), widget("b"), widget("a")], [binding("b1", "a.x", "b.y"), binding("b2", "b.x", "c.y")])
    graph = trial_graph(data)
    a, b, c = (node(graph, i) for i in "abc")
    assert a.x < b.x < c.x
    assert a.y == b.y == c.y  # one row: straight
    for edge, (source, target) in zip(graph.edges, ((a, b), (b, c)), strict=True):
        p0, p1, p2, p3 = points(edge.path)  # from the source's right edge to the target's left edge
        assert p0 == (source.x + source.w, source.y + source.h / 2) and p3 == (target.x, target.y + target.h / 2)
        assert p0[0] < p1[0] and p2[0] < p3[0]
        assert source.x + source.w < edge.label_x < target.x  # the label over the middle, in the gap
    assert_well_formed(graph)


def test_an_edge_past_a_column_runs_through_a_free_slot_not_through_a_node():
    graph = trial_graph(FLAT)
    a, b, c = graph.nodes
    edge = graph.edges[2]  # a -> c, past b's column
    first, second = pieces(edge.path)
    assert first[0] == (a.x + a.w, a.y + a.h / 2) and second[3] == (c.x, c.y + c.h / 2)
    slot = first[3][1]
    assert first[3] == (b.x, slot) and second[0] == (b.x + b.w, slot)  # straight across b's column
    assert not b.y - 8 < slot < b.y + b.h + 8
    assert not any(overlap((x, y, x, y), box(b)) for x, y in curve(edge.path))
    assert b.x <= edge.label_x <= b.x + b.w  # the middle of the edge: its run across b's column


def test_the_nodes_of_a_column_are_ordered_to_avoid_crossings():
    data = ui_spec(
        [widget("a"), widget("b"), widget("c"), widget("d")],
        [binding("b1", "a.x", "d.y"), binding("b2", "b.x", "c.y")],
    )
    graph = trial_graph(data)
    a, b, c, d = graph.nodes
    assert a.x == b.x < c.x == d.x
    assert a.y < b.y and d.y < c.y  # d beside a, c beside b: the two edges do not cross
    assert [n.id for n in graph.nodes] == ["a", "b", "c", "d"]  # the spec order, whatever the rows


def test_a_cycle_is_broken_at_its_back_edge_and_laid_out():
    bindings = [binding("b1", "a.x", "b.y"), binding("b2", "b.x", "c.y"), binding("b3", "c.x", "a.y", "validate")]
    graph = trial_graph(ui_spec([widget("a"), widget("b"), widget("c")], bindings))
    a, b, c = graph.nodes
    assert a.x < b.x < c.x
    first, second = pieces(graph.edges[2].path)  # c -> a: from c's left edge past b to a's right edge, 8 lower
    assert first[0] == (c.x, c.y + c.h / 2 + 8) and second[3] == (a.x + a.w, a.y + a.h / 2 + 8)
    assert first[1][0] < first[0][0] and second[2][0] > second[3][0]
    assert_well_formed(graph)


def test_a_long_chain_falls_back_to_the_spec_order_in_columns():
    ring = [widget(f"w{i}") for i in range(30)]  # thirty deep, more than MAX_COLUMNS
    graph = trial_graph(ui_spec(ring, [binding(f"b{i}", f"w{i}.o", f"w{(i + 1) % 30}.i") for i in range(30)]))
    columns = Counter(n.x for n in graph.nodes)
    assert len(columns) == 3 < MAX_COLUMNS and set(columns.values()) == {10}
    assert [n.y for n in graph.nodes[:10]] == sorted(n.y for n in graph.nodes[:10])
    assert not graph.labelled
    assert_well_formed(graph)


def test_sync_pairs_are_neighbouring_columns_and_two_distinct_curves():
    graph = trial_graph(ui_spec([widget("a"), widget("b")], [binding("b1", "a.x", "b.y"), binding("b2", "b.y", "a.x")]))
    assert [e.type for e in graph.edges] == ["sync", "sync"]
    a, b = graph.nodes
    assert a.x < b.x
    assert graph.edges[0].path != graph.edges[1].path
    assert points(graph.edges[0].path)[1] != points(graph.edges[1].path)[1]
    ends = [("a", "b"), ("b", "a"), ("b", "c"), ("c", "b"), ("c", "a"), ("a", "c")]
    bindings = [binding(f"b{i}", f"{source}.x", f"{target}.y") for i, (source, target) in enumerate(ends)]
    graph = trial_graph(ui_spec([widget("a"), widget("b"), widget("c")], bindings))
    assert {e.type for e in graph.edges} == {"sync"}
    a, b, c = graph.nodes
    assert a.x < b.x < c.x  # three columns, no more
    assert_well_formed(graph)


def test_a_plan_spec_stacks_its_sections_as_named_bands_across_the_columns():
    data = plan_spec(
        diverge=[widget("d1"), widget("d2")],
        organize=[widget("o1", "matrix_placement")],
        converge=[],
        bindings=[
            binding("b1", "d1.items", "o1.input"),
            binding("b2", "o1.out", "d2.in"),
            binding("b3", "d2.in", "o1.out"),
        ],
    )
    graph = trial_graph(data)
    assert [g.name for g in graph.groups] == ["diverge", "organize", "converge"]
    assert len({(g.x, g.w) for g in graph.groups}) == 1
    for upper, lower in zip(graph.groups, graph.groups[1:], strict=False):
        assert upper.y + upper.h < lower.y
    assert [(n.id, n.group) for n in graph.nodes] == [("d1", "diverge"), ("d2", "diverge"), ("o1", "organize")]
    for n in graph.nodes:
        group = next(g for g in graph.groups if g.name == n.group)
        assert group.x < n.x and n.x + n.w < group.x + group.w
        assert group.y < n.y and n.y + n.h < group.y + group.h
        assert n.y > group.label_y  # below the section name
    d1, d2, o1 = graph.nodes
    assert d1.x < o1.x < d2.x  # the depth along the bindings, whatever the section
    forward, _, back = graph.edges  # d2 -> o1 closes the cycle o1 -> d2 -> o1: it runs back
    assert points(forward.path)[0] == (d1.x + d1.w, d1.y + d1.h / 2)
    assert points(forward.path)[3] == (o1.x, o1.y + o1.h / 2)
    p0, p1, p2, p3 = points(back.path)  # back to an earlier column: left edge to right edge, a little lower
    assert p0 == (d2.x, d2.y + d2.h / 2 + 8) and p3 == (o1.x + o1.w, o1.y + o1.h / 2 + 8)
    assert p1[0] < p0[0] and p2[0] > p3[0]
    assert_well_formed(graph)


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


def test_long_ports_are_cut_in_the_label_and_kept_whole_in_the_title():
    port = "a_port_with_a_name_far_too_long_for_a_label"
    graph = trial_graph(ui_spec([widget("a"), widget("b")], [binding("b1", f"a.{port}", f"b.{port}")]))
    (edge,) = graph.edges
    first, second = edge.lines
    assert first.endswith("… →") and second.endswith("…") and port.startswith(second[:-1])
    assert edge.label == f"{first} {second}" and edge.title == f"a.{port} → b.{port}"
    assert_well_formed(graph)


def test_node_width_fits_the_longest_label_of_the_column():
    narrow = trial_graph(ui_spec([widget("a", "x")]))
    wider = trial_graph(ui_spec([widget("a", "x"), widget("widget_with_a_longer_id", "x")]))
    assert narrow.nodes[0].w < wider.nodes[0].w == wider.nodes[1].w <= MAX_W


def test_forty_widgets_wrap_into_columns_and_stay_in_the_view_box():
    widgets = [widget(f"w{i}", "priority_slider_grid") for i in range(40)]
    bindings = [binding(f"b{i}", f"w{i}.out", f"w{(i * 7 + 3) % 40}.in") for i in range(40)]
    graph = trial_graph(ui_spec(widgets, bindings))  # ten cycles of four
    assert not graph.labelled  # forty labels would hide the graph: the tooltips have the ports
    columns = Counter(n.x for n in graph.nodes)
    assert len(columns) == 4 and max(columns.values()) <= MAX_ROWS
    assert graph.height < 1000
    assert_well_formed(graph)
    graph = trial_graph(ui_spec(widgets))  # no bindings: one layer, wrapped
    columns = Counter(n.x for n in graph.nodes)
    assert len(columns) == 4 and set(columns.values()) == {10}
    assert graph.height < 600
    assert_well_formed(graph)


def test_the_layout_is_deterministic():
    trials = generate_trials(4, seed=3, broken_share=0.0)
    ends = ("ab", "bc", "ca", "db", "bd", "cc", "ad")  # cycles, a sync pair, a self-loop
    cyclic = ui_spec(
        [widget(i) for i in "abcd"], [binding(f"b{n}", f"{s}.x", f"{t}.y") for n, (s, t) in enumerate(ends)]
    )
    for data in (trials[2]["generatedData"], trials[3]["generatedData"], cyclic):  # a PlanUISpec (C), sync pairs (D)
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
        assert_well_formed(graph)  # no printed label over another or over a node
    assert 0 < broken < len(trials)


def test_the_demo_trials_mostly_run_left_to_right_with_their_labels_printed():
    edges = adjacent = printed = 0
    for trial in generate_trials(100, seed=5, broken_share=0.0):
        graph = trial_graph(trial["generatedData"])
        columns = sorted({n.x for n in graph.nodes})
        for edge in graph.edges:
            source, target = node(graph, edge.source), node(graph, edge.target)
            edges += 1
            adjacent += columns.index(target.x) == columns.index(source.x) + 1
            printed += edge.show_label
        for one in graph.edges:  # whatever the order they were placed in
            for other in graph.edges:
                if one is not other and one.show_label and other.show_label:
                    assert not overlap(label_box(one), label_box(other))
    assert adjacent > edges / 2  # most edges join neighbouring columns, left to right
    assert printed > 0.7 * edges  # most labels have room


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
    assert 'class="edge-label edge-label-flow"' in svg and re.search(
        rf'>out →<tspan x="\S+" dy="{LINE_DY:g}">in</tspan>', svg
    )


def test_the_template_keeps_numbers_unlocalized_and_takes_an_id_prefix(settings):
    settings.USE_THOUSAND_SEPARATOR = True
    widgets = [widget(f"w{i}") for i in range(40)]
    bindings = [binding("b1", "w0.a", "w1.b")]
    graph = trial_graph(plan_spec(diverge=widgets, organize=widgets, converge=widgets, bindings=bindings))
    with translation.override("de"):  # a decimal comma, were numbers localized
        html = render_to_string(TEMPLATE, {"graph": graph, "graph_id": "g2"})
    assert f'viewBox="0 0 {graph.width} {graph.height}"' in html and graph.height > 1000
    assert f'width="{graph.display_width}" height="{graph.display_height}"' in html
    assert 'aria-labelledby="g2-title g2-desc"' in html and "url(#g2-arrow-flow)" in html
    assert "edge-label" in html  # one binding: labelled


def test_the_template_draws_the_svg_larger_and_prints_only_the_labels_with_room():
    bindings = [binding(f"b{i}", "a.items", f"{t}.input") for i, t in enumerate("bcbcbc")]
    graph = trial_graph(ui_spec([widget("a"), widget("b"), widget("c")], bindings))
    assert 0 < sum(e.show_label for e in graph.edges) < len(graph.edges)  # six edges into two nodes: no room
    svg = svg_of(render(graph))
    root = ET.fromstring(svg)
    assert float(root.get("width")) == graph.display_width == round(graph.width * DISPLAY_SCALE, 1)
    assert float(root.get("height")) == graph.display_height == round(graph.height * DISPLAY_SCALE, 1)
    assert svg.count('class="edge-label ') == sum(e.show_label for e in graph.edges)
    assert svg.count('class="edge-item"') == len(graph.edges)  # each with its tooltip
    assert "style=" not in svg


def test_the_template_shows_the_error_and_its_path():
    html = render(trial_graph({"widgets": "<x>", "reactiveBindings": {"bindings": []}}))
    assert "<svg" not in html
    assert "is not a UISpec" in html and "generatedData.widgets" in html
    assert "&lt;x&gt;" in html and "<x>" not in html
