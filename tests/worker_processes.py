"""Real Celery worker processes for tests and benchmarks: started on a given database and broker, stopped or killed.

Each worker is ``celery -A config worker`` in a process of its own (``--pool solo``: the process that
takes a task runs it, so killing it kills the task), on the queue the caller's Celery app sends to.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parents[1]


def database_url(settings_dict: dict) -> str:
    """A ``DATABASE_URL`` for the PostgreSQL database ``settings_dict`` (Django's) names."""
    user = quote(settings_dict["USER"] or "", safe="")
    password = f":{quote(settings_dict['PASSWORD'], safe='')}" if settings_dict["PASSWORD"] else ""
    host, port = settings_dict["HOST"] or "127.0.0.1", settings_dict["PORT"] or 5432
    return f"postgres://{user}{password}@{host}:{port}/{settings_dict['NAME']}"


class Workers:
    def __init__(self, processes: list[subprocess.Popen], logs: list[Path]) -> None:
        self.processes, self.logs = processes, logs

    @property
    def pids(self) -> list[int]:
        return [process.pid for process in self.processes]

    def kill(self, index: int) -> None:
        """SIGKILL worker ``index``: no shutdown, no acknowledgement, its task dies with it."""
        process = self.processes[index]
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)

    def stop(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + 20
        for process in self.processes:
            try:
                process.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()

    def output(self) -> str:
        return "\n".join(
            f"--- worker {i} ---\n{log.read_text(errors='replace')[-4000:]}" for i, log in enumerate(self.logs)
        )


@contextmanager
def celery_workers(count: int, *, env: dict[str, str], queue: str, log_dir: Path, concurrency: int = 1):
    """``count`` worker processes consuming ``queue``, each with ``env`` added to this environment."""
    environment = {k: v for k, v in os.environ.items() if k != "PYTEST_XDIST_WORKER"}
    environment.update(env, CELERY_QUEUE=queue, PYTHONUNBUFFERED="1")
    log_dir.mkdir(parents=True, exist_ok=True)
    processes, logs = [], []
    for index in range(count):
        log = log_dir / f"worker-{index}.log"
        pool = ["--pool", "solo"] if concurrency == 1 else ["--pool", "prefork", "--concurrency", str(concurrency)]
        command = [sys.executable, "-m", "celery", "-A", "config", "worker", *pool, "--loglevel", "WARNING"]
        command += ["-n", f"w{index}-{os.getpid()}@%h", "--without-gossip", "--without-mingle", "-Q", queue]
        with log.open("w") as out:
            processes.append(subprocess.Popen(command, cwd=ROOT, env=environment, stdout=out, stderr=subprocess.STDOUT))
        logs.append(log)
    workers = Workers(processes, logs)
    try:
        yield workers
    finally:
        workers.stop()


def wait_until(condition, *, timeout: float, interval: float = 0.05, what: str = "the condition"):
    """Poll ``condition()`` until it returns something true; that value, or AssertionError after ``timeout``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"{what} did not happen within {timeout:.0f} s")


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def web_server(*, env: dict[str, str], log: Path):
    """gunicorn serving the project on a free port of 127.0.0.1 with ``env`` added; yields its base URL."""
    import socket

    environment = {k: v for k, v in os.environ.items() if k != "PYTEST_XDIST_WORKER"}
    environment.update(env, PYTHONUNBUFFERED="1")
    port = free_port()
    command = [sys.executable, "-m", "gunicorn", "config.wsgi", "--bind", f"127.0.0.1:{port}", "--workers", "1",
               "--log-level", "warning", "--timeout", "60"]  # fmt: skip
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("w") as out:
        server = subprocess.Popen(command, cwd=ROOT, env=environment, stdout=out, stderr=subprocess.STDOUT)

    def accepting() -> bool:
        if server.poll() is not None:
            raise AssertionError(f"gunicorn exited: {log.read_text(errors='replace')[-3000:]}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return True
        except OSError:
            return False

    try:
        wait_until(accepting, timeout=60, what="gunicorn accepting connections")
        yield f"http://127.0.0.1:{port}"
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
