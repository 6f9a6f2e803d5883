"""Speed of every bulk path of the annotation data, on SQLite and PostgreSQL.

Targets: 100k dialogues in <= 3 s, 100k ratings in <= 5 s, 100k ratings out <= 5 s, moving the
batch's 100k dialogues (with their ratings) to another batch in one statement <= 5 s, deleting a
batch of 100k ratings <= 5 s; ratings in on PostgreSQL at most 1.5x the time on SQLite.

Runs on SQLite (a fresh file) and, when reachable, PostgreSQL (a fresh temporary database), each in
its own process, and prints the median of several runs. Every path runs in-process (the services, no
HTTP). Label Studio's stored figures (import 100k tasks 12.5 s; export 100k tasks 84 s as JSON, both
over its HTTP API) are printed beside them with where they come from, but no ratio: the workloads
differ (see the notes the bench prints). The last line lists every target checked; the exit status is
0 only when all are met. Targets are defined at --n 100000; a smaller --n checks none.

    .venv/bin/python bench/import_export.py [--n 100000] [--repeats 3] [--postgres postgres://postgres@127.0.0.1:5432/]
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

from bench._server import postgres_database  # noqa: E402
from bench._targets import StoredFigure, Targets  # noqa: E402

LABEL_STUDIO = {"import": 12.5, "export": 84.0}
LABEL_STUDIO_SOURCE = StoredFigure(
    "Label Studio 1.23", "setup not recorded", "HTTP API", "stored 2026-11-25, measurement date not recorded"
)
TARGET_N = 100_000
TARGET = {"import": 3.0, "ratings_import": 5.0, "export": 5.0, "move": 5.0, "delete": 5.0}
LABELS = {"import": "import", "reimport": "reimport", "ratings_import": "ratings in", "export": "export",
          "move": "move", "delete": "delete"}  # fmt: skip
RATINGS_IN_RATIO = 1.5  # PostgreSQL / SQLite
AXES = ("social", "avoidant", "mechanical", "self")


def write_inputs(folder: Path, n: int) -> tuple[Path, Path]:
    import numpy as np

    rng = np.random.default_rng(0)
    dialogues, ratings = folder / "dialogues.jsonl", folder / "ratings.jsonl"
    with dialogues.open("w", encoding="utf-8") as handle:
        for i in range(n):
            row = {
                "id": f"dialogue_{i:06d}",
                "user": f"来週の発表資料を見直しました。構成はこれで大丈夫でしょうか？（{i}）",
                "response": "全体の流れは分かりやすいです。三枚目の図は凡例を加えると、"
                "数字の意味が伝わりやすくなります。",
                "context": [
                    {"turn": -3, "speaker": "user", "text": "発表の準備をしています。"},
                    {"turn": -2, "speaker": "ai", "text": "どのような発表ですか？"},
                    {"turn": -1, "speaker": "user", "text": "研究室の中間報告です。"},
                ],
            }
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    scores = rng.choice([1, 1, 1, 2, 3, 4, 5], size=(n, 4))
    with ratings.open("w", encoding="utf-8") as handle:
        for i in range(n):
            row = {
                "id": f"dialogue_{i:06d}",
                "annotator_id": f"ann_{i % 10:03d}",
                "timestamp": "2025-01-01T10:00:00Z",
                "annotations": dict(zip(AXES, map(int, scores[i]), strict=True)),
                "confidence": dict.fromkeys(AXES, 0.9),
            }
            handle.write(json.dumps(row) + "\n")
    return dialogues, ratings


def measure(dialogues: Path, ratings: Path, repeats: int) -> dict:
    """Runs inside a process whose DATABASE_URL points at an empty database."""
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection

    from annotation.io.batch_delete import batch_delete
    from annotation.io.exports import annotation_lines, write_lines
    from annotation.io.imports import annotations_import, dialogues_import
    from annotation.models import Annotation, Batch, Dialogue, RatingTotal

    call_command("migrate", verbosity=0)
    times = {key: [] for key in LABELS}
    for _ in range(repeats):
        started = time.perf_counter()
        dialogues_import(paths=[dialogues], batch_name="bench")
        times["import"].append(time.perf_counter() - started)
        started = time.perf_counter()
        dialogues_import(paths=[dialogues], batch_name="bench")
        times["reimport"].append(time.perf_counter() - started)
        started = time.perf_counter()
        annotations_import(paths=[ratings])
        times["ratings_import"].append(time.perf_counter() - started)
        out = dialogues.parent / "export.jsonl"
        started = time.perf_counter()
        with out.open("w", encoding="utf-8") as handle:
            count = write_lines(annotation_lines(), handle)
        times["export"].append(time.perf_counter() - started)
        assert count == Annotation.objects.count()
        # every dialogue (and so every rating) moved to another batch by one UPDATE
        source, target = Batch.objects.get(name="bench"), Batch.objects.create(name="bench-moved")
        started = time.perf_counter()
        Dialogue.objects.filter(batch=source).update(batch=target)
        times["move"].append(time.perf_counter() - started)
        if connection.vendor == "postgresql":  # the tallies followed the ratings
            assert sum(RatingTotal.objects.filter(batch=target).values_list("n", flat=True)) == count
        started = time.perf_counter()
        deleted = batch_delete(target)
        times["delete"].append(time.perf_counter() - started)
        assert deleted.ratings == count and not Annotation.objects.exists()
        batch_delete(source)
    return {"vendor": connection.vendor, "times": times}


def run_backend(name: str, database_url: str, dialogues: Path, ratings: Path, repeats: int, var: Path) -> dict:
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "DEBUG": "0",
        "SECRET_KEY": "bench-only-" + "0" * 32,
        "VAR_DIR": str(var),
    }
    env["DJANGO_SETTINGS_MODULE"] = "config.settings"
    args = f"Path({str(dialogues)!r}), Path({str(ratings)!r}), {repeats}"
    code = (
        f"import json, sys; sys.path.insert(0, {str(ROOT)!r}); from bench.import_export import measure; "
        f"from pathlib import Path; print(json.dumps(measure({args})))"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{name} run failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--postgres", default=os.environ.get("BENCH_POSTGRES_URL", "postgres://postgres@127.0.0.1:5432/")
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="jaiml-bench-") as folder:
        folder = Path(folder)
        dialogues, ratings = write_inputs(folder, args.n)
        results = {"sqlite": run_backend("SQLite", f"sqlite:///{folder / 'bench.sqlite3'}", dialogues, ratings,
                                         args.repeats, folder)}  # fmt: skip
        pg = postgres_database(args.postgres)
        if pg:
            url, drop = pg
            try:
                results["postgresql"] = run_backend("PostgreSQL", url, dialogues, ratings, args.repeats, folder)
            finally:
                drop()
        sizes = {p.name: p.stat().st_size / 1e6 for p in (dialogues, ratings, folder / "export.jsonl") if p.exists()}
    print(f"\n{args.n:,} dialogues / {args.n:,} ratings, median of {args.repeats} runs (seconds)")
    print(f"{'backend':<11}" + "".join(f"{label:>11}" for label in LABELS.values()))
    targets = Targets(none_reason=f"the targets are defined at --n {TARGET_N:,}, this run used {args.n:,}")
    checked = args.n == TARGET_N
    medians = {}
    for name, result in results.items():
        median = medians[name] = {key: statistics.median(values) for key, values in result["times"].items()}
        print(f"{name:<11}" + "".join(f"{median[key]:>11.2f}" for key in LABELS))
    for name, median in medians.items():
        for key, target in TARGET.items():
            rate = f"{args.n / median[key]:,.0f} rows/s"
            if checked:
                ok = targets.at_most(f"{name} {LABELS[key]}", median[key], target)
                print(f"  {name} target {LABELS[key]} <= {target:.0f} s: {targets.verdict(ok)} "
                      f"({median[key]:.2f} s, {rate})")  # fmt: skip
            else:
                print(f"  {name} {LABELS[key]}: {median[key]:.2f} s ({rate}; no target at this size)")
    if "postgresql" in medians:
        ratio = medians["postgresql"]["ratings_import"] / medians["sqlite"]["ratings_import"]
        if checked:
            ok = targets.at_most("ratings in PostgreSQL/SQLite", ratio, RATINGS_IN_RATIO, unit="", digits=2)
            print(f"target ratings in PostgreSQL/SQLite <= {RATINGS_IN_RATIO}: {targets.verdict(ok)} ({ratio:.2f})")
        else:
            print(f"ratings in PostgreSQL/SQLite: {ratio:.2f} (no target at this size)")
    print()
    print("Beside another system (not the same workload, so no ratio is printed):")
    print("  " + LABEL_STUDIO_SOURCE.label(f"import of 100,000 tasks {LABEL_STUDIO['import']:.1f} s"))
    print("  " + LABEL_STUDIO_SOURCE.label(f"export of 100,000 tasks as JSON {LABEL_STUDIO['export']:.1f} s"))
    print("  like for like? no. Here: in-process service calls, no HTTP, no server; 'import' reads a JSONL file of")
    print(f"  {args.n:,} dialogues (user text, response, 3 context turns) into the database; 'export' writes the")
    print(f"  ratings only ({args.n:,} JSONL lines: id, annotator, timestamp, 4 scores, 4 confidences) to a file.")
    print("  Label Studio: HTTP requests to its API; its export writes every task with its data and annotations.")
    print("  Payload here: " + ", ".join(f"{name} {size:.1f} MB" for name, size in sizes.items()) + ".")
    return targets.finish()


if __name__ == "__main__":
    sys.exit(main())
