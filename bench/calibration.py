"""Judge-calibration report benchmark (issue 18): how long one audit's report takes, and what the vectorised
bootstrap saves against re-running the agreement engine on every replicate.

Synthetic audits of N items (5 model configs x 3 judge scores) rated by 3 people, 1,000 bootstrap replicates.
Printed per size, medians of --repeats: the whole report (pure function) with 1,000 replicates and without
intervals; their difference is the bootstrap of all its ~20 statistics. Beside it, ONE of those statistics (the
people's kappa CI) the slow way, calling the agreement engine on each of 1,000 resampled matrices. The ratio
(one statistic looped / every statistic vectorised) is a lower bound of the saving, measured in the same run.

    .venv/bin/python bench/calibration.py [--sizes 200 1000] [--repeats 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from functools import partial
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from annotation.aggregation.agreement import JUDGE_MISSING, JUDGE_SCALE, axis_kappa, pairwise_quadratic_kappa
from annotation.aggregation.calibration import calibration_report
from bench._targets import Targets

PEOPLE = ("p1", "p2", "p3")
N_BOOT = 1000


def audit_of(n_items: int, seed: int = 0) -> tuple[dict, list[dict], dict]:
    rng = np.random.default_rng(seed)
    items, ratings = [], {}
    for i in range(n_items):
        config, judge = "ABCDE"[i % 5], int(rng.integers(0, 3))
        truth = judge if rng.random() < 0.8 else int(np.clip(judge + rng.choice([-1, 1]), 0, 2))
        key = f"t{i:05d}:g0"
        items.append(
            {"key": key, "trialId": f"t{i:05d}", "modelConfig": config, "judgeModel": "m", "judgePrompt": "p@1",
             "judgeScore": judge, "judgeLabel": "", "judgeReasoning": "", "baselineScore": int(rng.integers(0, 3)),
             "stratum": [config, judge], "weight": 4.0, "context": {}}
        )  # fmt: skip
        ratings[key] = {p: int(np.clip(truth + (rng.random() < 0.15) * rng.choice([-1, 1]), 0, 2)) for p in PEOPLE}
    audit = {"id": 1, "name": "bench", "kind": "gv", "batch": "b", "createdAt": "2026-11-27T00:00:00+00:00",
             "perItem": 3, "seed": 0, "requestedSize": n_items, "design": {}}  # fmt: skip
    return audit, items, ratings


def engine_loop_ci(matrix: np.ndarray, n_boot: int, seed: int = 0) -> tuple[float, float]:
    """The people's kappa CI the slow way: the engine's pairwise kappa on each resampled matrix."""
    rng = np.random.default_rng(seed)
    values = []
    for _ in range(n_boot):
        sample = matrix[rng.integers(0, len(matrix), len(matrix))]
        kappa, _reason = axis_kappa(pairwise_quadratic_kappa(sample, categories=JUDGE_SCALE, missing=JUDGE_MISSING))
        if kappa is not None:
            values.append(kappa)
    return float(np.percentile(values, 2.5)), float(np.percentile(values, 97.5))


def median_seconds(run, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[200, 1000])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    print(f"{'items':>6} {'report':>9} {'no CIs':>9} {'bootstrap':>10} {'1 stat looped':>14} {'ratio':>7}")
    for n in args.sizes:
        audit, items, ratings = audit_of(n)
        report_time = median_seconds(partial(calibration_report, audit, items, ratings, n_boot=N_BOOT), args.repeats)
        without = median_seconds(partial(calibration_report, audit, items, ratings, n_boot=0), args.repeats)
        matrix = np.array([[ratings[item["key"]][p] for p in PEOPLE] for item in items])
        loop = median_seconds(partial(engine_loop_ci, matrix, N_BOOT), max(1, args.repeats // 2))
        bootstrap = report_time - without
        print(
            f"{n:>6} {report_time:>7.3f} s {without:>7.3f} s {bootstrap:>8.3f} s {loop:>12.3f} s "
            f"{loop / bootstrap:>6.1f}x"
        )
    print("report: the calibration report with 1,000 bootstrap replicates; no CIs: the same with n_boot=0;")
    print("bootstrap: their difference (every statistic's intervals); 1 stat looped: the people's kappa CI by")
    print("1,000 calls of the engine on resampled matrices; ratio: looped / bootstrap (a lower bound).")
    return Targets(none_reason="this bench prints figures only; the README quotes them").finish()


if __name__ == "__main__":
    sys.exit(main())
