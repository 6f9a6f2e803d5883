"""Figures for papers from a batch's Layer3 results (seed 002 §2.1, §3.2), pure: matplotlib (Agg, no pyplot),
numpy and scipy, no Django, DRF or Celery.

``render_figure(name, trials_by_model, fmt=..., metric=..., language=..., batch_label=...)`` returns the bytes
of one figure:

- ``model-comparison``: one metric per model config, bars with 95% confidence intervals (Wilson score
  interval for the proportion metrics, t interval of the mean for the trial-mean metrics; ``intervals``);
- ``w2wr-types``: stacked bars of the binding-weighted flow / meta / sync / unknown shares per model config.

The figure of a judged metric (GV_CR, GV_UR, W2WR_SC, W2WR_CR) names its judge under the title (or under each
bar when the model configs' judges differ) and draws no bar for a model config judged by several judges.

Modules: ``intervals`` (the numbers), ``labels`` (the words, Japanese and English), ``fonts`` (CJK font
lookup with the English fallback, output settings), ``drawing`` (shared text helpers), ``model_comparison``
and ``w2wr_types`` (one figure each), ``render`` (validation, locking, saving).
"""

from layer3.figures.intervals import Interval, metric_interval, t_interval, wilson_interval
from layer3.figures.render import FIGURES, FORMATS, render_figure

__all__ = ["FIGURES", "FORMATS", "Interval", "metric_interval", "render_figure", "t_interval", "wilson_interval"]
