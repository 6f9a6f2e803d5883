"""The production processes: the Procfile's lines start the right applications, compose.yaml runs those lines,
and `honcho start` brings them all up and stops them all on Ctrl-C."""

import importlib
import os
import re
import shlex
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
import yaml

from tests.core.test_rundev import _free_port, _port_open, _processes_with

ROOT = Path(__file__).resolve().parents[2]
PROCFILE_LINE = re.compile(r"^([A-Za-z0-9_-]+):\s*(.+)$")  # honcho's (and foreman's) reading of a line
PROCESSES = ["web", "streams", "worker", "beat"]


def procfile() -> dict[str, list[str]]:
    lines = (ROOT / "Procfile").read_text(encoding="utf-8").splitlines()
    return {m[1]: shlex.split(m[2]) for m in map(PROCFILE_LINE.match, lines) if m}


def _without_assignments(argv: list[str]) -> list[str]:
    while argv and re.match(r"^[A-Z_]+=", argv[0]):
        argv = argv[1:]
    return argv


def test_the_procfile_runs_web_streams_worker_and_beat_on_the_project_apps():
    commands = procfile()
    assert list(commands) == PROCESSES
    web = commands["web"]
    assert web[:2] == ["gunicorn", "config.wsgi"] and "${WEB_WORKERS:-4}" in web
    assert "--preload" in web  # set up once, then forked: config/wsgi.py closes the connections first
    assert callable(importlib.import_module(web[1]).application)
    streams = _without_assignments(commands["streams"])
    assert "DB_CONN_MAX_AGE=0" in commands["streams"]  # Django under ASGI keeps no connection between requests
    module, _, attribute = streams[1].partition(":")
    assert streams[0] == "uvicorn" and callable(getattr(importlib.import_module(module), attribute))
    from celery.app.utils import find_app

    from config.celery import app

    for name in ("worker", "beat"):
        argv = commands[name]
        assert argv[:4] == ["celery", "-A", "config", name]
        assert find_app(argv[2]) is app
    assert commands["worker"][commands["worker"].index("--concurrency") + 1] == "${WORKERS:-4}"


def test_compose_runs_the_procfile_lines_beside_postgresql_and_redis():
    compose = yaml.safe_load((ROOT / "compose.yaml").read_text(encoding="utf-8"))
    services = compose["services"]
    assert set(services) == {"postgres", "redis", "migrate", *PROCESSES}
    for name in PROCESSES:
        service = services[name]
        assert service["command"] == ["honcho", "start", name]
        assert service["build"] == "." and service["env_file"] == ".env"
        assert service["environment"]["DATABASE_URL"].endswith("@postgres:5432/jaiml")
        assert service["environment"]["CELERY_BROKER_URL"] == "redis://redis:6379/0"
        assert service["depends_on"]["migrate"] == {"condition": "service_completed_successfully"}
    assert services["migrate"]["depends_on"] == {"postgres": {"condition": "service_healthy"}}
    assert "container_name" not in services["worker"] and "ports" not in services["worker"]  # --scale worker=N
    for name in ("postgres", "redis", "web", "streams", "worker"):
        assert services[name]["healthcheck"]["test"]
    assert (ROOT / "Dockerfile").is_file() and (ROOT / "scripts" / "healthcheck.py").is_file()


def test_the_env_example_holds_no_secret():
    values = dict(
        line.split("=", 1) for line in (ROOT / ".env.example").read_text(encoding="utf-8").splitlines()
        if line and not line.startswith("#")
    )  # fmt: skip
    assert values["SECRET_KEY"] == "" and values["POSTGRES_PASSWORD"] == ""
    assert values["DEBUG"] == "0" and values["WORKERS"] == "4"
    assert ".env" in (ROOT / ".gitignore").read_text().split()


@pytest.fixture
def honcho_start(tmp_path):
    """`honcho start` on the Procfile, on SQLite and the filesystem broker, one process of each pool."""
    pytest.importorskip("honcho")
    if not Path("/proc/self/environ").exists():
        pytest.skip("needs /proc")
    web_port, streams_port = _free_port(), _free_port()
    env = {
        **os.environ,
        "DEBUG": "0",
        "VAR_DIR": str(tmp_path),
        "PYTHONUNBUFFERED": "1",
        "WEB_PORT": str(web_port),
        "STREAMS_PORT": str(streams_port),
        "WEB_WORKERS": "1",
        "WORKERS": "1",
        "PATH": str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", ""),
    }
    env.pop("DATABASE_URL", None)
    env.pop("CELERY_BROKER_URL", None)
    no_env_file = tmp_path / "empty.env"  # not the developer's .env
    no_env_file.write_text("")
    log_path = tmp_path / "honcho.log"
    log = log_path.open("w")
    process = subprocess.Popen(
        [sys.executable, "-m", "honcho", "start", "--no-colour", "-e", str(no_env_file), "-d", str(ROOT)],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    yield process, (web_port, streams_port), str(tmp_path), log_path
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGKILL)
    for pid in _processes_with(str(tmp_path)):
        os.kill(pid, signal.SIGKILL)
    log.close()


def _healthy(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as response:
            return response.status == 200
    except OSError:
        return False


def test_honcho_starts_every_process_and_ctrl_c_stops_them_all(honcho_start):
    process, ports, marker, log_path = honcho_start
    deadline = time.monotonic() + 90
    while True:
        log = log_path.read_text()
        up = {
            "web": _healthy(ports[0]),
            "streams": _healthy(ports[1]),
            "worker": re.search(r"^\S+ worker\.1 +\| .*worker\.1@\S+ ready\.", log, re.M) is not None,
            "beat": re.search(r"^\S+ beat\.1 +\| .*beat: Starting", log, re.M) is not None,
        }
        if all(up.values()):
            break
        if process.poll() is not None or time.monotonic() > deadline:
            raise AssertionError(f"not up: {[name for name, ok in up.items() if not ok]}\n{log}")
        time.sleep(0.3)
    os.killpg(process.pid, signal.SIGINT)  # what the terminal does on Ctrl-C
    assert process.wait(timeout=30) == 130  # honcho: stopped by SIGINT
    deadline = time.monotonic() + 30
    while (_processes_with(marker) or any(map(_port_open, ports))) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _processes_with(marker) == [], log_path.read_text()
    assert not any(map(_port_open, ports))


def test_the_health_check_names_a_host_django_accepts():
    import importlib.util

    spec = importlib.util.spec_from_file_location("healthcheck", ROOT / "scripts" / "healthcheck.py")
    healthcheck = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(healthcheck)
    assert healthcheck.host_header("") == "localhost"
    assert healthcheck.host_header(" *, .example.org, jaiml.example.org") == "jaiml.example.org"
    assert healthcheck.host_header("localhost,127.0.0.1,[::1]") == "localhost"
    assert healthcheck.main(["healthcheck.py"]) == 2
    assert healthcheck.main(["healthcheck.py", str(_free_port())]) == 1  # nothing listens there
