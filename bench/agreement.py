"""Agreement benchmark of the issue: kappa_calculator end to end, then the statistics against their references.

100k dialogues x 3 annotators (of 10) x 4 axes. Targets: `manage.py kappa_calculator` (JSONL in, report
out, 1,000 bootstrap replicates per axis) <= 4.5 s; pairwise kappas >= 20x faster than an sklearn loop;
ordinal alpha >= 5x faster than the krippendorff package; 1,000 bootstrap replicates <= 5 s. Every ratio
is against a reference measured in the same run. The last line lists every target checked; the exit
status is 0 only when all are met. ``--quick`` (10k dialogues) checks no target: they are defined at 100k.

The command's wall time is measured as a deployment runs it: the project's bytecode compiled once before
the timed runs (an untimed run on a small file, into a temporary ``PYTHONPYCACHEPREFIX``), as the image
does with ``compileall``; ``--no-bytecode`` measures every run compiling the project's modules again
(``PYTHONDONTWRITEBYTECODE=1`` and no compiled files).

    .venv/bin/python bench/agreement.py [--quick] [--no-bytecode]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import agreement_stats  # noqa: E402
from bench._targets import Targets  # noqa: E402

AXES = ("social", "avoidant", "mechanical", "self")
TARGET_END_TO_END = 4.5


def write_ratings(path: Path, n_items: int, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    truth = rng.choice([1, 1, 1, 1, 2, 2, 3, 4, 5], size=(n_items, 4))
    with path.open("w", encoding="utf-8") as handle:
        for item in range(n_items):
            raters = rng.choice(10, size=3, replace=False)
            for rater in raters:
                noise = (rng.random(4) < 0.15) * rng.choice([-1, 1], size=4)
                scores = np.clip(truth[item] + noise, 1, 5)
                row = {
                    "id": f"dialogue_{item:06d}",
                    "annotator_id": f"ann_{rater:03d}",
                    "timestamp": "2025-01-01T10:00:00Z",
                    "annotations": dict(zip(AXES, map(int, scores), strict=True)),
                    "confidence": dict.fromkeys(AXES, 0.9),
                }
                handle.write(json.dumps(row) + "\n")


def end_to_end(path: Path, folder: Path, repeats: int, *, bytecode: bool = True) -> list[float]:
    env = {
        **os.environ,
        "DEBUG": "0",
        "SECRET_KEY": "bench-only-" + "0" * 32,
        "VAR_DIR": str(folder),
        "DATABASE_URL": f"sqlite:///{folder / 'bench.sqlite3'}",
    }
    if bytecode:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(folder / "pycache")
    else:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        env.pop("PYTHONPYCACHEPREFIX", None)

    def kappa_calculator(ratings: Path) -> None:
        command = ["manage.py", "kappa_calculator", "--input", str(ratings), "--output", str(folder / "r.json")]
        subprocess.run([sys.executable, *command], cwd=ROOT, env=env, check=True, capture_output=True)

    if bytecode:  # untimed: compiles the bytecode of every module the command imports
        warm = folder / "warm.jsonl"
        write_ratings(warm, 20)
        kappa_calculator(warm)
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        kappa_calculator(path)
        times.append(time.perf_counter() - started)
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="10k items, fewer repeats (smoke run)")
    parser.add_argument("--no-bytecode", action="store_true", help="every run compiles the project's modules")
    args = parser.parse_args()
    n_items, repeats = (10_000, 1) if args.quick else (100_000, 3)
    with tempfile.TemporaryDirectory(prefix="jaiml-bench-") as folder:
        folder = Path(folder)
        path = folder / "batch.jsonl"
        write_ratings(path, n_items)
        times = end_to_end(path, folder, repeats, bytecode=not args.no_bytecode)
        report = json.loads((folder / "r.json").read_text())
    median = statistics.median(times)
    targets = Targets(none_reason="--quick: the targets are defined at 100,000 dialogues")
    bytecode = "compiled every run" if args.no_bytecode else "compiled once before the runs"
    print(f"kappa_calculator end to end: {n_items:,} dialogues x 3 annotators (of 10) x 4 axes, 1,000 bootstrap;"
          f" a new process per run (wall time), bytecode {bytecode}")  # fmt: skip
    if args.quick:
        note = "no target at this size"
    else:
        ok = targets.at_most("kappa_calculator end to end", median, TARGET_END_TO_END)
        note = f"target <= {TARGET_END_TO_END:g} s: {agreement_stats.verdict(ok)}"
    print(f"    runs {', '.join(f'{t:.2f}' for t in times)} s; median {median:.2f} s ({note})")
    kappas = ", ".join(f"{axis} {report['axes'][axis]['kappa']:.3f}" for axis in AXES)
    print(f"    kappa {kappas}\n")
    if args.quick:
        agreement_stats.run(n_items=10_000, repeats=2, n_boot=200)
    else:
        agreement_stats.run(n_items=100_000, repeats=7, n_boot=1000, targets=targets)
    return targets.finish()


if __name__ == "__main__":
    sys.exit(main())
