"""Multiple-comparison corrections of p-values (seed 002 §7.2), the family they correct for, and the marks.

``adjust_p_values(p, "bonferroni" | "holm", m)`` equals the ``pvals_corrected`` of
``statsmodels.stats.multitest.multipletests(p + [1.0] * (m - len(p)), method=...)``, restricted to the given
p-values (statsmodels itself is only used by the tests):

- bonferroni: min(1, p·m);
- holm (step-down): with the p-values sorted ascending, p_(i)·(m - i) for i = 0..k-1, made monotone by a running
  maximum, capped at 1, returned in the input order. Tied p-values get the same adjusted value.

m is the size of the family, at least the k p-values given (by default exactly k). With m > k the other m - k
hypotheses of the family were not tested; Holm treats them as p = 1, which sort last and so never lower an
adjusted p-value.

The family (``check_family``, ``parse_family``, ``family_size``):

- ``"seed"``: the seed's family, every metric for every pair of the model configs compared, 11 × C(k, 2)
  (110 for five configs, α' = 0.05/110; seed 002 §7.2), whichever tests could be performed;
- ``"tests-run"``: the tests performed (those with a p-value);
- a whole number N ≥ 1: N, which must be at least the tests performed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from numbers import Integral

import numpy as np

CORRECTIONS = ("bonferroni", "holm")
FAMILIES = ("seed", "tests-run")
DEFAULT_FAMILY = "seed"
_ACCEPTED_FAMILIES = "'seed', 'tests-run' or a whole number of tests (at least 1)"


def check_correction(correction: object) -> str:
    """``correction`` itself if it is one of ``CORRECTIONS``; ValueError naming the accepted values otherwise."""
    if correction not in CORRECTIONS:
        accepted = ", ".join(repr(name) for name in CORRECTIONS)
        raise ValueError(f"correction must be one of {accepted}; got {correction!r}")
    return str(correction)


def check_family(family: object) -> str | int:
    """``family`` as a plain str or int if it is "seed", "tests-run" or an integer ≥ 1 (not a bool, not a float);
    ValueError naming what is accepted otherwise."""
    if isinstance(family, str) and family in FAMILIES:
        return family
    if isinstance(family, Integral) and not isinstance(family, bool) and family >= 1:
        return int(family)
    raise ValueError(f"family must be {_ACCEPTED_FAMILIES}; got {family!r}")


def parse_family(text: str | int) -> str | int:
    """The family written as text ("seed", "tests-run", "110"; surrounding blanks and letter case ignored), or
    an int or family name given as is; ValueError naming what is accepted otherwise ("0", "-5", "1.5", "1e3")."""
    if not isinstance(text, str):
        return check_family(text)
    word = text.strip().lower()
    if word in FAMILIES:
        return word
    if re.fullmatch(r"[0-9]+", word) and int(word) >= 1:
        return int(word)
    raise ValueError(f"family must be {_ACCEPTED_FAMILIES}; got {text!r}")


def family_size(family: str | int, *, seed_size: int, performed: int) -> int:
    """m of ``family``: ``seed_size`` (11 × C(k, 2)) for "seed", ``performed`` for "tests-run", N for N.

    ValueError when N is smaller than the ``performed`` tests, naming both numbers.
    """
    family = check_family(family)
    if family == "seed":
        return seed_size
    if family == "tests-run":
        return performed
    if family < performed:
        raise ValueError(
            f"family {family} is smaller than the {performed} tests performed; "
            f"a family must hold every test it corrects ('tests-run' uses {performed})"
        )
    return family


def adjust_p_values(p_values: Sequence[float], correction: str, m: int | None = None) -> list[float]:
    """The adjusted p-values (plain floats, input order) of ``p_values`` under ``correction`` in a family of
    ``m`` hypotheses (default: as many as p-values; ValueError when m is smaller)."""
    check_correction(correction)
    p = np.asarray(p_values, dtype=np.float64)
    if p.ndim != 1:
        raise ValueError(f"p_values must be one-dimensional; got shape {p.shape}")
    if p.size and not (np.all(p >= 0) and np.all(p <= 1)):
        raise ValueError(f"p_values must lie in [0, 1]; got {p[~((p >= 0) & (p <= 1))][0]!r}")
    k = p.size
    if m is None:
        m = k
    elif isinstance(m, bool) or not isinstance(m, Integral) or m < k:
        raise ValueError(f"m must be an integer at least the {k} p-values given; got {m!r}")
    if correction == "bonferroni":
        adjusted = p * float(m)
    else:
        order = np.argsort(p, kind="stable")
        stepped = np.maximum.accumulate(p[order] * np.arange(m, m - k, -1, dtype=np.float64))
        adjusted = np.empty_like(p)
        adjusted[order] = stepped
    return np.minimum(adjusted, 1.0).tolist()


def adjusted_alpha(alpha: float, m: int, correction: str) -> float | None:
    """The per-test level of a family of m: alpha/m for bonferroni, and for holm its first (smallest) step alpha/m;
    None if m = 0."""
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
