"""W2WR binding type classification (seed 002 §4.2 ``classifyBindingTypes``; types of §3.1).

Each reactive binding is, in this order of precedence:

1. ``sync`` when a binding runs the other way between the same two widgets (any ports). A binding from
   a widget to itself is its own reverse, so self-references are ``sync`` too, as in the TypeScript;
2. ``meta`` when ``mechanism == "validate"`` (reason "Validate mechanism"), else when
   ``complexityCheck is True`` (reason "Complexity check enabled"): validate wins when both hold;
3. ``flow`` when ``mechanism == "update"``;
4. ``unknown`` otherwise (another or no mechanism).

§4.2 supersedes the sketch in §2.2.2, which has no ``unknown`` and calls every other binding ``flow``.
Ratios divide by ``len(bindings) or 1`` (the TypeScript's ``|| 1``), so no bindings give ratios of 0,
and are not rounded; ``unknown`` has a count but no ratio, as in ``W2WRTypeDistributionMetrics``.
"""

from __future__ import annotations

from layer3.metrics.spec import UISpec

_SYNC = ("sync", "Bidirectional dependency detected")
_VALIDATE = ("meta", "Validate mechanism")
_COMPLEXITY_CHECK = ("meta", "Complexity check enabled")
_FLOW = ("flow", "Unidirectional update")
_UNKNOWN = ("unknown", "Unknown binding pattern")


def classify_binding_types(spec: UISpec) -> dict:
    """``W2WRTypeDistributionMetrics`` with ``bindingClassifications`` for the bindings of ``spec``."""
    bindings = spec.bindings
    sources = spec.source_widgets
    targets = spec.target_widgets
    # The TypeScript's reverseMap (target widget -> its source widgets) answers "is there a binding
    # targetWidget -> sourceWidget"; a set of (source, target) widget pairs answers the same.
    # The parser builds the three lists together, so no strict=True (its keyword costs 0.3 µs a call).
    edges = set(zip(sources, targets))  # noqa: B905
    flow = meta = sync = unknown = 0
    classifications = []
    append = classifications.append
    for binding, source_widget, target_widget in zip(bindings, sources, targets):  # noqa: B905
        if (target_widget, source_widget) in edges:
            sync += 1
            kind, reason = _SYNC
        elif (mechanism := binding.get("mechanism")) == "validate":
            meta += 1
            kind, reason = _VALIDATE
        elif binding.get("complexityCheck") is True:
            meta += 1
            kind, reason = _COMPLEXITY_CHECK
        elif mechanism == "update":
            flow += 1
            kind, reason = _FLOW
        else:
            unknown += 1
            kind, reason = _UNKNOWN
        append(
            {
                "bindingId": binding["id"],
                "source": binding["source"],
                "target": binding["target"],
                "type": kind,
                "reason": reason,
            }
        )

    total = len(bindings) or 1  # zero-division guard of the seed: `bindings.length || 1`
    return {
        "totalBindings": len(bindings),
        "distribution": {"flow": flow, "meta": meta, "sync": sync, "unknown": unknown},
        "ratios": {"flow": flow / total, "meta": meta / total, "sync": sync / total},
        "bindingClassifications": classifications,
    }
