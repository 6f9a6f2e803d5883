"""Layer3 metric algorithms of seed 002 (§2, §3.1, §4), pure Python: no Django, DRF or Celery.

Modules:

- ``spec``: ``UISpec``, the parsed UISpec / PlanUISpec, and ``UISpecError``;
- ``parsing``: ``parse_ui_spec``, from a trial's ``generatedData`` to a ``UISpec`` (errors name the JSON path);
- ``extraction``: §4.1 generatedValue extraction, ``extract_generated_values``;
- ``w2wr``: §4.2 W2WR binding type classification, ``classify_binding_types``;
- ``graph``: §4.3 graph complexity, ``calculate_graph_complexity``;
- ``diversity``: §4.4 widget selection diversity (Shannon entropy), ``calculate_widget_diversity``;
- ``trial``: ``compute_trial_metrics``, the non-LLM part of one trial's ``Layer3MetricsV1``;
- ``jscompat``: where JavaScript and Python differ (``Math.round``, ``Object.keys`` order, ``toISOString``).

Result dicts use the seed's camelCase keys, a public contract: keep them as they are.
"""

from layer3.metrics.diversity import DEFAULT_AVAILABLE_WIDGET_COUNT, calculate_widget_diversity
from layer3.metrics.extraction import extract_generated_values
from layer3.metrics.graph import calculate_graph_complexity
from layer3.metrics.parsing import parse_ui_spec
from layer3.metrics.spec import UISpec, UISpecError
from layer3.metrics.trial import LAYER3_METRICS_VERSION, compute_trial_metrics
from layer3.metrics.w2wr import classify_binding_types

__all__ = [
    "DEFAULT_AVAILABLE_WIDGET_COUNT",
    "LAYER3_METRICS_VERSION",
    "UISpec",
    "UISpecError",
    "calculate_graph_complexity",
    "calculate_widget_diversity",
    "classify_binding_types",
    "compute_trial_metrics",
    "extract_generated_values",
    "parse_ui_spec",
]
