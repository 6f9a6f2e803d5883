"""Graph complexity of a UISpec (seed 002 §4.3 ``calculateGraphComplexity``; §2.2.5, §3.1 types).

Widgets are nodes, reactive bindings directed edges, both counted as listed (duplicates included):

- ``density = edgeCount / (nodeCount * (nodeCount - 1))``, 0 when the denominator is 0 (no widget or a
  single one), rounded to 4 decimals. It exceeds 1 when bindings repeat, loop, or name unknown widgets;
- each binding adds 1 to the degree of its source widget and 1 to its target widget, also when the
  widget id is not among the widgets (the TypeScript's degreeMap takes any id). So ``avgDegree`` is
  ``2 * edgeCount / nodeCount`` (0 without widgets), rounded to 2 decimals, and ``maxDegree`` is the
  largest degree of any id, listed or not (0 when there is none);
- for a PlanUISpec, ``sectionNodeCounts`` and ``crossSectionEdges``: bindings whose two ends lie in
  different sections, where an id belongs to the first section listing it (diverge, organize, converge)
  and an unknown id to none; so a binding between two unknown ids is not cross-section, one between a
  known and an unknown id is. A UISpec has neither key (the TypeScript sets them to undefined, which
  ``JSON.stringify`` drops).

Rounding is JavaScript's ``Math.round`` (``jscompat.js_round``), which takes halves up, not to even.
"""

from __future__ import annotations

from operator import ne

from layer3.metrics.jscompat import js_round
from layer3.metrics.spec import UISpec


def calculate_graph_complexity(spec: UISpec) -> dict:
    """``GraphComplexityMetrics`` of ``spec``."""
    node_count = len(spec.widgets)
    edge_count = len(spec.bindings)

    max_possible_edges = node_count * (node_count - 1)  # directed graph
    density = edge_count / max_possible_edges if max_possible_edges > 0 else 0

    sources = spec.source_widgets
    targets = spec.target_widgets
    # The TypeScript's degreeMap starts every widget at 0 and adds 1 per binding end. Widgets without a
    # binding matter only when there is no binding at all, and then the maximum is 0 either way.
    degree: dict[str, int] = {}
    get = degree.get
    for widget_id in sources:
        degree[widget_id] = get(widget_id, 0) + 1
    for widget_id in targets:
        degree[widget_id] = get(widget_id, 0) + 1
    max_degree = max(degree.values()) if degree else 0
    # The degrees sum to 2 * edgeCount whatever the ids are, so this is the TypeScript's reduce / nodeCount
    # (and §2.2.5's definition).
    avg_degree = 2 * edge_count / node_count if node_count > 0 else 0

    metrics = {
        "nodeCount": node_count,
        "edgeCount": edge_count,
        "density": js_round(density, 4),
        "avgDegree": js_round(avg_degree, 2),
        "maxDegree": max_degree,
    }
    sections = spec.sections
    if sections is not None:
        diverge, organize, converge = sections["diverge"], sections["organize"], sections["converge"]
        metrics["sectionNodeCounts"] = {"diverge": len(diverge), "organize": len(organize), "converge": len(converge)}
        # Filled from the last section to the first, so an id listed twice ends up in its first section,
        # like the TypeScript's divergeIds ? : organizeIds ? : convergeIds chain; unknown ids get None.
        section_of: dict[str, str] = {}
        for name, widgets in (("converge", converge), ("organize", organize), ("diverge", diverge)):
            for widget in widgets:
                section_of[widget["id"]] = name
        metrics["crossSectionEdges"] = sum(map(ne, map(section_of.get, sources), map(section_of.get, targets)))
    return metrics
