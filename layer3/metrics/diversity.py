"""Widget selection diversity (seed 002 §4.4 ``calculateWidgetDiversity``; §2.2.4, §3.1 types).

Counts the widgets per component type and takes the Shannon entropy ``H = -Σ p log2 p`` of those
counts; ``maxEntropy = log2(|W|)`` and ``normalizedEntropy = H / maxEntropy`` (0 when maxEntropy is 0),
all three rounded to 4 decimals with JavaScript's ``Math.round`` (halves up).

``|W|`` is the number of available widget types. For a trial of a batch it is the batch's one
denominator (``layer3.metrics.widget_types``): its catalogue (``layer3.metrics.catalogue``; 15 types by
default, as in the seed) together with every type any trial of the batch uses outside it, since the
generator evidently could choose those; every trial of a batch is normalised by the same ``|W|``, and
``availableWidgetCount`` says which. ``outOfCatalogue`` (a key the seed does not have) lists the types
of this trial outside the catalogue. The normalised entropy never exceeds 1 (the TypeScript, given only
a count, would report more than 1). Where no trial of the batch uses a type outside the catalogue,
every figure equals the TypeScript's with ``availableWidgetCount = |catalogue|``. Given a catalogue
but not the batch's types, the trial is its own batch: ``|W|`` is the catalogue and the types of this
trial outside it. Given only a count (no catalogue), ``|W|`` is the larger of the count and the number
of types used.

``widgetCounts`` and ``selectedWidgets`` follow JavaScript's key order (``Object.keys``): component
names that are array indices ("3") first, in numeric order, then the rest in order of first appearance;
the entropy sums in that order too, as ``Object.values`` does, so the floats agree to the last bit.
The TypeScript's plain-object counter would mangle component names inherited from
``Object.prototype`` ("constructor", "__proto__"); they are counted as ordinary names here.
"""

from __future__ import annotations

from collections.abc import Collection
from math import log2

from layer3.metrics.catalogue import DEFAULT_WIDGET_TYPES
from layer3.metrics.jscompat import js_key_order, js_round
from layer3.metrics.spec import UISpec

DEFAULT_AVAILABLE_WIDGET_COUNT = len(DEFAULT_WIDGET_TYPES)


def calculate_widget_diversity(
    spec: UISpec,
    available_widget_count: int = DEFAULT_AVAILABLE_WIDGET_COUNT,
    *,
    catalogue: Collection[str] | None = None,
    available_types: Collection[str] | None = None,
) -> dict:
    """``WidgetDiversityMetrics`` of ``spec``, with ``availableWidgetCount`` (the ``|W|`` used) and ``outOfCatalogue``.

    ``catalogue``: the batch's catalogue, the types ``outOfCatalogue`` is measured against.
    ``available_types``: the batch's types, catalogue and every type its trials use outside it
    (``layer3.metrics.widget_types.available_types``; a set is used as it is, anything else is made one);
    ``|W|`` is their number. Either wins over ``available_widget_count``.
    """
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

    outside: list[str] = []
    if catalogue is not None:
        outside = [component for component in counts if component not in catalogue]
    pool = available_types if available_types is not None else catalogue
    if pool is not None:
        known = pool if isinstance(pool, set | frozenset) else frozenset(pool)
        # A batch's types hold every type of its trials; a trial outside them (a batch record that
        # missed it) still counts its own, so the normalised entropy stays at most 1.
        types = len(known) + sum(1 for component in counts if component not in known)
        if types < 1:
            raise ValueError("availableWidgetCount must be at least 1: the catalogue lists no widget type")
    else:
        types = max(available_widget_count, len(counts))
    max_entropy = log2(types)
    normalized_entropy = entropy / max_entropy if max_entropy > 0 else 0
    return {
        "selectedWidgets": list(counts),
        "widgetCounts": counts,
        "uniqueWidgetCount": len(counts),
        "entropy": js_round(entropy, 4),
        "normalizedEntropy": js_round(normalized_entropy, 4),
        "maxEntropy": js_round(max_entropy, 4),
        "availableWidgetCount": types,
        "outOfCatalogue": outside,
    }
