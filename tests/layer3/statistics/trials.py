"""Builders of stored ``Layer3MetricsV1`` trial dicts (seed 002 §3.1) for the statistics tests."""

import math
from collections import Counter

from layer3.metrics.provenance import PROMPTS

EVALUATED_AT = "2025-01-15T09:30:00.000Z"
GV_LABELS = {0: "notRelevant", 1: "generic", 2: "useful"}
SC_LABELS = {0: "wrong", 1: "redundant", 2: "correct"}


def judge_record(model="gpt-4o", kind="llm", block="gv"):
    """The ``judge`` of a judged block: ``{"kind", "model", "prompt"}``."""
    return {"kind": kind, "model": model, "prompt": PROMPTS[block]}


def judge_label(model="gpt-4o", kind="llm", block="gv"):
    """``layer3.metrics.provenance.judge_label`` of that record, written out."""
    return f"{kind}:{model}:{PROMPTS[block]}"


def gv_block(scores, *, extra_items=0, judge=None, legacy=False):
    """generatedValueRelevance for judge scores 0/1/2 of the evaluated items (``extra_items`` not evaluated),
    judged by ``judge`` (a record). ``legacy``: as stored before judges were recorded, with no ``judge`` and
    the seed's 0 (``|| 1``) instead of null for the averages of a block without evaluated items."""
    counts = Counter(scores)
    n = len(scores)
    empty = 0 if legacy else None
    block = {
        "totalItems": n + extra_items,
        "evaluatedItems": n,
        "distribution": {label: counts[score] for score, label in GV_LABELS.items()},
        "avgScore": sum(scores) / n if n else empty,
        "usefulRate": counts[2] / n if n else empty,
    }
    if not legacy:
        block["judge"] = judge or judge_record(block="gv")
    return block


def types_block(types):
    """w2wrTypeDistribution for binding types "flow" / "meta" / "sync" / "unknown"."""
    counts = Counter(types)
    total = len(types)
    return {
        "totalBindings": total,
        "distribution": {kind: counts[kind] for kind in ("flow", "meta", "sync", "unknown")},
        "ratios": {kind: counts[kind] / (total or 1) for kind in ("flow", "meta", "sync")},
    }


def sc_block(scores, *, judge=None, legacy=False):
    """w2wrSemanticCorrectness for judge scores 0/1/2 of the evaluated bindings (``judge``, ``legacy``: as in
    ``gv_block``)."""
    counts = Counter(scores)
    n = len(scores)
    empty = 0 if legacy else None
    block = {
        "evaluatedBindings": n,
        "distribution": {label: counts[score] for score, label in SC_LABELS.items()},
        "avgScore": sum(scores) / n if n else empty,
        "correctnessRate": counts[2] / n if n else empty,
    }
    if not legacy:
        block["judge"] = judge or judge_record(block="w2wr")
    return block


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


def layer3_trial(
    *, gv=None, types=None, sc=None, widgets=None, graph=None, judge="gpt-4o", judge_kind="llm", legacy=False
):
    """A stored trial: each argument, when given, adds its block (gv and sc: score lists; types: type list;
    widgets: component list; graph: (nodeCount, edgeCount)). The judged blocks are judged by the ``judge_kind``
    judge ``judge`` (a model name); ``legacy`` stores them as before judges were recorded."""
    trial = {"version": "1.0", "evaluatedAt": EVALUATED_AT}
    if gv is not None or sc is not None:
        trial["evaluatorModel"] = judge
    if gv is not None:
        trial["generatedValueRelevance"] = gv_block(gv, judge=judge_record(judge, judge_kind, "gv"), legacy=legacy)
    if types is not None:
        trial["w2wrTypeDistribution"] = types_block(types)
    if sc is not None:
        trial["w2wrSemanticCorrectness"] = sc_block(sc, judge=judge_record(judge, judge_kind, "w2wr"), legacy=legacy)
    if widgets is not None:
        trial["widgetDiversity"] = diversity_block(widgets)
    if graph is not None:
        trial["graphComplexity"] = graph_block(*graph)
    return trial


def error_trial(message="LLM judge timed out"):
    return {"error": message}
