"""Statistical comparison of model configurations on the Layer3 metrics (seed 002 §7), pure Python with numpy
and scipy: no Django, DRF or Celery, and no statsmodels (the tests use it as the reference).

Modules:

- ``samples``: ``LAYER3_METRICS`` and ``model_samples``, one model config's samples from its stored trials, with
  the judges of its judged metrics and every trial's counts;
- ``mann_whitney``: ``mann_whitney_u``, = ``scipy.stats.mannwhitneyu(a, b, alternative="two-sided")``, with the
  rank-biserial correlation;
- ``proportions``: ``two_proportion_z``, = ``statsmodels...proportions_ztest`` (pooled), with Cohen's h;
  ``wald_difference``, = ``statsmodels...confint_proportions_2indep(method="wald")``;
- ``bootstrap``: the trial-level cluster bootstrap interval of a difference of pooled rates, and the design effect;
- ``corrections``: ``adjust_p_values`` (bonferroni, holm) = ``statsmodels...multipletests`` over the family
  (``parse_family``: "seed", "tests-run" or N), significance marks;
- ``comparisons``: ``compare_model_configs``, every metric for every pair of model configs, corrected, judged
  metrics only under one judge;
- ``outcome``: the result of one test and the reason codes of undefined tests (``REASON_CODES``).
- ``paired``: ``wilcoxon_signed_rank`` (= ``scipy.stats.wilcoxon``) and ``mcnemar`` (= statsmodels' ``mcnemar``,
  exact below 25 discordant pairs, chi-square with continuity correction otherwise), for two versions of one trial;
- ``trial_values``: one trial's figure of each metric and each item's verdict, keyed so versions can be paired;
- ``versions``: ``compare_versions`` (two runs or two batches per model config × metric, Bonferroni over
  11 × k) and ``changed_trials``.

Result dicts use camelCase keys, a public contract: keep them as they are.
"""

from layer3.statistics.comparisons import compare_metric, compare_model_configs
from layer3.statistics.corrections import (
    CORRECTIONS,
    DEFAULT_FAMILY,
    FAMILIES,
    adjust_p_values,
    check_family,
    parse_family,
)
from layer3.statistics.mann_whitney import mann_whitney_u
from layer3.statistics.outcome import REASON_CODES, TwoSampleResult
from layer3.statistics.proportions import two_proportion_z, wald_difference
from layer3.statistics.samples import LAYER3_METRICS, ModelSamples, ProportionCount, model_samples

__all__ = [
    "CORRECTIONS",
    "DEFAULT_FAMILY",
    "FAMILIES",
    "LAYER3_METRICS",
    "REASON_CODES",
    "ModelSamples",
    "ProportionCount",
    "TwoSampleResult",
    "adjust_p_values",
    "check_family",
    "compare_metric",
    "compare_model_configs",
    "mann_whitney_u",
    "model_samples",
    "parse_family",
    "two_proportion_z",
    "wald_difference",
]
