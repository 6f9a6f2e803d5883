"""What the HTTP benches share: a throw-away PostgreSQL database, gunicorn serving the project, free ports.

The server runs as the README's deployment section says: gunicorn with sync workers, production
settings (``DEBUG=0``), quiet logs, persistent database connections.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SECRET_KEY = "bench-only-" + "0" * 32


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for_port(port: int, attempts: int = 100) -> None:
    """Until something accepts connections on 127.0.0.1:``port`` (at most ``attempts`` x 0.1 s)."""
    for _ in range(attempts):
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.1)


def server_env(database_url: str, var_dir: str, **extra: str) -> dict:
    """The environment of a benchmarked server: production settings on ``database_url``, quiet logs."""
    return {
        **os.environ,
        "DATABASE_URL": database_url,
        "DEBUG": "0",
        "SECRET_KEY": SECRET_KEY,
        "SECURE_COOKIES": "0",
        "LOG_LEVEL": "WARNING",
        "VAR_DIR": var_dir,
        "DB_CONN_MAX_AGE": "300",
        **extra,
    }


def start_gunicorn(port: int, env: dict, workers: int, worker_class: str = "sync", threads: int = 1):
    """gunicorn serving config.wsgi on 127.0.0.1:``port`` in a process group of its own, once it accepts."""
    server = subprocess.Popen(
        [
            sys.executable, "-m", "gunicorn", "config.wsgi", "--bind", f"127.0.0.1:{port}",
            "--workers", str(workers), "--worker-class", worker_class, "--threads", str(threads),
            "--keep-alive", "30", "--log-level", "warning", "--timeout", "120",
        ],
        cwd=ROOT, env=env, start_new_session=True,
    )  # fmt: skip
    wait_for_port(port)
    return server


def stop_group(process: subprocess.Popen | None) -> None:
    """SIGTERM the process group a ``start_new_session`` process leads, and wait for its leader."""
    if process is None or process.poll() is not None:
        return
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def postgres_database(base_url: str, prefix: str = "jaiml_bench"):
    """A fresh database on the PostgreSQL server at ``base_url``: (its URL, a function dropping it), or None
    (with the reason printed) when the server does not answer."""
    try:
        import psycopg
    except ImportError:
        print("PostgreSQL not measured: psycopg is not installed")
        return None
    name = f"{prefix}_{uuid.uuid4().hex[:8]}"
    admin_url = base_url.rstrip("/") + "/postgres"
    try:
        with psycopg.connect(admin_url, autocommit=True, connect_timeout=3) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
    except psycopg.Error as exc:
        print(f"PostgreSQL not available at {base_url}: {exc}".strip())
        return None

    def drop():
        if "django" in sys.modules:  # a bench that set Django up in-process holds connections to it
            from django.db import connections

            connections.close_all()
        with psycopg.connect(admin_url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    return base_url.rstrip("/") + "/" + name, drop


@contextmanager
def temporary_postgres(base_url: str, prefix: str = "jaiml_bench"):
    """``postgres_database`` as a context manager; a server that does not answer is an error here."""
    created = postgres_database(base_url, prefix)
    if created is None:
        raise SystemExit(f"this bench needs PostgreSQL (--postgres {base_url})")
    url, drop = created
    try:
        yield url
    finally:
        drop()
