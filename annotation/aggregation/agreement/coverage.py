"""Simulated coverage of the bootstrap CI of the axis kappa at a report's size and rater design.

Pure Python + numpy; no Django import. The Django side caches the result (``annotation.aggregation.coverage_cache``).

How often does the engine's 95% interval (:func:`annotation.aggregation.agreement.bootstrap_kappa_ci`) contain the
true kappa, for a batch of ``n_items`` items each rated by ``raters_per_item`` of ``n_raters`` annotators? The
answer depends on the data, so it is estimated under a known model that looks like sycophancy ratings:

* latent-trait model: item i has a trait ``t_i ~ N(0, 1)``; annotator r a fixed severity ``b_r`` (evenly spaced
  from -``SEVERITY_SPREAD`` to +``SEVERITY_SPREAD``); a rating is ``t_i + b_r + e`` with ``e ~ N(0, NOISE^2)``,
  cut at ``THRESHOLDS`` into 1..5 (skewed towards 1 = "Absent", as the real ratings are);
* each item gets ``raters_per_item`` annotators drawn without replacement, uniformly;
* the true value is the axis kappa (common-item-weighted mean of the pair kappas) of one very large batch
  (``POPULATION_ITEMS`` items) from the same model and design: computed once per design;
* ``n_sets`` batches of ``n_items`` items are drawn, each gets the engine's interval with ``n_boot`` replicates,
  and coverage is the share of intervals that contain the true value (a batch whose interval is undefined
  counts as not covering). Everything comes from ``numpy.random.default_rng(seed)``: same arguments, same result.

With the defaults the true kappa is about 0.66, between the seed's minimum 0.60 and target 0.80.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from annotation.aggregation.agreement.bootstrap import METHODS, bootstrap_kappa_ci
from annotation.aggregation.agreement.kappa import axis_kappa, pairwise_quadratic_kappa

MODEL = "latent-trait-v1"  # bump when the model below changes (it is part of every cache key)
THRESHOLDS = (-0.5, 0.3, 1.0, 1.7)
NOISE = 0.6
SEVERITY_SPREAD = 0.2
POPULATION_ITEMS = 200_000
N_SETS = 400
MIN_SETS = 100
#: Larger batches are not simulated (the cost grows with the items); their reports say so.
MAX_SIMULATED_ITEMS = 2_000
SEED = 20_260_330
#: Coverage under this share is reported as too low (for a nominal 95% interval).
MIN_COVERAGE = 0.93


@dataclass(frozen=True)
class Design:
    """What the simulation depends on: the batch's size and rater design, the interval asked for."""

    n_items: int
    n_raters: int
    raters_per_item: int
    n_boot: int
    method: str = "percentile"
    level: float = 0.95

    def __post_init__(self):
        if self.n_items < 2 or self.n_raters < 2:
            raise ValueError(f"need at least 2 items and 2 raters; got {self.n_items} and {self.n_raters}")
        if not 2 <= self.raters_per_item <= self.n_raters:
            raise ValueError(
                f"raters_per_item must be from 2 to n_raters ({self.n_raters}); got {self.raters_per_item}"
            )
        if self.n_boot < 1:
            raise ValueError(f"n_boot must be positive; got {self.n_boot}")
        if self.method not in METHODS:
            raise ValueError(f"method must be one of {METHODS}; got {self.method!r}")

    def key(self, n_sets: int = N_SETS, seed: int = SEED) -> str:
        """A cache key naming everything the result depends on."""
        return (
            f"ci-coverage:{MODEL}:{self.n_items}:{self.n_raters}:{self.raters_per_item}:{self.n_boot}:"
            f"{self.method}:{self.level}:{n_sets}:{seed}"
        )


def sets_for(n_items: int) -> int:
    """Simulated batches for a design of ``n_items`` items: N_SETS up to 200 items, then fewer (the same work)."""
    return max(MIN_SETS, min(N_SETS, N_SETS * 200 // max(1, n_items)))


def simulate_ratings(rng: np.random.Generator, n_items: int, n_raters: int, raters_per_item: int) -> np.ndarray:
    """One batch from the latent-trait model: (n_items, n_raters) ratings 1..5, 0 where the rater did not rate."""
    severity = np.linspace(-SEVERITY_SPREAD, SEVERITY_SPREAD, n_raters)
    trait = rng.standard_normal(n_items)
    latent = trait[:, None] + severity[None, :] + NOISE * rng.standard_normal((n_items, n_raters))
    scores = (np.searchsorted(np.asarray(THRESHOLDS), latent) + 1).astype(np.int8)
    # raters_per_item distinct raters per item: the smallest keys of a random permutation of each row
    chosen = np.argsort(rng.random((n_items, n_raters)), axis=1)[:, :raters_per_item]
    ratings = np.zeros_like(scores)
    rows = np.arange(n_items)[:, None]
    ratings[rows, chosen] = scores[rows, chosen]
    return ratings


def true_kappa(n_raters: int, raters_per_item: int, *, seed: int = SEED, n_items: int = POPULATION_ITEMS) -> float:
    """The axis kappa of the model for this rater design, from one batch of ``n_items`` items."""
    ratings = simulate_ratings(np.random.default_rng([seed, n_raters, raters_per_item]), n_items, n_raters,
                               raters_per_item)  # fmt: skip
    value, reason = axis_kappa(pairwise_quadratic_kappa(ratings))
    if value is None:
        raise ValueError(f"the model's kappa is undefined: {reason}")
    return value


@dataclass(frozen=True)
class Coverage:
    """Simulated coverage of one design: ``covered`` of ``n_sets`` intervals contained ``true_kappa``."""

    n_items: int
    n_raters: int
    raters_per_item: int
    n_boot: int
    method: str
    level: float
    true_kappa: float
    n_sets: int
    covered: int
    undefined: int
    mean_width: float | None
    seed: int
    model: str = MODEL

    @property
    def rate(self) -> float:
        return self.covered / self.n_sets

    @property
    def standard_error(self) -> float:
        return float(np.sqrt(self.rate * (1.0 - self.rate) / self.n_sets))

    @property
    def too_low(self) -> bool:
        return self.rate < MIN_COVERAGE

    def as_json(self) -> dict:
        return {**asdict(self), "rate": self.rate, "standard_error": self.standard_error, "too_low": self.too_low}


def simulate_coverage(design: Design, *, n_sets: int = N_SETS, seed: int = SEED) -> Coverage:
    """Coverage of the engine's interval for ``design``, from ``n_sets`` simulated batches (see the module)."""
    if n_sets < 1:
        raise ValueError(f"n_sets must be positive; got {n_sets}")
    truth = true_kappa(design.n_raters, design.raters_per_item, seed=seed)
    rng = np.random.default_rng([seed, design.n_items, design.n_raters, design.raters_per_item])
    covered = undefined = 0
    widths = []
    for s in range(n_sets):
        ratings = simulate_ratings(rng, design.n_items, design.n_raters, design.raters_per_item)
        low, high, _ = bootstrap_kappa_ci(ratings, n_boot=design.n_boot, seed=s, level=design.level,
                                          method=design.method)  # fmt: skip
        if low is None or high is None:
            undefined += 1
            continue
        covered += int(low <= truth <= high)
        widths.append(high - low)
    return Coverage(
        n_items=design.n_items,
        n_raters=design.n_raters,
        raters_per_item=design.raters_per_item,
        n_boot=design.n_boot,
        method=design.method,
        level=design.level,
        true_kappa=truth,
        n_sets=n_sets,
        covered=covered,
        undefined=undefined,
        mean_width=float(np.mean(widths)) if widths else None,
        seed=seed,
    )
