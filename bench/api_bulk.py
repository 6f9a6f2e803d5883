"""The data API in bulk, over HTTP against gunicorn on PostgreSQL (issue 31).

Each round loads a fresh batch of dialogues in-process (not timed), then, over HTTP with an API token
(``Authorization: Token``) as a script on another machine would:

- **upload**: ``POST /api/v1/annotation/annotations/import/?batch=<id>`` with the round's ``--n`` ratings as
  one JSONL body (three ratings per dialogue by ten annotators). When the server answers 202 (a large file
  becomes a worker job), the time runs until the job has finished (its URL polled every 50 ms) and the
  ratings are stored. Target: 100,000 ratings ≤ 6 s.
- **walk**: ``GET /api/v1/annotation/annotations/?batch=<id>&page_size=1000``, then every ``next`` until
  there is none; each page is parsed as JSON. Target: every one of 100,000 ratings ≤ 10 s.
- **export**: ``GET /api/v1/annotation/batches/<id>/export/ratings.jsonl`` read to its end. Target:
  100,000 ratings ≤ 3 s. The CSV of the same ratings and the consensus JSONL are timed beside it, without
  a target; so is the Layer3 export of ``--trials`` trials with their metrics
  (``GET /api/experiment/batch/<batchId>/export/trials.jsonl``).

The server runs as the README's deployment section says: gunicorn, 4 sync workers, PostgreSQL, and a
Celery worker on Redis for the jobs; each server process answers a few small requests of each kind before
the clock starts. Figures are medians of ``--repeats`` rounds; targets are defined at
``--n 100000`` only. The last line lists every target checked; the exit status is 0 only when all are met.

    .venv/bin/python bench/api_bulk.py [--n 100000] [--repeats 3] [--trials 10000]
                                       [--postgres postgres://postgres@127.0.0.1:5432/]
                                       [--redis redis://127.0.0.1:6379/14]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench._server import SECRET_KEY, free_port, server_env, start_gunicorn, stop_group, temporary_postgres  # noqa: E402
from bench._targets import StoredFigure, Targets  # noqa: E402

TARGET_N = 100_000
TARGET = {"upload": 6.0, "walk": 10.0, "export": 3.0}
PAGE_SIZE = 1000
RATERS_PER_ITEM = 3
ANNOTATORS = 10
AXES = ("social", "avoidant", "mechanical", "self")
# Before issue 31, on this machine (the figures): the same walk with pages of 500 and Label Studio's export.
BEFORE = StoredFigure("this project at 08107f5", "gunicorn 4 sync, pages of 500", "HTTP", "measured 2026-11-27")
LABEL_STUDIO = StoredFigure("Label Studio 1.23.2", "gunicorn 4 sync", "HTTP", "measured 2026-11-27")


def write_round(folder: Path, round_: int, n: int) -> tuple[Path, Path]:
    """The round's dialogues (``n`` / 3, rounded up) and ``n`` ratings, three by different annotators per item."""
    import random

    rng = random.Random(round_)
    n_items = -(-n // RATERS_PER_ITEM)
    dialogues, ratings = folder / f"dialogues-{round_}.jsonl", folder / f"ratings-{round_}.jsonl"
    with dialogues.open("w", encoding="utf-8") as handle:
        for i in range(n_items):
            row = {
                "id": f"r{round_}_{i:06d}",
                "user": f"この企画書、どう思いますか？率直な意見をください。（{i}）",
                "response": "全体の構成は分かりやすいです。二章の根拠となるデータを一つ加えると、説得力が増します。",
            }
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    truth: dict[str, int] = {}
    with ratings.open("w", encoding="utf-8") as handle:
        for k in range(n):
            i, j = divmod(k, RATERS_PER_ITEM)
            if j == 0:  # the item's own scores; each person agrees with them mostly (the consensus keeps them all)
                truth = {axis: rng.choice((1, 1, 1, 2, 3, 4, 5)) for axis in AXES}
            row = {
                "id": f"r{round_}_{i:06d}",
                "annotator_id": f"bulk_{(i + 3 * j) % ANNOTATORS:02d}",  # offsets 0, 3, 6: three different people
                "timestamp": "2025-01-01T10:00:00Z",
                "annotations": {axis: _near(rng, score) for axis, score in truth.items()},
                "confidence": dict.fromkeys(AXES, 0.9),
            }
            handle.write(json.dumps(row) + "\n")
    return dialogues, ratings


def _near(rng, score: int) -> int:
    """``score`` nine times in ten, else a neighbour on the 1-5 scale."""
    if rng.random() < 0.9:
        return score
    return min(5, max(1, score + rng.choice((-1, 1))))


def prepare(database_url: str, var: str) -> str:
    """Migrate, make a researcher with an API token; returns the token's key."""
    os.environ.update({"DATABASE_URL": database_url, "DEBUG": "0", "SECRET_KEY": SECRET_KEY, "VAR_DIR": var})
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.contrib.auth.models import Group, User
    from django.core.management import call_command

    from core.api_tokens import token_create
    from core.roles import RESEARCHER

    call_command("migrate", verbosity=0)
    user = User.objects.create_user("bulk_researcher", password="bench-password-1")
    user.groups.add(Group.objects.get_or_create(name=RESEARCHER)[0])
    return token_create(user=user, name="api_bulk bench")[1]


def load_dialogues(path: Path, name: str) -> int:
    from annotation.io.imports import dialogues_import
    from annotation.models import Batch

    dialogues_import(paths=[path], batch_name=name)
    batch = Batch.objects.get(name=name)
    Batch.objects.filter(pk=batch.pk).update(annotations_per_item=RATERS_PER_ITEM)
    return batch.pk


def load_trials(folder: Path, n: int) -> str:
    """``n`` generated trials evaluated without a judge (every metric but the two LLM ones); their batch id."""
    import io

    from django.core.management import call_command

    from bench.layer3 import write_trials
    from layer3.io.imports import trials_import

    path = folder / "trials.jsonl"
    write_trials(path, n)
    trials_import(paths=[path], batch_name="bulk-trials")
    call_command("evaluate_layer3", "bulk-trials", stdout=io.StringIO(), no_color=True)
    return "bulk-trials"


class Api:
    """Requests with the token over HTTP/1.1 (gunicorn's sync workers close each connection: one per request)."""

    def __init__(self, port: int, key: str) -> None:
        self.port, self.headers = port, {"Authorization": f"Token {key}"}

    def request(self, method: str, path: str, body: bytes | None = None, headers: dict | None = None):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=300)
        try:
            conn.request(method, path, body=body, headers={**self.headers, **(headers or {})})
            response = conn.getresponse()
            data = response.read()
            return response.status, dict(response.getheaders()), data
        finally:
            conn.close()

    def json(self, method: str, path: str, expect: tuple[int, ...] = (200,), **kwargs):
        status, _headers, data = self.request(method, path, **kwargs)
        if status not in expect:
            raise SystemExit(f"{method} {path} answered {status}: {data[:2000].decode(errors='replace')}")
        return status, json.loads(data)

    def download(self, path: str) -> tuple[int, int]:
        """GET ``path`` read to its end in 64 KiB pieces: (bytes, lines)."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=300)
        try:
            conn.request("GET", path, headers=self.headers)
            response = conn.getresponse()
            if response.status != 200:
                raise SystemExit(
                    f"GET {path} answered {response.status}: {response.read(2000).decode(errors='replace')}"
                )
            size = lines = 0
            while piece := response.read(65536):
                size += len(piece)
                lines += piece.count(b"\n")
            return size, lines
        finally:
            conn.close()


def warm_up(api: Api, workers: int, folder: Path) -> None:
    """A few requests of each kind per server process before the clock starts (a process imports what a route
    needs when it first answers it: issue 31 keeps heavy imports out of start-up), on a batch of three items."""
    dialogues, ratings = write_round(folder, -1, 9)
    batch_id = load_dialogues(dialogues, "bulk-warm-up")
    body = ratings.read_bytes()
    for _ in range(3 * workers):
        api.json("GET", f"/api/v1/annotation/annotations/?batch={batch_id}&page_size=2")
        api.download(f"/api/v1/annotation/batches/{batch_id}/export/ratings.jsonl")
        api.json("POST", f"/api/v1/annotation/annotations/import/?batch={batch_id}&dry_run=true", body=body,
                 headers={"Content-Type": "application/x-ndjson"})  # fmt: skip


def upload(api: Api, batch_id: int, ratings: Path) -> float:
    body = ratings.read_bytes()
    started = time.perf_counter()
    status, answer = api.json(
        "POST", f"/api/v1/annotation/annotations/import/?batch={batch_id}", expect=(201, 202), body=body,
        headers={"Content-Type": "application/x-ndjson"},
    )  # fmt: skip
    if status == 202:  # a worker job: until it has finished
        url = urlsplit(answer["job"]["url"] if "job" in answer else answer["url"]).path
        while True:
            _status, job = api.json("GET", url)
            if job["status"] in ("succeeded", "failed", "cancelled"):
                break
            time.sleep(0.05)
        if job["status"] != "succeeded":
            raise SystemExit(f"the upload job ended {job['status']}: {job.get('error') or job.get('message')}")
    return time.perf_counter() - started


def walk(api: Api, batch_id: int) -> tuple[float, int, int]:
    """Every rating of the batch page by page: (seconds, ratings, pages)."""
    path = f"/api/v1/annotation/annotations/?batch={batch_id}&page_size={PAGE_SIZE}"
    seen: set[int] = set()
    pages = 0
    started = time.perf_counter()
    while path:
        _status, page = api.json("GET", path)
        seen.update(row["id"] for row in page["results"])
        pages += 1
        path = urlsplit(page["next"])._replace(scheme="", netloc="").geturl() if page["next"] else None
    return time.perf_counter() - started, len(seen), pages


def timed_download(api: Api, path: str) -> tuple[float, int, int]:
    started = time.perf_counter()
    size, lines = api.download(path)
    return time.perf_counter() - started, size, lines


def stored_ratings(batch_id: int) -> int:
    from annotation.models import Annotation

    return Annotation.objects.filter(dialogue__batch_id=batch_id).count()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=TARGET_N, help="ratings per round")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--trials", type=int, default=10_000, help="Layer3 trials for the trials export (0: none)")
    parser.add_argument("--workers", type=int, default=4, help="gunicorn sync workers")
    parser.add_argument(
        "--postgres", default=os.environ.get("BENCH_POSTGRES_URL", "postgres://postgres@127.0.0.1:5432/")
    )
    parser.add_argument("--redis", default=os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/14"))
    args = parser.parse_args()

    from tests.worker_processes import celery_workers

    times: dict[str, list[float]] = {"upload": [], "walk": [], "export": [], "export_csv": [], "consensus": []}
    sizes: dict[str, int] = {}
    server = None
    with temporary_postgres(args.postgres, "jaiml_bulk") as database_url, tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        queue = f"bulk-{os.getpid()}"
        extra = {"CELERY_BROKER_URL": args.redis, "CELERY_QUEUE": queue}
        key = prepare(database_url, str(folder))
        os.environ.update(extra)
        trials_batch = load_trials(folder, args.trials) if args.trials else None
        port = free_port()
        env = server_env(database_url, str(folder), **extra)
        worker_env = {k: env[k] for k in ("DATABASE_URL", "DEBUG", "SECRET_KEY", "VAR_DIR", "LOG_LEVEL")}
        with celery_workers(1, env={**worker_env, **extra}, queue=queue, log_dir=folder / "logs"):
            try:
                server = start_gunicorn(port, env, args.workers)
                api = Api(port, key)
                warm_up(api, args.workers, folder)
                print(f"gunicorn: {args.workers} sync workers, PostgreSQL, a Celery worker on Redis; "
                      f"{args.n:,} ratings per round, median of {args.repeats} rounds")  # fmt: skip
                for round_ in range(args.repeats):
                    dialogues, ratings = write_round(folder, round_, args.n)
                    batch_id = load_dialogues(dialogues, f"bulk-{round_}")
                    sizes["upload"] = ratings.stat().st_size
                    times["upload"].append(upload(api, batch_id, ratings))
                    if (stored := stored_ratings(batch_id)) != args.n:
                        raise SystemExit(f"round {round_}: {stored:,} ratings stored, {args.n:,} uploaded")
                    seconds, count, pages = walk(api, batch_id)
                    if count != args.n:
                        raise SystemExit(f"round {round_}: the walk met {count:,} ratings, the batch has {args.n:,}")
                    times["walk"].append(seconds)
                    base = f"/api/v1/annotation/batches/{batch_id}/export"
                    for what, path in (("export", "ratings.jsonl"), ("export_csv", "ratings.csv"),
                                       ("consensus", "consensus.jsonl")):  # fmt: skip
                        seconds, size, lines = timed_download(api, f"{base}/{path}")
                        if what == "export" and lines != args.n:
                            raise SystemExit(f"round {round_}: ratings.jsonl has {lines:,} lines, not {args.n:,}")
                        times[what].append(seconds)
                        sizes[what], sizes[f"{what}_lines"] = size, lines
                    print(f"  round {round_ + 1}: upload {times['upload'][-1]:.2f} s, walk {times['walk'][-1]:.2f} s "
                          f"({pages} pages), export {times['export'][-1]:.2f} s")  # fmt: skip
                if trials_batch:
                    times["trials"] = []
                    for _ in range(args.repeats):
                        seconds, size, lines = timed_download(
                            api, f"/api/experiment/batch/{trials_batch}/export/trials.jsonl"
                        )
                        times["trials"].append(seconds)
                        sizes["trials"], sizes["trials_lines"] = size, lines
            finally:
                stop_group(server)
    return report(args, times, sizes)


def report(args, times: dict[str, list[float]], sizes: dict[str, int]) -> int:
    median = {what: statistics.median(values) for what, values in times.items() if values}
    mb = {what: size / 1e6 for what, size in sizes.items()}
    print()
    print(f"upload of {args.n:,} ratings ({mb['upload']:.1f} MB JSONL, one POST, stored): {median['upload']:.2f} s "
          f"({args.n / median['upload']:,.0f} ratings/s)")  # fmt: skip
    print(f"walk of {args.n:,} ratings ({-(-args.n // PAGE_SIZE)} pages of {PAGE_SIZE}, each parsed): "
          f"{median['walk']:.2f} s ({args.n / median['walk']:,.0f} ratings/s)")  # fmt: skip
    print(f"export ratings.jsonl ({mb['export']:.1f} MB, {sizes['export_lines']:,} lines): {median['export']:.2f} s")
    print(f"export ratings.csv ({mb['export_csv']:.1f} MB): {median['export_csv']:.2f} s (no target)")
    print(f"export consensus.jsonl ({mb['consensus']:.1f} MB, {sizes['consensus_lines']:,} items): "
          f"{median['consensus']:.2f} s (no target)")  # fmt: skip
    if "trials" in median:
        print(f"export Layer3 trials.jsonl ({args.trials:,} trials with their metrics, {mb['trials']:.1f} MB): "
              f"{median['trials']:.2f} s (no target)")  # fmt: skip
    print()
    print("Beside figures not measured in this run (no ratio: other code or another system):")
    print("  " + BEFORE.label("walking 100,000 ratings of a batch 90.6 s; GET ...?batch= 0.30–0.42 s per page of 500"))
    print("  " + LABEL_STUDIO.label("export of 100,000 tasks with their annotations 100.7 s"))
    print("  like for like: all over HTTP on 127.0.0.1 to gunicorn on this machine. Here each page and each export")
    print("  line is one rating (id, batch, dialogue, annotator, 4 scores, 4 confidences, source, times, edits);")
    print("  Label Studio's export writes each task with its data and annotations.")
    print()
    targets = Targets(none_reason=f"the targets are defined at --n {TARGET_N:,}, this run used {args.n:,}")
    if args.n == TARGET_N:
        targets.at_most("upload of 100,000 ratings over HTTP", median["upload"], TARGET["upload"])
        targets.at_most("walking 100,000 ratings over HTTP", median["walk"], TARGET["walk"])
        targets.at_most("export of 100,000 ratings over HTTP", median["export"], TARGET["export"])
    return targets.finish()


if __name__ == "__main__":
    sys.exit(main())
