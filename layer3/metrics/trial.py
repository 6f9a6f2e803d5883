"""The non-LLM part of one trial's Layer3 metrics (seed 002 §6.1 ``calculateMetrics``, §3.1 ``Layer3MetricsV1``).

``compute_trial_metrics`` parses ``generatedData`` once and returns a ``Layer3MetricsV1`` dict with
``version``, ``evaluatedAt`` and, unless switched off like the seed's ``evaluateComplexity`` /
``evaluateDiversity`` / ``evaluateW2WRType`` options, ``graphComplexity``, ``widgetDiversity`` and
``w2wrTypeDistribution``, in the TypeScript's key order. The judge fields (``evaluatorModel``,
``generatedValueRelevance``, ``w2wrSemanticCorrectness``) are optional in the type and left absent;
the judge step adds them.

Where the TypeScript's ``parseUISpec`` returns null and ``calculateMetrics`` then stores only version
and timestamp, this raises ``UISpecError`` with the JSON path, so the caller records why a trial has
no metrics instead of storing an empty result.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime

from layer3.metrics.diversity import DEFAULT_AVAILABLE_WIDGET_COUNT, calculate_widget_diversity
from layer3.metrics.graph import calculate_graph_complexity
from layer3.metrics.jscompat import js_iso_now, js_iso_timestamp
from layer3.metrics.parsing import parse_ui_spec
from layer3.metrics.spec import UISpec
from layer3.metrics.w2wr import classify_binding_types

LAYER3_METRICS_VERSION = "1.0"


def compute_trial_metrics(
    generated_data: object,
    *,
    evaluated_at: datetime | None = None,
    evaluate_complexity: bool = True,
    evaluate_diversity: bool = True,
    evaluate_w2wr_type: bool = True,
    available_widget_count: int = DEFAULT_AVAILABLE_WIDGET_COUNT,
    catalogue: Collection[str] | None = None,
    available_types: Collection[str] | None = None,
    spec: UISpec | None = None,
) -> dict:
    """``Layer3MetricsV1`` without the judge fields for one trial's ``generatedData`` (decoded JSON).

    ``evaluated_at`` (timezone-aware, default now) becomes ``evaluatedAt`` as JavaScript's
    ``toISOString`` writes it. ``catalogue``: the batch's catalogue (``layer3.metrics.catalogue``);
    ``available_types``: the batch's widget types, catalogue and those its trials use outside it
    (``layer3.metrics.widget_types``), whose number is ``|W|``.
    ``spec``: the data already parsed, to parse it once. Raises ``layer3.metrics.UISpecError`` for data
    that is not a UISpec.
    """
    if spec is None:
        spec = parse_ui_spec(generated_data)
    metrics: dict = {
        "version": LAYER3_METRICS_VERSION,
        "evaluatedAt": js_iso_now() if evaluated_at is None else js_iso_timestamp(evaluated_at),
    }
    if evaluate_complexity:
        metrics["graphComplexity"] = calculate_graph_complexity(spec)
    if evaluate_diversity:
        metrics["widgetDiversity"] = calculate_widget_diversity(
            spec, available_widget_count, catalogue=catalogue, available_types=available_types
        )
    if evaluate_w2wr_type:
        metrics["w2wrTypeDistribution"] = classify_binding_types(spec)
    return metrics
