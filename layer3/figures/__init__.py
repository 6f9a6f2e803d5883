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

import importlib

__all__ = ["FIGURES", "FORMATS", "Interval", "metric_interval", "render_figure", "t_interval", "wilson_interval"]

# matplotlib and scipy load on first use of a name, not when a submodule (``fonts``) or the package is imported
# (issue 31: the URLconf, and so every ``manage.py`` command's checks, imports the panel's views).
_WHERE = {
    **dict.fromkeys(("Interval", "metric_interval", "t_interval", "wilson_interval"), "intervals"),
    **dict.fromkeys(("FIGURES", "FORMATS", "render_figure"), "render"),
}


def __getattr__(name: str):
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_WHERE[name]}"), name)
