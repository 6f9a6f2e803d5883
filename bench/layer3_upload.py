"""A 10,000-trial log uploaded through the Layer3 upload page, end to end, beside the same import in-process.

Headless chromium (Debian's) logs in to a live server (gunicorn with production settings, a Celery worker,
PostgreSQL, the embedded file broker), opens ``/research/layer3/upload/``, chooses the file and uploads it.
A file this size (~20 MB) is over ``LAYER3_UPLOAD_JOB_BYTES``, so the page hands it to the worker and its job
page follows the job: the time measured runs from the click on "Upload" until the job page offers the batch
("Open batch ..."), i.e. the browser's upload, the worker's import and the page noticing the end (it polls
once a second). Each run uploads into a new batch. The reference is ``trials_import`` (what the worker runs)
on the same file in this process, into a new batch of the same database; the ratio says what the page, the
upload, the queue and the polling add.

    .venv/bin/python bench/layer3_upload.py [--trials 10000] [--runs 3]
        [--postgres postgres://postgres@127.0.0.1:5432/] [--chromium /usr/bin/chromium]
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

from bench._server import (  # noqa: E402
    SECRET_KEY,
    free_port,
    postgres_database,
    server_env,
    start_gunicorn,
    stop_group,
)

PASSWORD = "bench-upload-pw-1"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-dev-shm-usage"]


def prepare(database_url: str, var_dir: str, trials: int) -> Path:
    """Migrate, create the researcher, write the trial log (``layer3.demo.generator``, as bench/layer3.py)."""
    os.environ.update({"DATABASE_URL": database_url, "DEBUG": "0", "SECRET_KEY": SECRET_KEY, "VAR_DIR": var_dir})
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.contrib.auth.models import Group, User
    from django.core.management import call_command

    from layer3.demo.generator import generate_trials

    call_command("migrate", verbosity=0)
    user = User.objects.create_user("bench_researcher", password=PASSWORD)
    user.groups.add(Group.objects.get_or_create(name="researcher")[0])
    path = Path(var_dir) / "trials-10k.jsonl"
    with path.open("w", encoding="utf-8") as handle:
        for trial in generate_trials(trials, seed=11, broken_share=0.0):
            handle.write(json.dumps(trial, ensure_ascii=False) + "\n")
    return path


def start_worker(env: dict) -> subprocess.Popen:
    command = [sys.executable, "-m", "celery", "-A", "config", "worker", "--pool", "solo", "--concurrency", "1",
               "--loglevel", "WARNING", "--hostname", f"bench-upload-{os.getpid()}@%h"]  # fmt: skip
    return subprocess.Popen(command, cwd=ROOT, env=env, start_new_session=True)


def browser_runs(port: int, path: Path, runs: int, chromium: str) -> list[float]:
    from playwright.sync_api import sync_playwright

    seconds = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, headless=True, args=CHROMIUM_ARGS)
        context = browser.new_context(base_url=f"http://127.0.0.1:{port}", locale="ja-JP")
        context.set_default_timeout(600_000)
        page = context.new_page()
        page.goto("/login/")
        page.fill("#id_username", "bench_researcher")
        page.fill("#id_password", PASSWORD)
        page.click("button[type=submit].primary")
        page.wait_for_load_state("networkidle")
        for run in range(runs):
            page.goto("/research/layer3/upload/")
            page.set_input_files("[data-drop-input]", str(path))
            page.fill("input[name=name]", f"bench-browser-{run}")
            started = time.perf_counter()
            page.click("[data-action=upload]")
            page.wait_for_selector("[data-open-batch], .message-success, .l3-problems, .job-failed")
            seconds.append(time.perf_counter() - started)
            if page.locator("[data-open-batch], .message-success").count() == 0:
                raise SystemExit(f"run {run}: the upload did not store the trials:\n{page.inner_text('main')}")
            print(f"  browser run {run + 1}: {seconds[-1]:6.2f} s  ({page.url})")
        browser.close()
    return seconds


def in_process_runs(path: Path, runs: int) -> list[float]:
    from layer3.io.imports import trials_import

    seconds = []
    for run in range(runs):
        started = time.perf_counter()
        summary = trials_import(paths=[path], batch_name=f"bench-direct-{run}")
        seconds.append(time.perf_counter() - started)
        print(f"  trials_import run {run + 1}: {seconds[-1]:6.2f} s  ({summary})")
    return seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--trials", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--postgres", default=os.environ.get("BENCH_POSTGRES_URL", "postgres://postgres@127.0.0.1:5432/")
    )
    parser.add_argument("--chromium", default=os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium"))
    args = parser.parse_args()

    database = postgres_database(args.postgres, prefix="jaiml_bench_upload")
    if database is None:
        return 1
    database_url, drop = database
    var_dir = tempfile.mkdtemp(prefix="jaiml-upload-bench-")
    server = worker = None
    try:
        path = prepare(database_url, var_dir, args.trials)
        size = path.stat().st_size
        env = server_env(database_url, var_dir)
        port = free_port()
        server = start_gunicorn(port, env, workers=2)
        worker = start_worker(env)
        print(f"{args.trials:,} trials, {size / 1e6:.1f} MB; gunicorn (2 sync workers) + 1 Celery worker, "
              f"PostgreSQL, {args.runs} runs each")  # fmt: skip
        browser = browser_runs(port, path, args.runs, args.chromium)
        direct = in_process_runs(path, args.runs)
        through_page, reference = statistics.median(browser), statistics.median(direct)
        print(f"upload page to the batch (median): {through_page:6.2f} s")
        print(f"trials_import in-process (median): {reference:6.2f} s")
        print(f"ratio: {through_page / reference:.2f}x the in-process import")
    finally:
        stop_group(worker)
        stop_group(server)
        drop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
