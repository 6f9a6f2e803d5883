"""Multiple-comparison corrections of p-values (seed 002 §7.2) and the significance marks.

``adjust_p_values(p, "bonferroni" | "holm")`` equals the ``pvals_corrected`` of
``statsmodels.stats.multitest.multipletests(p, method=...)`` (statsmodels itself is only used by the tests):

- bonferroni: min(1, p·m);
- holm (step-down): with the p-values sorted ascending, p_(i)·(m - i) for i = 0..m-1, made monotone by a running
  maximum, capped at 1, returned in the input order. Tied p-values get the same adjusted value.

m is the number of p-values given: the caller passes every performed test of one analysis.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

CORRECTIONS = ("bonferroni", "holm")


def check_correction(correction: object) -> str:
    """``correction`` itself if it is one of ``CORRECTIONS``; ValueError naming the accepted values otherwise."""
    if correction not in CORRECTIONS:
        accepted = ", ".join(repr(name) for name in CORRECTIONS)
        raise ValueError(f"correction must be one of {accepted}; got {correction!r}")
    return str(correction)


def adjust_p_values(p_values: Sequence[float], correction: str) -> list[float]:
    """The adjusted p-values (plain floats, input order) of ``p_values`` under ``correction``."""
    check_correction(correction)
    p = np.asarray(p_values, dtype=np.float64)
    if p.ndim != 1:
        raise ValueError(f"p_values must be one-dimensional; got shape {p.shape}")
    if p.size and not (np.all(p >= 0) and np.all(p <= 1)):
        raise ValueError(f"p_values must lie in [0, 1]; got {p[~((p >= 0) & (p <= 1))][0]!r}")
    m = p.size
    if correction == "bonferroni":
        adjusted = p * float(m)
    else:
        order = np.argsort(p, kind="stable")
        stepped = np.maximum.accumulate(p[order] * np.arange(m, 0, -1))
        adjusted = np.empty_like(p)
        adjusted[order] = stepped
    return np.minimum(adjusted, 1.0).tolist()


def adjusted_alpha(alpha: float, m: int, correction: str) -> float | None:
    """The per-test level: alpha/m for bonferroni, and for holm its first (smallest) step alpha/m; None if m = 0."""
    check_correction(correction)
    return alpha / m if m else None


def significance_mark(adjusted_p: float | None, alpha: float) -> str:
    """The mark "***" below 0.001, "**" below 0.01, "*" below ``alpha``, "" otherwise; only significant tests
    (adjusted p < alpha) get a mark, so with alpha below 0.01 the marks never contradict ``significant``."""
    if adjusted_p is None or not adjusted_p < alpha:
        return ""
    if adjusted_p < 0.001:
        return "***"
    if adjusted_p < 0.01:
        return "**"
    return "*"
