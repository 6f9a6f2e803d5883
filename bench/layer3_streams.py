"""Layer3 progress streams beside the annotators: do 20 open SSE streams slow the rating page?

Target (issue #14): with 20 researchers' progress streams open, the annotators' HTMX rating flow at 8
annotators keeps its throughput and p95 within 10 % of the same server without the streams, measured
in the same run.

The setup is the README's *Production*: the annotators' pages on gunicorn with sync workers, the
progress streams on a uvicorn process of their own (ASGI; each stream an async generator that polls
once a second), both on this machine and this PostgreSQL, as a proxy routing `.../layer3-progress` to
uvicorn would have it. The streams follow a run that stays in flight (a `Layer3Run` marked running),
so every stream polls for the whole measurement; each is bounded (`LAYER3_SSE_SECONDS`, here 10 s)
and reconnects with `Last-Event-ID` as a browser does. `--stream-server gunicorn` sends the streams
to the annotators' gunicorn instead, which shows why they need a server of their own (with sync
workers 20 streams hold every worker).

    .venv/bin/python bench/layer3_streams.py [--seconds 15] [--rounds 3] [--streams 20] [--clients 8]
                                             [--workers 4] [--worker-class sync] [--threads 1]
                                             [--stream-server uvicorn|gunicorn]
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench._server import (  # noqa: E402
    free_port,
    postgres_database,
    server_env,
    start_gunicorn,
    wait_for_port,
)
from bench._targets import Targets  # noqa: E402
from bench.annotator_load import PASSWORD, Client, percentile, prepare, run_load  # noqa: E402

TOLERANCE = 0.10


def prepare_layer3() -> str:
    """A researcher and a Layer3 batch whose run stays in flight; returns the batch name."""
    from django.contrib.auth.models import Group, User
    from django.utils import timezone

    from layer3.models import Batch, Layer3Run, TrialLog

    researchers, _ = Group.objects.get_or_create(name="researcher")
    for i in range(4):
        user = User.objects.create_user(f"researcher_{i}", password=PASSWORD)
        user.groups.add(researchers)
    batch = Batch.objects.create(name="streams", experiment_id="bench")
    TrialLog.objects.bulk_create(
        TrialLog(batch=batch, external_id=f"t{i}", model_config="A", stage=3, input_text="", generated_data={})
        for i in range(100)
    )
    Layer3Run.objects.create(
        batch=batch, options={}, status="running", total_targets=100, started_at=timezone.now(),
        heartbeat_at=timezone.now(), evaluated_count=40, current_trial="t39",
    )  # fmt: skip
    return batch.name


class Streams:
    """``count`` EventSource-like readers: connect, read until the server ends the response, reconnect."""

    def __init__(self, port: int, cookies: list[dict], batch: str, count: int) -> None:
        self.port, self.batch = port, batch
        self.stop = threading.Event()
        self.connections = 0
        self.bytes = 0
        self.errors: list[str] = []
        self.lock = threading.Lock()
        self.threads = [
            threading.Thread(target=self._loop, args=(cookies[i % len(cookies)],), daemon=True) for i in range(count)
        ]

    def start(self) -> None:
        for thread in self.threads:
            thread.start()

    def close(self) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join(timeout=15)

    def _loop(self, cookies: dict) -> None:
        cookie = "; ".join(f"{k}={v}" for k, v in cookies.items())
        last_id = ""
        while not self.stop.is_set():
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=20) as sock:
                    request = (
                        f"GET /api/experiment/batch/{self.batch}/layer3-progress HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                        f"Accept: text/event-stream\r\nCookie: {cookie}\r\n"
                        + (f"Last-Event-ID: {last_id}\r\n" if last_id else "")
                        + "Connection: close\r\n\r\n"
                    )
                    sock.sendall(request.encode())
                    with self.lock:
                        self.connections += 1
                    while not self.stop.is_set():
                        chunk = sock.recv(65536)
                        if not chunk:
                            break
                        with self.lock:
                            self.bytes += len(chunk)
                        for line in chunk.split(b"\n"):
                            if line.startswith(b"id: "):
                                last_id = line[4:].decode().strip()
            except OSError as exc:
                with self.lock:
                    self.errors.append(repr(exc))
                time.sleep(0.5)


def start_uvicorn(port: int, env: dict) -> subprocess.Popen:
    """uvicorn serving config.asgi on 127.0.0.1:``port`` (one process, as the README runs the streams)."""
    server = subprocess.Popen(
        [
            sys.executable, "-m", "uvicorn", "config.asgi:application", "--host", "127.0.0.1", "--port", str(port),
            "--lifespan", "off", "--log-level", "warning", "--no-access-log",
        ],
        cwd=ROOT, env=env, start_new_session=True,
    )  # fmt: skip
    wait_for_port(port)
    return server


def measure(port: int, batch_id: int, clients: int, seconds: float) -> dict:
    usernames = [f"load_{i:02d}" for i in range(clients)]
    run = run_load(port, batch_id, usernames, seconds, True, lambda: (0.0,))
    return {"submit": run["results"]["submit"], "wall": run["wall"], "errors": run["errors"]}


def pooled(runs: list[dict]) -> dict:
    latencies = [value for run in runs for value in run["submit"]]
    return {
        "rate": len(latencies) / sum(run["wall"] for run in runs),
        "p50": percentile(latencies, 0.5),
        "p95": percentile(latencies, 0.95),
        "errors": [error for run in runs for error in run["errors"]],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=15.0, help="per run")
    parser.add_argument("--rounds", type=int, default=3, help="runs of each condition, alternating")
    parser.add_argument("--streams", type=int, default=20)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--worker-class", default="sync")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--stream-server", choices=("uvicorn", "gunicorn"), default="uvicorn")
    parser.add_argument(
        "--postgres", default=os.environ.get("BENCH_POSTGRES_URL", "postgres://postgres@127.0.0.1:5432/")
    )
    args = parser.parse_args()

    database = postgres_database(args.postgres)
    if database is None:
        return 1
    database_url, drop = database
    server = streamer = None
    try:
        n_items = int(args.seconds * 600 * 2 * args.rounds) + 1000
        batch_id = prepare(database_url, n_items=n_items, n_annotators=args.clients)
        layer3_batch = prepare_layer3()
        port = free_port()
        env = server_env(database_url, tempfile.mkdtemp(prefix="jaiml-streams-"), LAYER3_SSE_SECONDS="10")
        server = start_gunicorn(port, env, args.workers, args.worker_class, args.threads)
        stream_port = port
        if args.stream_server == "uvicorn":
            stream_port = free_port()
            streamer = start_uvicorn(stream_port, {**env, "DB_CONN_MAX_AGE": "0"})  # Django: none under ASGI
        cookies = []
        for i in range(4):
            researcher = Client(port, f"researcher_{i}")
            researcher.log_in()
            cookies.append(dict(researcher.cookies))
        where = "a uvicorn process of their own (ASGI)" if streamer else "the same gunicorn"
        print(
            f"annotators: gunicorn {args.workers} workers x {args.threads} threads ({args.worker_class}), PostgreSQL; "
            f"streams on {where}; {args.clients} annotators (HTMX flow), "
            f"{args.rounds} x {args.seconds:.0f} s per condition, alternating"
        )
        # Alternating runs (without, with, without, with, ...), so that a slow spell of this shared machine
        # or the queue getting deeper hits both conditions alike; each condition's runs are pooled.
        runs: dict[bool, list[dict]] = {False: [], True: []}
        connections = errors = received = 0
        for round_ in range(args.rounds * 2):
            streaming = round_ % 2 == 1
            streams = Streams(stream_port, cookies, layer3_batch, args.streams) if streaming else None
            if streams:
                streams.start()
                time.sleep(2)
            runs[streaming].append(measure(port, batch_id, args.clients, args.seconds))
            if streams:
                streams.close()
                connections, errors, received = (
                    connections + streams.connections,
                    errors + len(streams.errors),
                    received + streams.bytes,
                )
        without, with_streams = pooled(runs[False]), pooled(runs[True])
        for label, result in (("without streams", without), (f"with {args.streams} streams", with_streams)):
            failures = f"; {len(result['errors'])} annotator errors" if result["errors"] else ""
            print(
                f"{label:<18} {result['rate']:7.1f} ratings/s   submit p50 {result['p50']:6.1f} ms   "
                f"p95 {result['p95']:6.1f} ms{failures}"
            )
        print(f"streams: {connections} connections (bounded responses reconnect), {received:,} bytes, {errors} errors")
        rate_ratio = with_streams["rate"] / without["rate"]
        p95_ratio = with_streams["p95"] / without["p95"]
        print(f"throughput {rate_ratio:.2f}x, p95 {p95_ratio:.2f}x of the run without streams")
        targets = Targets()
        targets.at_least("throughput with streams / without", rate_ratio, 1 - TOLERANCE, unit="x", digits=2)
        targets.at_most("p95 with streams / without", p95_ratio, 1 + TOLERANCE, unit="x", digits=2)
    finally:
        for process in (server, streamer):
            if process is not None:
                os.killpg(process.pid, signal.SIGTERM)
                process.wait(timeout=30)
        from django.db import connections

        connections.close_all()
        drop()
    return targets.finish()


if __name__ == "__main__":
    sys.exit(main())
