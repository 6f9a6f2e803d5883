"""§4.3 graph complexity, hand-computed: density, degrees, unknown widgets, sections, JavaScript rounding."""

from layer3.metrics import calculate_graph_complexity, parse_ui_spec
from tests.layer3.metrics.specs import binding, plan_spec, ui_spec, widget


def graph(data):
    return calculate_graph_complexity(parse_ui_spec(data))


def test_a_small_ui_spec_by_hand():
    # a -> b, a -> c, b -> c, c -> d, d -> a: 5 of 4 * 3 possible edges; degrees a 3, b 2, c 3, d 2.
    data = ui_spec(
        [widget("a"), widget("b"), widget("c"), widget("d")],
        [
            binding("1", "a.out", "b.in"),
            binding("2", "a.out", "c.in"),
            binding("3", "b.out", "c.in"),
            binding("4", "c.out", "d.in"),
            binding("5", "d.out", "a.in"),
        ],
    )
    assert graph(data) == {"nodeCount": 4, "edgeCount": 5, "density": 0.4167, "avgDegree": 2.5, "maxDegree": 3}


def test_a_ui_spec_has_no_section_keys():
    result = graph(ui_spec([widget("a")]))
    assert "sectionNodeCounts" not in result
    assert "crossSectionEdges" not in result


def test_an_empty_spec_is_all_zero():
    assert graph(ui_spec([], [])) == {"nodeCount": 0, "edgeCount": 0, "density": 0, "avgDegree": 0, "maxDegree": 0}


def test_without_widgets_bindings_to_unknown_widgets_still_give_a_max_degree():
    data = ui_spec([], [binding("1", "x.out", "y.in"), binding("2", "x.out", "z.in")])
    assert graph(data) == {"nodeCount": 0, "edgeCount": 2, "density": 0, "avgDegree": 0, "maxDegree": 2}


def test_a_single_widget_has_density_zero_for_a_zero_denominator():
    data = ui_spec([widget("a")], [binding("1", "a.out", "a.in")])
    # The self-loop adds 1 to a's degree as source and 1 as target.
    assert graph(data) == {"nodeCount": 1, "edgeCount": 1, "density": 0, "avgDegree": 2.0, "maxDegree": 2}


def test_bindings_to_unknown_widgets_count_as_edges_and_in_the_degrees():
    data = ui_spec(
        [widget("a"), widget("b")],
        [binding("1", "ghost.out", "a.in"), binding("2", "ghost.out", "b.in"), binding("3", "ghost.o", "ghost.i")],
    )
    # density 3 / 2 (above 1); avgDegree (2 * 3) / 2; ghost's degree 2 + 2 from the self-loop = 4.
    assert graph(data) == {"nodeCount": 2, "edgeCount": 3, "density": 1.5, "avgDegree": 3.0, "maxDegree": 4}


def test_a_bidirectional_pair_is_two_edges():
    data = ui_spec([widget("a"), widget("b")], [binding("1", "a.out", "b.in"), binding("2", "b.out", "a.in")])
    assert graph(data) == {"nodeCount": 2, "edgeCount": 2, "density": 1.0, "avgDegree": 2.0, "maxDegree": 2}


def test_duplicate_widget_ids_count_as_nodes_but_share_a_degree():
    data = ui_spec([widget("a"), widget("a"), widget("b")], [binding("1", "a.out", "b.in")])
    assert graph(data) == {"nodeCount": 3, "edgeCount": 1, "density": 0.1667, "avgDegree": 0.67, "maxDegree": 1}


def test_density_rounds_an_exact_half_up_like_math_round():
    # 31 / (32 * 31) = 0.03125 exactly; * 10000 = 312.5: Math.round gives 313, Python's round 312.
    widgets = [widget(f"w{i}") for i in range(32)]
    chain = [binding(str(i), f"w{i}.out", f"w{i + 1}.in") for i in range(31)]
    result = graph(ui_spec(widgets, chain))
    assert result["density"] == 0.0313
    assert result["avgDegree"] == 1.94  # 62 / 32 = 1.9375


def test_avg_degree_rounds_an_exact_half_up_like_math_round():
    # 2 * 1 / 16 = 0.125; * 100 = 12.5: Math.round gives 13, Python's round 12.
    widgets = [widget(f"w{i}") for i in range(16)]
    assert graph(ui_spec(widgets, [binding("1", "w0.out", "w1.in")]))["avgDegree"] == 0.13


def test_plan_ui_spec_counts_section_nodes_and_cross_section_edges():
    data = plan_spec(
        diverge=[widget("d1"), widget("d2")],
        organize=[widget("o1")],
        converge=[widget("c1"), widget("c2"), widget("c3")],
        bindings=[
            binding("1", "d1.out", "d2.in"),  # within diverge
            binding("2", "d2.out", "o1.in"),  # diverge -> organize
            binding("3", "o1.out", "c1.in"),  # organize -> converge
            binding("4", "c1.out", "c2.in"),  # within converge
            binding("5", "c3.out", "d1.in"),  # converge -> diverge
        ],
    )
    assert graph(data) == {
        "nodeCount": 6,
        "edgeCount": 5,
        "density": 0.1667,
        "avgDegree": 1.67,
        "maxDegree": 2,
        "sectionNodeCounts": {"diverge": 2, "organize": 1, "converge": 3},
        "crossSectionEdges": 3,
    }


def test_an_unknown_end_is_in_no_section():
    data = plan_spec(
        diverge=[widget("d1")],
        bindings=[
            binding("1", "ghost.out", "phantom.in"),  # None -> None: the same "section"
            binding("2", "d1.out", "ghost.in"),  # diverge -> None: crosses
        ],
    )
    assert graph(data)["crossSectionEdges"] == 1


def test_an_id_listed_in_two_sections_belongs_to_the_first():
    data = plan_spec(
        diverge=[widget("x")],
        organize=[widget("o1")],
        converge=[widget("x"), widget("c1")],
        bindings=[binding("1", "x.out", "c1.in"), binding("2", "x.out", "o1.in")],
    )
    result = graph(data)
    assert result["sectionNodeCounts"] == {"diverge": 1, "organize": 1, "converge": 2}
    assert result["crossSectionEdges"] == 2  # x counts as diverge, so both cross


def test_an_empty_plan_ui_spec_has_zero_sections():
    result = graph(plan_spec())
    assert result["sectionNodeCounts"] == {"diverge": 0, "organize": 0, "converge": 0}
    assert result["crossSectionEdges"] == 0
