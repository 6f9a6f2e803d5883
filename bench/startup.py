"""Start-up benchmark: ``django.setup()`` and ``manage.py migrate`` with nothing to do (issue 31).

Run from the project root: ``.venv/bin/python bench/startup.py`` (``--runs N``, default 5;
``--root DIR`` measures another checkout of the project with this script).

Every figure is the median of ``--runs`` fresh subprocesses measured in this run:

(a) ``django.setup()`` (DEBUG=1, ``config.settings``), timed inside the process from ``import django``
    (target: <= 0.6 s);
(b) ``manage.py migrate`` on a temporary SQLite database that is already migrated, the whole process's
    wall time (target: <= 1 s).

Python's bytecode of the project is compiled once before the timed runs (into a temporary
``PYTHONPYCACHEPREFIX``), as after ``python -m compileall``: with ``PYTHONDONTWRITEBYTECODE=1`` and no
compiled files every start also compiles the project's modules (``--no-bytecode`` measures that case).
The last line summarises every target; the exit status is 0 only when all are met.

Importing this module has no side effects.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET_SETUP_SECONDS = 0.6
TARGET_MIGRATE_SECONDS = 1.0

SETUP = """
import time
started = time.perf_counter()
import django
django.setup()
print(time.perf_counter() - started)
"""


def run(args: list[str], root: Path, env: dict) -> subprocess.CompletedProcess:
    done = subprocess.run(args, cwd=root, env=env, capture_output=True, text=True, timeout=300, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed ({done.returncode}):\n{done.stderr[-2000:]}")
    return done


def setup_seconds(root: Path, env: dict) -> float:
    return float(run([sys.executable, "-c", SETUP], root, env).stdout.strip().splitlines()[-1])


def migrate_seconds(root: Path, env: dict) -> float:
    started = time.perf_counter()
    run([sys.executable, "manage.py", "migrate", "--verbosity", "0"], root, env)
    return time.perf_counter() - started


def verdict(ok: bool) -> str:
    return "target met" if ok else "TARGET MISSED"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[1])
    parser.add_argument("--no-bytecode", action="store_true", help="every start compiles the project's modules")
    options = parser.parse_args(argv)
    root = options.root.resolve()
    with tempfile.TemporaryDirectory(prefix="bench-startup-") as tmp:
        env = {**os.environ, "DEBUG": "1", "DJANGO_SETTINGS_MODULE": "config.settings",
               "DATABASE_URL": f"sqlite:///{tmp}/db.sqlite3", "VAR_DIR": f"{tmp}/var"}  # fmt: skip
        if options.no_bytecode:
            env["PYTHONDONTWRITEBYTECODE"] = "1"
            env.pop("PYTHONPYCACHEPREFIX", None)
        else:
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            env["PYTHONPYCACHEPREFIX"] = f"{tmp}/pycache"
        bytecode = "compiled every start" if options.no_bytecode else "compiled once before the runs"
        print(f"project {root}; Python {sys.version.split()[0]}; bytecode {bytecode}; {options.runs} runs each")
        run([sys.executable, "manage.py", "migrate", "--verbosity", "0"], root, env)  # the database, the bytecode
        setups = [setup_seconds(root, env) for _ in range(options.runs)]
        migrates = [migrate_seconds(root, env) for _ in range(options.runs)]
    setup_t, migrate_t = statistics.median(setups), statistics.median(migrates)
    setup_ok, migrate_ok = setup_t <= TARGET_SETUP_SECONDS, migrate_t <= TARGET_MIGRATE_SECONDS
    print(f"(a) django.setup()           median {setup_t:5.2f} s  (min {min(setups):.2f}, max {max(setups):.2f})"
          f"  target <= {TARGET_SETUP_SECONDS} s: {verdict(setup_ok)}")  # fmt: skip
    print(f"(b) manage.py migrate no-op  median {migrate_t:5.2f} s  (min {min(migrates):.2f}, "
          f"max {max(migrates):.2f})  target <= {TARGET_MIGRATE_SECONDS} s: {verdict(migrate_ok)}")  # fmt: skip
    results = [("django.setup()", setup_ok), ("migrate no-op", migrate_ok)]
    missed = [name for name, ok in results if not ok]
    if missed:
        print(f"targets: {len(results) - len(missed)} of {len(results)} met; MISSED: {', '.join(missed)}")
        return 1
    print(f"targets: all {len(results)} met ({', '.join(name for name, _ in results)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
