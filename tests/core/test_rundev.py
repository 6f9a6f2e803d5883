"""`make run` ends in `manage.py rundev`: web server + worker together, stopped together."""

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _processes_with(marker: str) -> list[int]:
    """Pids of processes whose environment contains ``marker`` (the test's own VAR_DIR)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if marker.encode() in (entry / "environ").read_bytes():
                found.append(int(entry.name))
        except OSError:
            continue
    return [pid for pid in found if pid != os.getpid()]


@pytest.fixture
def rundev(tmp_path):
    if not Path("/proc/self/environ").exists():
        pytest.skip("needs /proc")
    port = _free_port()
    env = {**os.environ, "DEBUG": "1", "VAR_DIR": str(tmp_path), "PYTHONUNBUFFERED": "1"}
    env.pop("DATABASE_URL", None)
    env.pop("CELERY_BROKER_URL", None)
    log = (tmp_path / "rundev.log").open("w")
    process = subprocess.Popen(
        [sys.executable, "manage.py", "rundev", f"127.0.0.1:{port}", "--noreload", "--concurrency", "1"],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as response:
                if response.status == 200 and "ready" in (tmp_path / "rundev.log").read_text():
                    break
        except OSError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            raise AssertionError("rundev did not come up:\n" + (tmp_path / "rundev.log").read_text())
        time.sleep(0.3)
    yield process, port, str(tmp_path)
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGKILL)
    for pid in _processes_with(str(tmp_path)):
        os.kill(pid, signal.SIGKILL)
    log.close()


def _port_open(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0


def _all_stopped(port: int, marker: str, timeout: float = 30.0) -> bool:
    """Whether the port closes and every process of the run ends within ``timeout`` (a loaded machine is slow)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not _port_open(port) and _processes_with(marker) == []:
            return True
        time.sleep(0.1)
    return False


def _exit_code(process, folder: str) -> int:
    """The launcher's exit code; it stops its children within STOP_TIMEOUT, so 90 s means it hangs (log shown)."""
    try:
        return process.wait(timeout=90)
    except subprocess.TimeoutExpired:
        raise AssertionError("rundev did not stop:\n" + (Path(folder) / "rundev.log").read_text()) from None


def test_ctrl_c_stops_web_server_and_worker(rundev):
    process, port, marker = rundev
    assert len(_processes_with(marker)) >= 3  # launcher, web server, worker
    os.killpg(process.pid, signal.SIGINT)  # what the terminal does on Ctrl-C
    assert _exit_code(process, marker) == 0
    assert _all_stopped(port, marker), f"still running: {_processes_with(marker)}, port open: {_port_open(port)}"


def test_sigterm_to_the_launcher_stops_both(rundev):
    process, port, marker = rundev
    process.send_signal(signal.SIGTERM)
    assert _exit_code(process, marker) == 0
    assert _all_stopped(port, marker), f"still running: {_processes_with(marker)}, port open: {_port_open(port)}"
