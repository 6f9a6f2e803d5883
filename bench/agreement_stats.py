"""Benchmark of annotation.aggregation.agreement against the reference libraries.

Run from the project root: ``.venv/bin/python bench/agreement_stats.py`` (``--quick`` for a smaller run).

Synthetic data: 100k items x 10 raters, 3 ratings per item, scores skewed towards 1, one matrix per axis
(4 axes), seeded. Every figure is the median of a few repeats measured in the same run:

(a) all pairwise quadratic kappas: our vectorised function vs a loop of sklearn's cohen_kappa_score per pair
    (target: >= 20x faster);
(b) ordinal Krippendorff's alpha: ours vs krippendorff.alpha (target: >= 5x faster);
(c) 1,000 bootstrap replicates of the axis kappa on one axis (target: <= 5 s).

Importing this module has no side effects.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np

AXES = ("social", "avoidant", "mechanical", "self")
CATEGORIES = [1, 2, 3, 4, 5]
TARGET_KAPPA_RATIO = 20.0
TARGET_ALPHA_RATIO = 5.0
TARGET_BOOTSTRAP_SECONDS = 5.0
SETTLE_SECONDS = 0.2
SETTLE_BLOCK_ELEMENTS = 3_000_000  # 24 MB of float64: below glibc's 32 MB cap on the adaptive threshold


def synthetic_axis(n_items: int, n_raters: int, per_item: int, seed: int) -> np.ndarray:
    """One axis: each item rated by ``per_item`` random raters; truth skewed to 1; raters right 80% of the time."""
    rng = np.random.default_rng(seed)
    truth = rng.choice(5, size=n_items, p=[0.72, 0.12, 0.08, 0.05, 0.03])
    who = np.argsort(rng.random((n_items, n_raters)), axis=1)[:, :per_item]
    off_by_one = np.clip(truth[:, None] + rng.choice([-1, 1], size=(n_items, per_item)), 0, 4)
    values = np.where(rng.random((n_items, per_item)) < 0.8, truth[:, None], off_by_one) + 1
    ratings = np.zeros((n_items, n_raters), dtype=np.int64)
    np.put_along_axis(ratings, who, values, axis=1)
    return ratings


def settle() -> None:
    """Put the process in the same state before every measurement, whatever ran before.

    glibc adapts its mmap threshold to the blocks freed so far; after sklearn's loop it was left in a state
    where the multi-MB numpy temporaries of the next function page-faulted on every call, halving its speed
    (measured for ours and the references alike). Allocating and freeing one large block resets that
    threshold; the pause lets worker threads of the previous measurement go idle.
    """
    block = np.ones(SETTLE_BLOCK_ELEMENTS)
    del block
    time.sleep(SETTLE_SECONDS)


def median_seconds(func: Callable[[], object], repeats: int) -> tuple[float, object]:
    """Median wall time over ``repeats`` calls (after one warm-up call) and the last result."""
    settle()
    result = func()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        result = func()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def sklearn_pairwise(ratings: np.ndarray) -> list[float]:
    """The loop we replace: cohen_kappa_score on the common items of every rater pair."""
    from sklearn.metrics import cohen_kappa_score

    out = []
    n_raters = ratings.shape[1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for a in range(n_raters):
            for b in range(a + 1, n_raters):
                common = (ratings[:, a] > 0) & (ratings[:, b] > 0)
                if common.sum() >= 2:
                    out.append(
                        cohen_kappa_score(
                            ratings[common, a], ratings[common, b], weights="quadratic", labels=CATEGORIES
                        )
                    )
    return out


def package_alpha(ratings: np.ndarray) -> float:
    import krippendorff

    data = ratings.T.astype(float)
    data[data == 0] = np.nan
    return float(krippendorff.alpha(reliability_data=data, level_of_measurement="ordinal", value_domain=CATEGORIES))


def verdict(ok: bool) -> str:
    return "target met" if ok else "TARGET MISSED"


def _target_note(targets, name: str, value: float, bound: float, *, at_least: bool, unit: str) -> str:
    """Record the target in ``targets`` and say how it went; no verdict when no targets are checked."""
    if targets is None:
        return "no target at this size"
    ok = (targets.at_least if at_least else targets.at_most)(name, value, bound, unit.strip())
    return f"target {'>=' if at_least else '<='} {bound:.0f}{unit}: {verdict(ok)}"


def run(n_items: int, repeats: int, n_boot: int, targets=None) -> bool:
    """Measure and print; each target is recorded in ``targets`` (a bench._targets.Targets), none when it is None."""
    from annotation.aggregation.agreement import bootstrap_kappa_ci, krippendorff_alpha, pairwise_quadratic_kappa

    axes = {axis: synthetic_axis(n_items, 10, 3, seed=i) for i, axis in enumerate(AXES)}
    print(f"data: {len(AXES)} axes x {n_items:,} items x 10 raters, 3 ratings per item")
    share_1 = np.mean([np.mean(m[m > 0] == 1) for m in axes.values()])
    print(f"      {share_1:.1%} of ratings are 1; median of {repeats} repeats after a warm-up\n")

    # (a) pairwise kappas, all four axes
    ours_t, ours = median_seconds(lambda: [pairwise_quadratic_kappa(m) for m in axes.values()], repeats)
    ref_t, ref = median_seconds(lambda: [sklearn_pairwise(m) for m in axes.values()], max(1, repeats // 2))
    diff = max(float(np.max(np.abs(r.kappa[~np.isnan(r.kappa)] - np.array(s)))) for r, s in zip(ours, ref, strict=True))
    kappa_ratio = ref_t / ours_t
    print("(a) pairwise quadratic kappa, 45 pairs x 4 axes")
    print(f"    ours (one bincount per axis) {ours_t * 1000:9.1f} ms")
    print(f"    sklearn loop over pairs      {ref_t * 1000:9.1f} ms")
    note = _target_note(targets, "pairwise kappas vs sklearn", kappa_ratio, TARGET_KAPPA_RATIO, at_least=True, unit="x")
    print(f"    ratio {kappa_ratio:6.1f}x  ({note})")
    print(f"    max |ours - sklearn| = {diff:.1e}\n")

    # (b) ordinal alpha, all four axes
    ours_t, ours = median_seconds(lambda: [krippendorff_alpha(m)[0] for m in axes.values()], repeats)
    ref_t, ref = median_seconds(lambda: [package_alpha(m) for m in axes.values()], max(1, repeats // 2))
    diff = max(abs(a - b) for a, b in zip(ours, ref, strict=True))
    alpha_ratio = ref_t / ours_t
    print("(b) ordinal Krippendorff's alpha, 4 axes")
    print(f"    ours                         {ours_t * 1000:9.1f} ms")
    print(f"    krippendorff.alpha           {ref_t * 1000:9.1f} ms")
    note = _target_note(
        targets, "ordinal alpha vs krippendorff", alpha_ratio, TARGET_ALPHA_RATIO, at_least=True, unit="x"
    )
    print(f"    ratio {alpha_ratio:6.1f}x  ({note})")
    print(f"    max |ours - krippendorff| = {diff:.1e}\n")

    # (c) bootstrap, one axis
    first = axes[AXES[0]]
    boot_t, ci = median_seconds(lambda: bootstrap_kappa_ci(first, n_boot=n_boot, seed=0), max(1, repeats // 2))
    print(f"(c) bootstrap CI of the axis kappa, {n_boot:,} replicates, axis {AXES[0]!r}")
    note = _target_note(
        targets, f"bootstrap {n_boot:,} replicates", boot_t, TARGET_BOOTSTRAP_SECONDS, at_least=False, unit=" s"
    )
    print(f"    wall time {boot_t:6.2f} s   ({note})")
    print(f"    95% CI [{ci[0]:.4f}, {ci[1]:.4f}]  x 4 axes ~ {4 * boot_t:.1f} s\n")

    return targets is None or targets.all_met


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10k items, fewer repeats (smoke run, no targets)")
    args = parser.parse_args(argv)
    root = str(Path(__file__).resolve().parents[1])
    if root not in sys.path:
        sys.path.insert(0, root)
    from bench._targets import Targets

    if args.quick:
        run(n_items=10_000, repeats=2, n_boot=200)
        return Targets(none_reason="--quick: the targets are defined at 100,000 items").finish()
    targets = Targets()
    run(n_items=100_000, repeats=7, n_boot=1000, targets=targets)
    return targets.finish()


if __name__ == "__main__":
    sys.exit(main())
