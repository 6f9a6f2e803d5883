"""``director_check --jobs N`` against ``--jobs 1`` on the same generated utterances: wall time and ratio.

The utterances are bench/director.py's (seeded, やな and あゆ alternating); each run is the whole command
(``manage.py director_check``, start-up, reading, judging and writing) in a process of its own, the
settings taking turns in each round; the figure is the median of ``--repeats``. The command on one line
is timed too: Django's start-up, which no number of processes shortens; the time past it is the part
``--jobs`` divides (and where the processes' own start, about half a second each, is paid). The outputs
of every setting must be the same bytes as ``--jobs 1``'s, or the benchmark fails.

    .venv/bin/python bench/director_jobs.py [--n 20000] [--jobs 2] [--repeats 3] [--seed 4]
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

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench._targets import Targets  # noqa: E402
from bench.director import generate_utterances  # noqa: E402


def run(source: Path, output: Path, jobs: int) -> float:
    env = {**os.environ, "DEBUG": os.environ.get("DEBUG", "1")}
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "manage.py", "director_check", "--input", str(source), "--output", str(output),
         "--jobs", str(jobs)],
        cwd=ROOT, env=env, check=True, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=20_000)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=4)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="director-jobs-") as folder:
        source = Path(folder) / "utterances.jsonl"
        with source.open("w", encoding="utf-8") as handle:
            for index, (speaker, text) in enumerate(generate_utterances(args.n, args.seed)):
                handle.write(json.dumps({"id": f"u{index}", "speaker": speaker, "text": text}, ensure_ascii=False))
                handle.write("\n")
        one_line = Path(folder) / "one.jsonl"
        one_line.write_text(source.read_text(encoding="utf-8").split("\n", 1)[0] + "\n", encoding="utf-8")
        settings = sorted({1, args.jobs})
        times: dict[int, list[float]] = {jobs: [] for jobs in settings}
        start_up: list[float] = []
        for _ in range(args.repeats):
            start_up.append(run(one_line, Path(folder) / "one-verdict.jsonl", 1))
            for jobs in settings:
                times[jobs].append(run(source, Path(folder) / f"verdicts-{jobs}.jsonl", jobs))
        reference = (Path(folder) / "verdicts-1.jsonl").read_bytes()
        same = all((Path(folder) / f"verdicts-{jobs}.jsonl").read_bytes() == reference for jobs in settings)
    one, fixed = statistics.median(times[1]), statistics.median(start_up)
    print(f"director_check on {args.n} utterances, {os.cpu_count()} cores, median of {args.repeats}:")
    print(f"  on one line (start-up): {fixed:.2f} s")
    for jobs in settings:
        median = statistics.median(times[jobs])
        print(
            f"  --jobs {jobs}: {median:.2f} s, {median / one:.2f}x --jobs 1; past the start-up {median - fixed:.2f} s, "
            f"{(median - fixed) / (one - fixed):.2f}x --jobs 1"
        )
    targets = Targets()
    targets.record("outputs identical to --jobs 1", same, "yes" if same else "NO")
    return targets.finish()


if __name__ == "__main__":
    sys.exit(main())
