"""Widget selection diversity (seed 002 §4.4 ``calculateWidgetDiversity``; §2.2.4, §3.1 types).

Counts the widgets per component type and takes the Shannon entropy ``H = -Σ p log2 p`` of those
counts; ``maxEntropy = log2(availableWidgetCount)`` (15 widget types by default) and
``normalizedEntropy = H / maxEntropy`` (0 when maxEntropy is 0), all three rounded to 4 decimals with
JavaScript's ``Math.round`` (halves up). Nothing is clamped: a spec using more component types than
``availableWidgetCount`` gets a normalized entropy above 1, as in the TypeScript.

``widgetCounts`` and ``selectedWidgets`` follow JavaScript's key order (``Object.keys``): component
names that are array indices ("3") first, in numeric order, then the rest in order of first appearance;
the entropy sums in that order too, as ``Object.values`` does, so the floats agree to the last bit.
The TypeScript's plain-object counter would mangle component names inherited from
``Object.prototype`` ("constructor", "__proto__"); they are counted as ordinary names here.
"""

from __future__ import annotations

from math import log2

from layer3.metrics.jscompat import js_key_order, js_round
from layer3.metrics.spec import UISpec

DEFAULT_AVAILABLE_WIDGET_COUNT = 15


def calculate_widget_diversity(spec: UISpec, available_widget_count: int = DEFAULT_AVAILABLE_WIDGET_COUNT) -> dict:
    """``WidgetDiversityMetrics`` of ``spec``."""
    if type(available_widget_count) is not int:  # not isinstance: a bool is an int too
        raise TypeError(f"availableWidgetCount must be an integer, not {type(available_widget_count).__name__}")
    if available_widget_count < 1:
        # JavaScript would return maxEntropy -Infinity (for 0) or NaN, which JSON cannot hold; Python's
        # log2 raises instead. Neither is a number of widget types, so refuse it here.
        raise ValueError(f"availableWidgetCount must be at least 1, not {available_widget_count}")

    counts: dict[str, int] = {}
    for widget in spec.widgets:
        component = widget["component"]
        counts[component] = counts.get(component, 0) + 1
    order = js_key_order(counts)
    if order is not counts:
        counts = {component: counts[component] for component in order}

    total = len(spec.widgets)
    entropy = 0.0
    if total > 0:
        for count in counts.values():
            p = count / total  # every count is at least 1, so the TypeScript's `if (p > 0)` always holds
            entropy -= p * log2(p)

    max_entropy = log2(available_widget_count)
    normalized_entropy = entropy / max_entropy if max_entropy > 0 else 0
    return {
        "selectedWidgets": list(counts),
        "widgetCounts": counts,
        "uniqueWidgetCount": len(counts),
        "entropy": js_round(entropy, 4),
        "normalizedEntropy": js_round(normalized_entropy, 4),
        "maxEntropy": js_round(max_entropy, 4),
    }
