"""core.startup_gc: the garbage collector is paused while a process starts and on again once Django is set up."""

import gc
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.apps import apps

from core import startup_gc

ROOT = Path(__file__).resolve().parents[2]

STATE = "import gc; print(gc.isenabled(), gc.get_freeze_count() > 0)"


@pytest.fixture
def collector():
    """The collector's state as a test found it, restored after (objects frozen by the test thawed)."""
    enabled = gc.isenabled()
    yield
    gc.unfreeze()
    startup_gc._paused = False
    (gc.enable if enabled else gc.disable)()


def test_pause_turns_the_collector_off_and_resume_freezes_start_up_and_turns_it_on(collector):
    gc.enable()
    startup_gc.pause()
    assert not gc.isenabled()
    startup_gc.resume()
    assert gc.isenabled() and gc.get_freeze_count() > 0


def test_resume_leaves_a_collector_that_was_off_before_pause_off(collector):
    gc.disable()
    startup_gc.pause()
    startup_gc.resume()
    assert not gc.isenabled() and gc.get_freeze_count() == 0


def test_resume_without_pause_changes_nothing(collector):
    gc.enable()
    startup_gc.resume()
    assert gc.isenabled() and gc.get_freeze_count() == 0


def test_the_app_that_resumes_the_collector_is_installed_last():
    assert list(apps.get_app_configs())[-1].name == "config"


def _run(args: list[str]) -> str:
    env = {**os.environ, "DEBUG": "1", "DJANGO_SETTINGS_MODULE": "config.settings"}
    done = subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip().splitlines()[-1]


@pytest.mark.parametrize(
    "args",
    [
        [sys.executable, "manage.py", "shell", "--no-imports", "-c", STATE],  # every command
        [sys.executable, "-c", "import config.wsgi; " + STATE],  # gunicorn's workers
        [sys.executable, "-c", "import config.asgi; " + STATE],  # uvicorn (streams)
    ],
    ids=["manage.py", "wsgi", "asgi"],
)
def test_a_started_process_runs_with_the_collector_on_and_start_up_frozen(args):
    assert _run(args) == "True True"


def test_the_wsgi_application_leaves_no_database_connection_for_forked_workers_to_inherit():
    code = (
        "import config.wsgi; from django.db import connections; "
        "print(all(c.connection is None for c in connections.all(initialized_only=True)))"
    )
    assert _run([sys.executable, "-c", code]) == "True"
