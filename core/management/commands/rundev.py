"""Run the web server and a Celery worker together; Ctrl-C (or SIGTERM) stops both."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand

STOP_TIMEOUT = 15


class Command(BaseCommand):
    help = "Run the development web server and a Celery worker; stop both with Ctrl-C."

    def add_arguments(self, parser):
        parser.add_argument("addrport", nargs="?", default="127.0.0.1:8000")
        parser.add_argument("--concurrency", type=int, default=2, help="worker processes (default 2)")
        parser.add_argument("--noreload", action="store_true", help="do not restart the web server on code changes")

    def handle(self, *args, addrport: str, concurrency: int, noreload: bool, **options):
        manage = str(Path(settings.BASE_DIR) / "manage.py")
        web = [sys.executable, manage, "runserver", addrport]
        if noreload:
            web.append("--noreload")
        worker = [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "config",
            "worker",
            "--loglevel",
            "INFO",
            "--concurrency",
            str(concurrency),
            "--without-gossip",
            "--without-mingle",
            "--beat",  # periodic sweeps (annotation.tasks); production runs `celery -A config beat` on its own
            "--schedule",
            settings.CELERY_BEAT_SCHEDULE_FILENAME,
        ]
        stopping = False

        def on_term(signum, frame):
            nonlocal stopping
            stopping = True

        # Ctrl-C and SIGTERM both stop the loop below. SIGINT gets a handler of its own: a process started
        # from a background job (``make run &``, a CI script run with ``&``) inherits SIGINT ignored, and
        # would otherwise never see the Ctrl-C or ``kill -INT`` that its user sends.
        signal.signal(signal.SIGTERM, on_term)
        signal.signal(signal.SIGINT, on_term)
        # Each child leads its own process group, so stopping reaches the reloader's and the
        # worker's subprocesses too, whether the stop came from Ctrl-C or from SIGTERM.
        children = {
            "web server": subprocess.Popen(web, start_new_session=True),
            "worker": subprocess.Popen(worker, start_new_session=True),
        }
        self.stdout.write(
            self.style.SUCCESS(
                f"Web server: http://{addrport}/   Worker: celery ({settings.CELERY_BROKER_URL.split(':')[0]})"
            )
            + "   Ctrl-C stops both."
        )
        exit_code = 0
        try:
            while not stopping:
                for name, child in children.items():
                    code = child.poll()
                    if code is not None:
                        self.stderr.write(f"{name} exited with code {code}; stopping the other process")
                        exit_code = code or 1
                        stopping = True
                time.sleep(0.3)
        except KeyboardInterrupt:
            pass
        finally:
            self._stop(children)
        if exit_code:
            sys.exit(exit_code)

    def _stop(self, children: dict[str, subprocess.Popen]) -> None:
        # SIGTERM to runserver's group stops the reloader parent and child (which, like this process,
        # may have inherited SIGINT ignored); SIGTERM to the Celery main process alone gives a warm
        # shutdown in which it stops its own pool.
        self._signal_group(children["web server"], signal.SIGTERM)
        if children["worker"].poll() is None:
            children["worker"].send_signal(signal.SIGTERM)
        deadline = time.monotonic() + STOP_TIMEOUT
        for child in children.values():
            try:
                child.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                self._signal_group(child, signal.SIGKILL)
                child.wait()
            self._signal_group(child, signal.SIGKILL)  # leftovers in the group, e.g. pool processes
        self.stdout.write("stopped web server and worker")

    @staticmethod
    def _signal_group(child: subprocess.Popen, signum: int) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(child.pid, signum)
