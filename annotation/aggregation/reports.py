"""The agreement report of seed A.6 (kappa_calculator) and what merge and validation add to it (pure)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime

from annotation.aggregation.agreement import axis_report
from annotation.axes import AXES, MIN_KAPPA, TARGET_KAPPA
from annotation.io.dataset import RatingSet
from annotation.io.records import format_timestamp

N_BOOT = 1000
SEED = 0
LEVEL = 0.95
#: How the 95% CI of each axis kappa is computed: "percentile" (the default) or "bca".
CI_METHOD = "percentile"


def kappa_report(
    ratings: RatingSet,
    *,
    min_kappa: float = MIN_KAPPA,
    target_kappa: float = TARGET_KAPPA,
    n_boot: int = N_BOOT,
    seed: int = SEED,
    ci_method: str = CI_METHOD,
    sources: Sequence[str] = (),
) -> dict:
    """Per-axis agreement; ``passed`` only if every axis kappa is defined and >= ``min_kappa``.

    ``bootstrap`` says how every ``ci95`` was computed: ``method`` ("percentile" or "bca"), ``replicates``,
    ``seed``, ``level``, and ``resampled`` ("items": an item is drawn with all its ratings; only items with two or
    more ratings are drawn). Alpha and AC2 have no interval.
    """

    def one_axis(axis: str) -> dict:
        report = axis_report(
            ratings.scores[axis], ratings.rater_ids, min_kappa=min_kappa, n_boot=n_boot, seed=seed, ci_method=ci_method
        )
        report["target_reached"] = report["kappa"] is not None and report["kappa"] >= target_kappa
        return report

    # The axes are independent and numpy releases the GIL in the heavy parts (the bootstrap). One core per
    # axis: BLAS threads of their own inside each axis (the bootstrap's matrix product) would only contend.
    from threadpoolctl import threadpool_limits  # here: this module loads at start-up, the report does not

    with (
        threadpool_limits(limits=1, user_api="blas"),
        ThreadPoolExecutor(max_workers=min(len(AXES), os.cpu_count() or 1)) as pool,
    ):
        axes = dict(zip(AXES, pool.map(one_axis, AXES), strict=True))
    return {
        "min_kappa": min_kappa,
        "target_kappa": target_kappa,
        "passed": all(report["passed"] for report in axes.values()),
        "target_reached": all(report["target_reached"] for report in axes.values()),
        "n_items": ratings.n_items,
        "n_annotators": ratings.n_raters,
        "n_ratings": int(ratings.rated.sum()),
        "bootstrap": {"method": ci_method, "replicates": n_boot, "seed": seed, "level": LEVEL, "resampled": "items"},
        "weights": "quadratic, (i-j)^2/(K-1)^2 over the categories 1..5",
        "sources": list(sources),
        "created_at": format_timestamp(datetime.now(UTC).replace(microsecond=0)),
        "axes": axes,
    }


def summary_rows(report: dict) -> list[list[str]]:
    """A table of the report for the terminal."""

    def number(value) -> str:
        return "—" if value is None else f"{value:.3f}"

    rows = [["axis", "kappa", "95% CI", "alpha", "AC2", "exact", "±1", "items", "result"]]
    for axis, data in report["axes"].items():
        ci = data["ci95"]
        rows.append(
            [
                axis,
                number(data["kappa"]),
                "—" if ci is None else f"[{ci[0]:.3f}, {ci[1]:.3f}]",
                number(data["alpha"]),
                number(data["ac2"]),
                number(data["agreement_exact"]),
                number(data["agreement_within_1"]),
                str(data["n_items"]),
                "PASS" if data["passed"] else "FAIL",
            ]
        )
    return rows


def format_table(rows: list[list[str]]) -> str:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)) for row in rows)
