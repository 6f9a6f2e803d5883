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

``binding_types`` gives the type and reason of each binding (the trial graph colours its edges with it);
``classify_binding_types`` counts them into the metric.
"""

from __future__ import annotations

from layer3.metrics.spec import UISpec

_SYNC = ("sync", "Bidirectional dependency detected")
_VALIDATE = ("meta", "Validate mechanism")
_COMPLEXITY_CHECK = ("meta", "Complexity check enabled")
_FLOW = ("flow", "Unidirectional update")
_UNKNOWN = ("unknown", "Unknown binding pattern")


def binding_types(spec: UISpec) -> list[tuple[str, str]]:
    """The ``(type, reason)`` of each binding of ``spec``, in binding order (type: flow, meta, sync or unknown)."""
    sources = spec.source_widgets
    targets = spec.target_widgets
    # The TypeScript's reverseMap (target widget -> its source widgets) answers "is there a binding
    # targetWidget -> sourceWidget"; a set of (source, target) widget pairs answers the same.
    # The parser builds the three lists together, so no strict=True (its keyword costs 0.3 µs a call).
    edges = set(zip(sources, targets))  # noqa: B905
    types = []
    append = types.append
    for binding, source_widget, target_widget in zip(spec.bindings, sources, targets):  # noqa: B905
        if (target_widget, source_widget) in edges:
            append(_SYNC)
        elif (mechanism := binding.get("mechanism")) == "validate":
            append(_VALIDATE)
        elif binding.get("complexityCheck") is True:
            append(_COMPLEXITY_CHECK)
        elif mechanism == "update":
            append(_FLOW)
        else:
            append(_UNKNOWN)
    return types


def classify_binding_types(spec: UISpec) -> dict:
    """``W2WRTypeDistributionMetrics`` with ``bindingClassifications`` for the bindings of ``spec``."""
    bindings = spec.bindings
    types = binding_types(spec)
    classifications = [
        {
            "bindingId": binding["id"],
            "source": binding["source"],
            "target": binding["target"],
            "type": kind,
            "reason": reason,
        }
        for binding, (kind, reason) in zip(bindings, types)  # noqa: B905 - one per binding
    ]
    # binding_types returns the module's tuples, so list.count (C speed) counts them.
    flow = types.count(_FLOW)
    meta = types.count(_VALIDATE) + types.count(_COMPLEXITY_CHECK)
    sync = types.count(_SYNC)

    total = len(bindings) or 1  # zero-division guard of the seed: `bindings.length || 1`
    return {
        "totalBindings": len(bindings),
        "distribution": {"flow": flow, "meta": meta, "sync": sync, "unknown": len(bindings) - flow - meta - sync},
        "ratios": {"flow": flow / total, "meta": meta / total, "sync": sync / total},
        "bindingClassifications": classifications,
    }
