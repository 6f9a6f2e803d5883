"""Builders of stored ``Layer3MetricsV1`` trial dicts (seed 002 §3.1) for the statistics tests."""

import math
from collections import Counter

EVALUATED_AT = "2025-01-15T09:30:00.000Z"
GV_LABELS = {0: "notRelevant", 1: "generic", 2: "useful"}
SC_LABELS = {0: "wrong", 1: "redundant", 2: "correct"}


def gv_block(scores, *, extra_items=0):
    """generatedValueRelevance for judge scores 0/1/2 of the evaluated items (``extra_items`` not evaluated)."""
    counts = Counter(scores)
    n = len(scores)
    return {
        "totalItems": n + extra_items,
        "evaluatedItems": n,
        "distribution": {label: counts[score] for score, label in GV_LABELS.items()},
        "avgScore": sum(scores) / n if n else 0,
        "usefulRate": counts[2] / n if n else 0,
    }


def types_block(types):
    """w2wrTypeDistribution for binding types "flow" / "meta" / "sync" / "unknown"."""
    counts = Counter(types)
    total = len(types)
    return {
        "totalBindings": total,
        "distribution": {kind: counts[kind] for kind in ("flow", "meta", "sync", "unknown")},
        "ratios": {kind: counts[kind] / (total or 1) for kind in ("flow", "meta", "sync")},
    }


def sc_block(scores):
    """w2wrSemanticCorrectness for judge scores 0/1/2 of the evaluated bindings."""
    counts = Counter(scores)
    n = len(scores)
    return {
        "evaluatedBindings": n,
        "distribution": {label: counts[score] for score, label in SC_LABELS.items()},
        "avgScore": sum(scores) / n if n else 0,
        "correctnessRate": counts[2] / n if n else 0,
    }


def diversity_block(components, available=10):
    counts = Counter(components)
    total = len(components)
    entropy = -sum(c / total * math.log2(c / total) for c in counts.values()) if total else 0.0
    return {
        "selectedWidgets": list(components),
        "widgetCounts": dict(counts),
        "uniqueWidgetCount": len(counts),
        "entropy": round(entropy, 4),
        "normalizedEntropy": round(entropy / math.log2(available), 4),
        "maxEntropy": round(math.log2(available), 4),
    }


def graph_block(node_count, edge_count):
    possible = node_count * (node_count - 1)
    return {
        "nodeCount": node_count,
        "edgeCount": edge_count,
        "density": round(edge_count / possible, 4) if possible else 0,
        "avgDegree": round(2 * edge_count / node_count, 2) if node_count else 0,
        "maxDegree": min(edge_count, 2 * max(node_count - 1, 0)),
    }


def layer3_trial(*, gv=None, types=None, sc=None, widgets=None, graph=None, judge="gpt-4o"):
    """A stored trial: each argument, when given, adds its block (gv and sc: score lists; types: type list;
    widgets: component list; graph: (nodeCount, edgeCount))."""
    trial = {"version": "1.0", "evaluatedAt": EVALUATED_AT}
    if gv is not None or sc is not None:
        trial["evaluatorModel"] = judge
    if gv is not None:
        trial["generatedValueRelevance"] = gv_block(gv)
    if types is not None:
        trial["w2wrTypeDistribution"] = types_block(types)
    if sc is not None:
        trial["w2wrSemanticCorrectness"] = sc_block(sc)
    if widgets is not None:
        trial["widgetDiversity"] = diversity_block(widgets)
    if graph is not None:
        trial["graphComplexity"] = graph_block(*graph)
    return trial


def error_trial(message="LLM judge timed out"):
    return {"error": message}
