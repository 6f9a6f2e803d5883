"""Speed of the rating spreadsheet: an annotator's 10,000-row template written, and filled back in.

Targets (issue #17): the 10,000-row template written <= 10 s; the filled sheet read, checked and
stored <= 10 s. Also printed: the same sheet uploaded again (every row unchanged: read, checked,
compared) and the CSV form of the filled sheet. Runs on SQLite and, when reachable, PostgreSQL,
each in its own process with a fresh database; prints the median of the runs.

    .venv/bin/python bench/spreadsheet.py [--n 10000] [--repeats 3] [--postgres postgres://postgres@127.0.0.1:5432/]
"""

from __future__ import annotations

import argparse
import csv
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
from bench.import_export import write_inputs  # noqa: E402

TARGET = {"export": 10.0, "import": 10.0}
LABELS = {"export": "template", "import": "import", "reimport": "again", "csv": "CSV import"}


def measure(dialogues: Path, repeats: int) -> dict:
    """Runs inside a process whose DATABASE_URL points at an empty database."""
    import django

    django.setup()
    from django.contrib.auth.models import Group, User
    from django.core.management import call_command
    from django.db import connection
    from django.utils import timezone
    from openpyxl import load_workbook

    from annotation.axes import AXES
    from annotation.collection.queue import recount_taken
    from annotation.io.imports import dialogues_import
    from annotation.models import Annotation, Batch, QualificationAttempt
    from annotation.spreadsheets import layout
    from annotation.spreadsheets.imports import sheet_import
    from annotation.spreadsheets.services import template_write

    call_command("migrate", verbosity=0)
    dialogues_import(paths=[dialogues], batch_name="bench")
    batch = Batch.objects.get(name="bench")
    annotator = User.objects.create_user("bench_annotator")
    annotator.groups.add(Group.objects.get_or_create(name="annotator")[0])
    # A qualified annotator: a sheet's new ratings obey the qualification rule (annotation.io.import_rules).
    QualificationAttempt.objects.create(annotator=annotator, finished_at=timezone.now(), passed=True)
    folder = dialogues.parent
    times = {key: [] for key in LABELS}
    for _ in range(repeats):
        template = folder / "template.xlsx"
        started = time.perf_counter()
        rows = template_write(template, batch=batch, annotator=annotator)
        times["export"].append(time.perf_counter() - started)

        book = load_workbook(template)  # the annotator's work: not timed
        sheet = book[layout.RATINGS_SHEET]
        columns = [layout.KEYS.index(axis) + 1 for axis in AXES]
        for row in range(2, rows + 2):
            for k, column in enumerate(columns):
                sheet.cell(row=row, column=column).value = 1 + (row + k) % 5
        filled = folder / "filled.xlsx"
        book.save(filled)
        with open(folder / "filled.csv", "w", encoding="utf-8-sig", newline="") as handle:
            csv.writer(handle, lineterminator="\r\n").writerows(
                ["" if v is None else v for v in values] for values in sheet.iter_rows(values_only=True)
            )

        started = time.perf_counter()
        summary = sheet_import(path=filled)
        times["import"].append(time.perf_counter() - started)
        assert summary.created == rows, summary
        started = time.perf_counter()
        again = sheet_import(path=filled)
        times["reimport"].append(time.perf_counter() - started)
        assert again.unchanged == rows, again

        Annotation.objects.filter(annotator=annotator).delete()
        recount_taken(list(batch.dialogues.values_list("pk", flat=True)))
        started = time.perf_counter()
        from_csv = sheet_import(path=folder / "filled.csv", annotator=annotator)
        times["csv"].append(time.perf_counter() - started)
        assert from_csv.created == rows, from_csv
        Annotation.objects.filter(annotator=annotator).delete()
        recount_taken(list(batch.dialogues.values_list("pk", flat=True)))
    return {"vendor": connection.vendor, "rows": rows, "times": times}


def run_backend(name: str, database_url: str, dialogues: Path, repeats: int, var: Path) -> dict:
    env = {**os.environ, "DATABASE_URL": database_url, "DEBUG": "0", "SECRET_KEY": "bench-only-" + "0" * 32,
           "VAR_DIR": str(var), "DJANGO_SETTINGS_MODULE": "config.settings"}  # fmt: skip
    code = (
        f"import json, sys; sys.path.insert(0, {str(ROOT)!r}); from bench.spreadsheet import measure; "
        f"from pathlib import Path; print(json.dumps(measure(Path({str(dialogues)!r}), {repeats})))"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{name} run failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--postgres", default=os.environ.get("BENCH_POSTGRES_URL", "postgres://postgres@127.0.0.1:5432/")
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="jaiml-bench-") as folder:
        folder = Path(folder)
        dialogues, _ratings = write_inputs(folder, args.n)
        results = {"sqlite": run_backend("SQLite", f"sqlite:///{folder / 'bench.sqlite3'}", dialogues, args.repeats,
                                         folder)}  # fmt: skip
        pg = postgres_database(args.postgres)
        if pg:
            url, drop = pg
            try:
                results["postgresql"] = run_backend("PostgreSQL", url, dialogues, args.repeats, folder)
            finally:
                drop()
    print(f"\nan annotator's sheet of {args.n:,} rows, median of {args.repeats} runs (seconds)")
    print(f"{'backend':<11}" + "".join(f"{label:>12}" for label in LABELS.values()))
    for name, result in results.items():
        median = {key: statistics.median(values) for key, values in result["times"].items()}
        print(f"{name:<11}" + "".join(f"{median[key]:>12.2f}" for key in LABELS))
        for key, target in TARGET.items():
            verdict = "met" if median[key] <= target else "NOT met"
            print(f"  target {LABELS[key]} <= {target:.0f} s: {verdict} ({median[key]:.2f} s, "
                  f"{result['rows'] / median[key]:,.0f} rows/s)")  # fmt: skip


if __name__ == "__main__":
    main()
