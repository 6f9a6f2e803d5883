"""Speed of the Layer3 engine on 10,000 generated trials (seed 002 §11.2), on SQLite and PostgreSQL.

Targets (issue: Layer3 engine; issue 26 asks to keep them): the pure metrics >= 50,000 trials/s (first
30,000; 51,000 measured before issue 26); ``evaluate_layer3 --judge none`` end to end (read the
trials, compute, write the metrics, aggregate per model config, the 110 statistical tests with their
cluster bootstrap, the log file) <= 3 s on each backend; importing the 10,000 trials <= 2 s. The
seed budgets < 100 ms per trial for the non-LLM metrics (1,000 s for 10,000 trials); each figure is
printed with its ratio to that budget.

The trials come from ``layer3.demo.generator`` (five model configs, ~5.5 widgets, ~6 bindings and
~8 generated sample values per trial, 2 % broken). Each backend runs in its own process on a fresh
database (SQLite file; a temporary PostgreSQL database when the server answers); in-process timings
(no interpreter or Django start-up), median of ``--repeats`` runs.

``--reference REV`` measures the same workload with the code of commit REV as well (checked out with
``git worktree`` beside this one, same interpreter, same trials, a fresh database each round, the two
trees taking turns round by round), and prints each figure's ratio to it: on a machine whose speed
varies from day to day, the ratio shows what a change cost, where an absolute figure cannot.

    .venv/bin/python bench/layer3.py [--n 10000] [--repeats 5] [--postgres postgres://postgres@127.0.0.1:5432/]
                                     [--reference 2ba202c]
"""

from __future__ import annotations

import argparse
import contextlib
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

from bench._server import postgres_database  # noqa: E402

SEED_BUDGET_PER_TRIAL = 0.100  # seconds (seed 002 §11.2)
TARGET_PURE_RATE = 50_000  # trials/s (issue 26: unchanged within noise of the 51,000 measured)
TARGET_EVALUATE = 3.0  # s
TARGET_IMPORT = 2.0  # s


def write_trials(path: Path, n: int) -> list[dict]:
    from layer3.demo.generator import generate_trials

    trials = generate_trials(n, seed=11)
    with path.open("w", encoding="utf-8") as handle:
        for trial in trials:
            handle.write(json.dumps(trial, ensure_ascii=False) + "\n")
    return trials


def pure_rate(trials: list[dict], repeats: int) -> tuple[float, list[float]]:
    from layer3.metrics import UISpecError, compute_trial_metrics

    data = [trial["generatedData"] for trial in trials]
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        for value in data:
            with contextlib.suppress(UISpecError):
                compute_trial_metrics(value)
        times.append(time.perf_counter() - started)
    return len(data) / statistics.median(times), times


def measure(path: str, repeats: int) -> dict:
    """Runs inside a process whose DATABASE_URL points at an empty database."""
    import io

    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection

    from layer3.io.imports import trials_import
    from layer3.models import Batch, Layer3Run

    call_command("migrate", verbosity=0)
    times: dict[str, list[float]] = {"import": [], "evaluate": []}
    for repeat in range(repeats):
        name = f"bench-{repeat}"
        started = time.perf_counter()
        summary = trials_import(paths=[path], batch_name=name)
        times["import"].append(time.perf_counter() - started)
        started = time.perf_counter()
        call_command("evaluate_layer3", name, stdout=io.StringIO(), no_color=True)
        times["evaluate"].append(time.perf_counter() - started)
        run = Layer3Run.objects.get(batch__name=name)
        assert run.status == "succeeded" and run.evaluated_count + run.error_count == summary.created
        assert len(Batch.objects.get(name=name).layer3_statistics["layer3Comparisons"]) == 110
    return {"vendor": connection.vendor, "times": times, "errors": run.error_count}


def pure_in(root: Path, path: Path, repeats: int) -> float:
    """The pure metrics' rate with the code of ``root`` (this tree or a reference worktree), in a fresh process."""
    code = (
        f"import json, sys; sys.path.insert(0, {str(root)!r}); from bench.layer3 import pure_rate; "
        f"trials = [json.loads(line) for line in open({str(path)!r}, encoding='utf-8')]; "
        f"print(pure_rate(trials, {repeats})[0])"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"pure metrics in {root} failed:\n{done.stderr[-3000:]}")
    return float(done.stdout.strip().splitlines()[-1])


@contextlib.contextmanager
def reference_tree(revision: str | None):
    """A worktree of ``revision`` (None: no reference), removed afterwards."""
    if not revision:
        yield None
        return
    folder = Path(tempfile.mkdtemp(prefix="jaiml-bench-reference-"))
    subprocess.run(["git", "worktree", "add", "--detach", str(folder), revision], cwd=ROOT, check=True,
                   capture_output=True)  # fmt: skip
    try:
        yield folder
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(folder)], cwd=ROOT, capture_output=True)


def run_backend(name: str, database_url: str, path: Path, repeats: int, var: Path, root: Path = ROOT) -> dict:
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "DEBUG": "0",
        "SECRET_KEY": "bench-only-" + "0" * 32,
        "VAR_DIR": str(var),
        "DJANGO_SETTINGS_MODULE": "config.settings",
    }
    code = (
        f"import json, sys; sys.path.insert(0, {str(root)!r}); from bench.layer3 import measure; "
        f"print(json.dumps(measure({str(path)!r}, {repeats})))"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=root, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{name} run failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def measure_round(tree: str, root: Path, path: Path, folder: Path, postgres: str, round_: int) -> dict:
    """One import and one evaluation with the code of ``root`` on a fresh SQLite and PostgreSQL database."""
    slug = f"{tree.replace(' ', '-')}-{round_}"
    out = {"sqlite": run_backend("SQLite", f"sqlite:///{folder / (slug + '.sqlite3')}", path, 1, folder, root)}
    pg = postgres_database(postgres)
    if pg:
        url, drop = pg
        try:
            out["postgresql"] = run_backend("PostgreSQL", url, path, 1, folder, root)
        finally:
            drop()
    return out


def verdict(ok: bool) -> str:
    return "met" if ok else "NOT met"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument(
        "--postgres", default=os.environ.get("BENCH_POSTGRES_URL", "postgres://postgres@127.0.0.1:5432/")
    )
    parser.add_argument("--reference", help="a commit to measure beside this tree (e.g. the one an issue was filed on)")
    args = parser.parse_args()
    seed_budget = args.n * SEED_BUDGET_PER_TRIAL
    trees = {"this tree": ROOT}
    with tempfile.TemporaryDirectory(prefix="jaiml-bench-layer3-") as folder, reference_tree(args.reference) as ref:
        if ref is not None:
            trees[f"reference {args.reference}"] = ref
        folder = Path(folder)
        path = folder / "trials.jsonl"
        trials = write_trials(path, args.n)
        widgets = sum(len(json.dumps(t["generatedData"])) for t in trials) / len(trials)
        print(f"{args.n:,} generated trials (~{widgets:,.0f} bytes of generated data each), median of {args.repeats}")
        rates = {tree: pure_in(root, path, args.repeats) for tree, root in trees.items()}
        results: dict[str, dict[str, dict]] = {tree: {} for tree in trees}
        # Round by round, each tree in turn on a fresh database of each backend: a slow spell of the machine
        # falls on both trees alike instead of on whichever ran second.
        for round_ in range(args.repeats):
            order = list(trees.items())
            for tree, root in order if round_ % 2 == 0 else reversed(order):  # who goes first alternates
                for name, result in measure_round(tree, root, path, folder, args.postgres, round_).items():
                    merged = results[tree].setdefault(name, {"times": {"import": [], "evaluate": []}})
                    for key, values in result["times"].items():
                        merged["times"][key] += values
                    merged["errors"] = result["errors"]
    base = trees and next(iter(trees))
    reference = next((tree for tree in trees if tree != base), None)
    for tree in trees:
        rate = rates[tree]
        ratio = f"; {rate / rates[reference]:.2f}x the reference" if reference and tree == base else ""
        print(f"{tree}:")
        print(
            f"  pure metrics: {rate:,.0f} trials/s; target >= {TARGET_PURE_RATE:,}/s: "
            f"{verdict(rate >= TARGET_PURE_RATE)}; {rate * SEED_BUDGET_PER_TRIAL:,.0f}x the seed's budget{ratio}"
        )
        for name, result in results[tree].items():
            median = {key: statistics.median(values) for key, values in result["times"].items()}
            runs = {key: ", ".join(f"{v:.2f}" for v in values) for key, values in result["times"].items()}
            versus = {}
            if reference and tree == base and name in results[reference]:
                other = {k: statistics.median(v) for k, v in results[reference][name]["times"].items()}
                versus = {key: f"; {median[key] / other[key]:.2f}x the reference's time" for key in median}
            print(f"  {name}:")
            print(
                f"    import {median['import']:.2f} s ({runs['import']}); target <= {TARGET_IMPORT:.0f} s: "
                f"{verdict(median['import'] <= TARGET_IMPORT)}{versus.get('import', '')}"
            )
            print(
                f"    evaluate_layer3 --judge none {median['evaluate']:.2f} s ({runs['evaluate']}; "
                f"{result['errors']} trials with broken data); target <= {TARGET_EVALUATE:.0f} s: "
                f"{verdict(median['evaluate'] <= TARGET_EVALUATE)}; "
                f"{seed_budget / median['evaluate']:,.0f}x faster than the seed's budget ({seed_budget:,.0f} s)"
                f"{versus.get('evaluate', '')}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
