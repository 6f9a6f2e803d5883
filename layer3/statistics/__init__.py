"""Statistical comparison of model configurations on the Layer3 metrics (seed 002 §7), pure Python with numpy
and scipy: no Django, DRF or Celery, and no statsmodels (the tests use it as the reference).

Modules:

- ``samples``: ``LAYER3_METRICS`` and ``model_samples``, one model config's samples from its stored trials;
- ``mann_whitney``: ``mann_whitney_u``, = ``scipy.stats.mannwhitneyu(a, b, alternative="two-sided")``, with the
  rank-biserial correlation;
- ``proportions``: ``two_proportion_z``, = ``statsmodels...proportions_ztest`` (pooled), with Cohen's h;
- ``corrections``: ``adjust_p_values`` (bonferroni, holm) = ``statsmodels...multipletests``, significance marks;
- ``comparisons``: ``compare_model_configs``, every metric for every pair of model configs, corrected.

Result dicts use camelCase keys, a public contract: keep them as they are.
"""

from layer3.statistics.comparisons import compare_metric, compare_model_configs
from layer3.statistics.corrections import CORRECTIONS, adjust_p_values
from layer3.statistics.mann_whitney import mann_whitney_u
from layer3.statistics.outcome import TwoSampleResult
from layer3.statistics.proportions import two_proportion_z
from layer3.statistics.samples import LAYER3_METRICS, ModelSamples, ProportionCount, model_samples

__all__ = [
    "CORRECTIONS",
    "LAYER3_METRICS",
    "ModelSamples",
    "ProportionCount",
    "TwoSampleResult",
    "adjust_p_values",
    "compare_metric",
    "compare_model_configs",
    "mann_whitney_u",
    "model_samples",
    "two_proportion_z",
]
