"""An LLM rater's agreement with the human annotators, per axis (issue 18, pure: no Django).

For each LLM rater and axis: its quadratic weighted kappa with every human annotator on their common items
(exactly ``sklearn.metrics.cohen_kappa_score(llm, human, weights="quadratic", labels=[1, 2, 3, 4, 5])``), and
its kappa vs the humans as a group: the common-item-weighted mean of those pair kappas, the same leave-one-out
mean the engine reports as ``kappa_vs_rest`` but over human partners only (the LLM is put beside the humans
alone, never beside another LLM). Its 95% CI is a percentile bootstrap over the items the LLM rated with at
least one human, with the engine's shortcut (multinomial draws over distinct item patterns, five sums per
pair) and the engine's rule: replicates with an undefined kappa are dropped, and more than half dropped
leaves no interval. The human-human part of the report is not touched: this is a separate section.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from annotation.aggregation.agreement import leave_one_out_kappa, pairwise_quadratic_kappa
from annotation.aggregation.agreement.bootstrap import kappa_from_sums, unique_patterns
from annotation.aggregation.agreement.core import CATEGORIES, MISSING, check_ratings
from annotation.axes import AXES

MIN_COMMON = 2
_CHUNK_ELEMENTS = 4_000_000  # bound on replicates x patterns drawn at once


def _aligned(item_ids: Sequence[str], other_ids: Sequence[str], other: np.ndarray, missing: int) -> np.ndarray:
    """``other``'s rows (keyed by ``other_ids``) placed on the rows of ``item_ids``; absent items are missing."""
    row_of = {item: r for r, item in enumerate(item_ids)}
    out = np.full((len(item_ids), other.shape[1]), missing, dtype=other.dtype)
    pairs = [(row_of[item], r) for r, item in enumerate(other_ids) if item in row_of]
    if pairs:
        rows, source = (np.asarray(x, dtype=np.int64) for x in zip(*pairs, strict=True))
        out[rows] = other[source]
    return out


def _pair_json(a: Any, b: Any, n: int, kappa: float, reason: str | None) -> dict:
    value = None if np.isnan(kappa) else float(kappa)
    return {"annotators": [a, b], "n_items": int(n), "kappa": value, "reason": reason}


def vs_humans_ci(
    humans: np.ndarray,
    llm: np.ndarray,
    *,
    n_boot: int,
    seed: int,
    level: float = 0.95,
    categories: Sequence[int] = CATEGORIES,
    missing: int = MISSING,
    min_common: int = MIN_COMMON,
) -> tuple[float | None, float | None, str | None]:
    """Percentile bootstrap CI (over items) of the LLM's kappa vs the humans; ``(low, high, reason)`` as
    ``bootstrap_kappa_ci``. ``humans`` is (items, humans), ``llm`` the LLM's column (items,)."""
    idx, _ = check_ratings(np.column_stack([humans, llm]), categories, missing=missing)
    human_idx, llm_idx = idx[:, :-1], idx[:, -1]
    keep = (llm_idx >= 0) & (human_idx >= 0).any(axis=1)
    n_items = int(keep.sum())
    if n_items == 0:
        return None, None, "no item has two or more ratings, so there is nothing to resample"
    patterns, frequency = unique_patterns(idx[keep])
    a = patterns[:, -1:].astype(np.float64)  # the LLM's category index, per pattern
    b = patterns[:, :-1].astype(np.float64)  # each human's, per pattern (negative = not rated)
    both = patterns[:, :-1] >= 0
    # The five kappa sums of each (pattern, human) pair: n, sum a, sum b, sum a^2 + b^2, sum (a - b)^2.
    stats = np.stack([both, a * both, b * both, (a * a + b * b) * both, (a - b) ** 2 * both]).astype(np.float64)

    def kappas(counts: np.ndarray) -> np.ndarray:
        return kappa_from_sums(np.einsum("rp,sph->rsh", counts.astype(np.float64), stats), min_common)

    if np.isnan(kappas(frequency[None, :])[0]):
        return None, None, "kappa is undefined on the full data, so it has no bootstrap interval"
    rng = np.random.default_rng(seed)
    chunk = max(1, _CHUNK_ELEMENTS // patterns.shape[0])
    values = np.concatenate(
        [
            kappas(rng.multinomial(n_items, frequency / n_items, size=min(chunk, int(n_boot) - start)))
            for start in range(0, int(n_boot), chunk)
        ]
    )
    defined = values[~np.isnan(values)]
    dropped = int(n_boot) - defined.size
    if dropped * 2 > n_boot:
        return None, None, f"kappa was undefined in {dropped} of {n_boot} bootstrap replicates (more than half)"
    low, high = np.quantile(defined, [(1.0 - level) / 2.0, (1.0 + level) / 2.0])
    note = f"{dropped} of {n_boot} bootstrap replicates had an undefined kappa and were dropped" if dropped else None
    return float(low), float(high), note


def llm_vs_humans(
    humans: np.ndarray,
    human_ids: Sequence[Any],
    llm: np.ndarray,
    *,
    n_boot: int,
    seed: int,
    categories: Sequence[int] = CATEGORIES,
    missing: int = MISSING,
) -> dict[str, Any]:
    """One LLM's agreement with the humans on one axis; ``humans`` (items, humans) and ``llm`` (items,) share rows."""
    matrix = np.column_stack([humans, llm])
    column = matrix.shape[1] - 1
    pairwise = pairwise_quadratic_kappa(matrix, categories=categories, missing=missing, min_common=MIN_COMMON)
    kappa, reason = leave_one_out_kappa(pairwise, matrix.shape[1])[column]
    mine = np.flatnonzero(pairwise.rater_b == column)  # the LLM is the last column, so always rater b
    pairs = [
        {
            "annotator": human_ids[int(pairwise.rater_a[p])],  # the human partner
            "n_items": int(pairwise.n_common[p]),
            "kappa": None if np.isnan(pairwise.kappa[p]) else float(pairwise.kappa[p]),
            "reason": pairwise.reason[p],
        }
        for p in mine
    ]
    ci95 = None
    if kappa is not None and n_boot:
        low, high, ci_reason = vs_humans_ci(
            humans, llm, n_boot=n_boot, seed=seed, categories=categories, missing=missing
        )
        if low is None:
            reason = f"95% CI unavailable: {ci_reason}"
        else:
            ci95 = [low, high]
    idx, _ = check_ratings(matrix, categories, missing=missing)
    with_humans = (idx[:, -1] >= 0) & (idx[:, :-1] >= 0).any(axis=1)
    return {
        "kappa_vs_humans": kappa,
        "ci95": ci95,
        "reason": reason,
        "n_items": int(with_humans.sum()),
        "n_ratings": int(np.sum(idx[:, -1] >= 0)),
        "pairs": pairs,
    }


def llm_agreement(
    human_items: Sequence[str],
    human_ids: Sequence[Any],
    human_scores: Mapping[str, np.ndarray],
    llm_items: Sequence[str],
    llm_ids: Sequence[Any],
    llm_scores: Mapping[str, np.ndarray],
    *,
    labels: Mapping[Any, str] | None = None,
    n_boot: int = 1000,
    seed: int = 0,
    axes: Sequence[str] = AXES,
    categories: Sequence[int] = CATEGORIES,
    missing: int = MISSING,
) -> dict[str, Any]:
    """The ``llm_raters`` section of an agreement report (strict JSON: no NaN, no numpy types).

    ``human_scores[axis]`` is (len(human_items), len(human_ids)) and ``llm_scores[axis]`` (len(llm_items),
    len(llm_ids)), as ``RatingSet.scores`` (``missing`` where not rated); items are matched by id. Per axis:
    each LLM's pairs with every human it shares an item with, its kappa vs the humans with a CI, and the
    pairs between LLM raters (so that a heat map can fill every cell).
    """
    labels = labels or {}
    raters = [{"annotator": r, "label": labels.get(r, str(r))} for r in llm_ids]
    section: dict[str, Any] = {"raters": raters, "bootstrap": {"replicates": n_boot, "seed": seed}, "axes": {}}
    for axis in axes:
        llm = _aligned(human_items, llm_items, np.asarray(llm_scores[axis]), missing)
        humans = np.asarray(human_scores[axis])
        entries = []
        for c, rater in enumerate(llm_ids):
            entry = llm_vs_humans(humans, human_ids, llm[:, c], n_boot=n_boot, seed=seed, categories=categories,
                                  missing=missing)  # fmt: skip
            entries.append({"annotator": rater, **entry})
        between = pairwise_quadratic_kappa(llm_scores[axis], categories=categories, missing=missing)
        section["axes"][axis] = {
            "raters": entries,
            "pairs_between_llms": [
                _pair_json(llm_ids[int(a)], llm_ids[int(b)], n, k, why)
                for a, b, n, k, why in zip(
                    between.rater_a, between.rater_b, between.n_common, between.kappa, between.reason, strict=True
                )
            ],
        }
    return section
