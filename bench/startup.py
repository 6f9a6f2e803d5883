"""Start-up benchmark (issue 31): ``django.setup()``, ``migrate`` with nothing to do, a first start on a fresh
database and a restart.

Run from the project root: ``.venv/bin/python bench/startup.py`` (``--runs N``, default 5; ``--root DIR``
measures another checkout of the project with this script; ``--postgres URL`` runs on PostgreSQL instead of
SQLite, creating and dropping its own databases next to the one URL names; ``--workers N``, default 4;
``--no-preload`` starts gunicorn without ``--preload``, as the Procfile did before issue 31).

Every figure is the median of ``--runs`` runs in new processes, measured in this run:

(a) ``django.setup()`` (DEBUG=1, ``config.settings``), timed inside the process from ``import django``, started
    as ``manage.py`` and ``config/wsgi.py`` start it (target: <= 0.6 s);
(b) ``manage.py migrate --verbosity 0`` on a database that is already migrated, the whole process's wall time
    (target: <= 1 s);
(c) first start: on a new, empty database, ``manage.py migrate --no-input`` (the final schema created at
    once, core.fresh_schema), then the web server as the Procfile's ``web`` line starts it (gunicorn
    ``config.wsgi --preload``, ``--workers`` sync workers, DEBUG=0), until its first HTTP 200 of ``GET /login/``;
    wall time from launching ``migrate`` to that answer (target: <= 3 s);
(d) restart: the same web server started on a migrated database, until its first HTTP 200 of ``GET /login/``
    (target: <= 2 s);
(e) the first start of (c) with ``migrate --replay``, which applies the migrations one by one instead of
    creating a new database's schema at once (core.fresh_schema): the reference for (c), measured in the same
    run (no target; left out for a checkout without core/fresh_schema.py).

``/login/`` is the first page anyone asks for: it answers 200 without a login and renders a template through
every middleware. Python's bytecode of the project is compiled once before the timed runs (into a temporary
``PYTHONPYCACHEPREFIX``, by an untimed ``migrate`` and server start), as the image's ``compileall`` does; with
``--no-bytecode`` every process compiles the project's modules again (``PYTHONDONTWRITEBYTECODE=1``). The
server is asked every 10 ms, so (c) and (d) are at most 10 ms late. The last line summarises every target;
the exit status is 0 only when all are met.

Importing this module has no side effects.
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._targets import Targets

TARGET_SETUP_SECONDS = 0.6
TARGET_MIGRATE_SECONDS = 1.0
TARGET_FIRST_START_SECONDS = 3.0
TARGET_RESTART_SECONDS = 2.0
POLL_SECONDS = 0.01
SERVER_TIMEOUT_SECONDS = 120

# As manage.py and config/wsgi.py start: the garbage collector paused until django.setup() is done
# (core.startup_gc, where the checkout has it).
SETUP = """
import time
started = time.perf_counter()
try:
    from core import startup_gc
except ImportError:
    startup_gc = None
else:
    startup_gc.pause()
import django
django.setup()
print(time.perf_counter() - started)
"""


def run(args: list[str], root: Path, env: dict) -> subprocess.CompletedProcess:
    done = subprocess.run(args, cwd=root, env=env, capture_output=True, text=True, timeout=300, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed ({done.returncode}):\n{done.stderr[-2000:]}")
    return done


def migrate(root: Path, env: dict, *options: str) -> None:
    run([sys.executable, "manage.py", "migrate", "--no-input", "--verbosity", "0", *options], root, env)


def setup_seconds(root: Path, env: dict) -> float:
    return float(run([sys.executable, "-c", SETUP], root, env).stdout.strip().splitlines()[-1])


def migrate_seconds(root: Path, env: dict) -> float:
    started = time.perf_counter()
    migrate(root, env)
    return time.perf_counter() - started


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


PRELOAD = ["--preload"]  # as the Procfile; [] with --no-preload


def serve_until_ok(root: Path, env: dict, workers: int, log: Path) -> float:
    """Seconds from launching the web server to its first HTTP 200 of /login/; the server is stopped after."""
    port = free_port()
    url = f"http://127.0.0.1:{port}/login/"
    command = [sys.executable, "-m", "gunicorn", "config.wsgi", "--bind", f"127.0.0.1:{port}",
               "--workers", str(workers), "--timeout", "60", *PRELOAD]  # fmt: skip
    with log.open("w") as output:
        started = time.perf_counter()
        server = subprocess.Popen(command, cwd=root, env=env, stdout=output, stderr=subprocess.STDOUT)
        try:
            while True:
                if server.poll() is not None:
                    raise SystemExit(f"the server stopped ({server.returncode}):\n{log.read_text()[-2000:]}")
                if time.perf_counter() - started > SERVER_TIMEOUT_SECONDS:
                    raise SystemExit(f"no answer from {url} in {SERVER_TIMEOUT_SECONDS} s:\n{log.read_text()[-2000:]}")
                try:
                    with urllib.request.urlopen(url, timeout=SERVER_TIMEOUT_SECONDS) as answer:
                        if answer.status == 200:
                            return time.perf_counter() - started
                except urllib.error.HTTPError as error:
                    raise SystemExit(f"{url} answered {error.code}:\n{log.read_text()[-2000:]}") from error
                except (urllib.error.URLError, ConnectionError):
                    pass  # not listening yet
                time.sleep(POLL_SECONDS)
        finally:
            server.terminate()
            server.wait(timeout=60)


def first_start_seconds(root: Path, env: dict, workers: int, log: Path, *options: str) -> float:
    """Seconds from launching ``migrate`` on the new database of ``env`` to the server's first HTTP 200."""
    started = time.perf_counter()
    migrate(root, env, *options)
    return time.perf_counter() - started + serve_until_ok(root, env, workers, log)


class Databases:
    """New, empty databases for the runs: SQLite files in a folder, or PostgreSQL databases beside ``--postgres``."""

    def __init__(self, folder: Path, postgres: str | None) -> None:
        self.folder, self.postgres, self.created = folder, postgres, []

    def new(self, name: str) -> str:
        if self.postgres is None:
            return f"sqlite:///{self.folder / (name + '.sqlite3')}"
        import psycopg  # only with --postgres

        database = f"bench_startup_{os.getpid()}_{name}"
        with psycopg.connect(self._libpq(self.postgres), autocommit=True) as connection:
            connection.execute(f'CREATE DATABASE "{database}"')
        self.created.append(database)
        parts = urlsplit(self.postgres)
        return urlunsplit(parts._replace(path=f"/{database}"))

    def drop_all(self) -> None:
        if self.postgres is None or not self.created:
            return
        import psycopg

        with psycopg.connect(self._libpq(self.postgres), autocommit=True) as connection:
            for database in self.created:
                connection.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
        self.created.clear()

    @staticmethod
    def _libpq(url: str) -> str:
        return url.replace("postgres://", "postgresql://", 1)


def summary(name: str, values: list[float]) -> str:
    runs = ", ".join(f"{value:.2f}" for value in values)
    return f"{name:<34} median {statistics.median(values):5.2f} s  (runs {runs})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[1])
    parser.add_argument("--postgres", metavar="URL", help="a PostgreSQL database URL; new databases go beside it")
    parser.add_argument("--workers", type=int, default=4, help="gunicorn sync workers, as the Procfile (default 4)")
    parser.add_argument("--no-bytecode", action="store_true", help="every start compiles the project's modules")
    parser.add_argument("--no-preload", action="store_true", help="gunicorn without --preload (08107f5's Procfile)")
    options = parser.parse_args(argv)
    PRELOAD[:] = [] if options.no_preload else ["--preload"]
    root = options.root.resolve()
    with tempfile.TemporaryDirectory(prefix="bench-startup-") as tmp:
        folder = Path(tmp)
        databases = Databases(folder, options.postgres)
        env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "VAR_DIR": f"{tmp}/var",
               "SECRET_KEY": "bench-only-" + "0" * 32}  # fmt: skip
        if options.no_bytecode:
            env["PYTHONDONTWRITEBYTECODE"] = "1"
            env.pop("PYTHONPYCACHEPREFIX", None)
        else:
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            env["PYTHONPYCACHEPREFIX"] = f"{tmp}/pycache"
        dev = {**env, "DEBUG": "1"}
        server = {**env, "DEBUG": "0"}
        backend = "PostgreSQL" if options.postgres else "SQLite"
        bytecode = "compiled every start" if options.no_bytecode else "compiled once before the runs"
        gunicorn = f"gunicorn {options.workers} sync workers" + ("" if options.no_preload else " --preload")
        print(f"project {root}; Python {sys.version.split()[0]}; {backend}; bytecode {bytecode}; {gunicorn}; "
              f"{options.runs} runs each")  # fmt: skip
        try:
            migrated = databases.new("migrated")
            dev["DATABASE_URL"] = server["DATABASE_URL"] = migrated
            migrate(root, dev)  # the database of (a), (b) and (d); the bytecode
            serve_until_ok(root, server, options.workers, folder / "server.log")  # untimed: the server's bytecode
            setups = [setup_seconds(root, dev) for _ in range(options.runs)]
            migrates = [migrate_seconds(root, dev) for _ in range(options.runs)]
            log = folder / "server.log"
            firsts = [
                first_start_seconds(root, {**server, "DATABASE_URL": databases.new(f"fresh{n}")}, options.workers, log)
                for n in range(options.runs)
            ]
            restarts = [serve_until_ok(root, server, options.workers, log) for _ in range(options.runs)]
            replays = [
                first_start_seconds(
                    root, {**server, "DATABASE_URL": databases.new(f"replayed{n}")}, options.workers, log, "--replay"
                )
                for n in range(options.runs if (root / "core" / "fresh_schema.py").exists() else 0)
            ]
        finally:
            databases.drop_all()
    targets = Targets()
    for label, name, values, bound in (
        ("(a) django.setup()", "django.setup()", setups, TARGET_SETUP_SECONDS),
        ("(b) migrate with nothing to do", "migrate with nothing to do", migrates, TARGET_MIGRATE_SECONDS),
        ("(c) first start, fresh database", "first start on a fresh database", firsts, TARGET_FIRST_START_SECONDS),
        ("(d) restart", "restart", restarts, TARGET_RESTART_SECONDS),
    ):
        met = targets.at_most(name, statistics.median(values), bound)
        print(f"{summary(label, values)}  target <= {bound:g} s: {targets.verdict(met)}")
    if replays:
        ratio = statistics.median(replays) / statistics.median(firsts)
        print(f"{summary('(e) first start, --replay', replays)}  no target: the reference for (c), every "
              f"migration applied one by one ({ratio:.1f}x the time of (c))")  # fmt: skip
    return targets.finish()


if __name__ == "__main__":
    sys.exit(main())
