"""Memory of the web process while a 200 MB trial log is uploaded (issue 27: bounded uploads).

Starts gunicorn as in *Production* (one sync worker, the embedded SQLite defaults in a fresh VAR_DIR),
generates a trial log of ``--mb`` MB (default 200; in a temporary folder, removed afterwards) and
streams it over a socket, as a client would:

- ``api``: ``POST /api/experiment/batch/`` with an API token. Over ``UPLOAD_MAX_BYTES_TRIALS`` the
  request's length alone refuses it: 413 before the body is read.
- ``page``: the same file as the research page's dialogue file (``POST /research/batches/new/``, logged
  in, with the CSRF token): the page reads the form to the end, dropping the file's bytes as they come
  (a form error names the limit).
- ``--accepted MB``: a trial log of that size within the limit, parsed and stored in the request, for
  the cost of what the limit lets through (about 7 MB of memory per MB of trial log).

For each it prints the worker's resident memory before the upload (after one warm-up request), its
peak during the upload (``VmHWM``, reset before each upload) and the difference; the target is a peak
under 200 MB above the baseline for the refused 200 MB upload.

    .venv/bin/python bench/upload_memory.py [--mb 200] [--accepted 50] [--root PATH]

``--root`` runs another checkout's code (e.g. a ``git worktree`` of the commit before the limits) with
this script, to compare.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import uuid
from http.cookies import SimpleCookie
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench._targets import Targets  # noqa: E402

MB = 1024 * 1024
SETUP = """
import django; django.setup()
from django.contrib.auth.models import Group, User
from core.api_tokens import token_create
user = User.objects.create_user("bench", password={password!r})
user.groups.add(Group.objects.get_or_create(name="researcher")[0])
print(token_create(user=user, name="bench")[1])
"""


def write_trials(path: Path, mb: float, *, at_most: bool = False) -> int:
    """A trial log of at least ``mb`` MB (``at_most``: of at most), generated trials repeated under new ids; its
    size in bytes."""
    sys.path.insert(0, str(ROOT))
    from layer3.demo.generator import generate_trials

    lines = [json.dumps(trial, ensure_ascii=False) for trial in generate_trials(500, seed=5)]
    size, number = 0, 0
    with path.open("w", encoding="utf-8") as handle:
        while size < mb * MB:
            line = lines[number % len(lines)].replace('"id": "', f'"id": "r{number // len(lines)}-', 1) + "\n"
            if at_most and size + len(line.encode()) > mb * MB:
                break
            handle.write(line)
            size += len(line.encode())
            number += 1
    return path.stat().st_size


def _status(pid: int) -> dict[str, int]:
    """VmRSS and VmHWM of a process, in MB."""
    found = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            found[key] = int(value.split()[0]) // 1024
    return found


def _reset_peak(pid: int) -> None:
    Path(f"/proc/{pid}/clear_refs").write_text("5")  # VmHWM starts again from VmRSS


def _worker_pid(master: int) -> int:
    for _ in range(200):
        children = Path(f"/proc/{master}/task/{master}/children").read_text().split()
        if children:
            return int(children[0])
        time.sleep(0.05)
    raise RuntimeError("gunicorn started no worker")


def _request(port: int, method: str, path: str, headers: dict, body_parts=(), length: int = 0) -> tuple:
    """Send a request whose body comes from ``body_parts`` (bytes or file paths, streamed), reading the answer
    meanwhile (a server may answer and close before the body is sent). ``(status, headers, body)``."""
    sock = socket.create_connection(("127.0.0.1", port))
    head = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1", f"Content-Length: {length}", "Connection: close"]
    head += [f"{key}: {value}" for key, value in headers.items()]
    received = bytearray()

    def read():
        try:
            while chunk := sock.recv(65536):
                received.extend(chunk)
        except OSError:
            pass

    reader = threading.Thread(target=read)
    reader.start()
    try:
        sock.sendall(("\r\n".join(head) + "\r\n\r\n").encode())
        for part in body_parts:
            if isinstance(part, Path):
                with part.open("rb") as handle:
                    while chunk := handle.read(1024 * 1024):
                        sock.sendall(chunk)
            else:
                sock.sendall(part)
        sock.shutdown(socket.SHUT_WR)
    except OSError:
        pass  # the server answered and closed without reading the rest
    reader.join(timeout=600)
    sock.close()
    head_bytes, _, body = bytes(received).partition(b"\r\n\r\n")
    lines = head_bytes.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1]) if lines and lines[0].startswith("HTTP/") else 0
    found = {}
    for line in lines[1:]:
        key, _, value = line.partition(":")
        found.setdefault(key.strip().lower(), []).append(value.strip())
    return status, found, body


def _multipart(fields: dict, file_field: str, file_path: Path, file_name: str) -> tuple[str, list, int]:
    boundary = uuid.uuid4().hex
    parts = []
    for name, value in fields.items():
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode())
    parts.append(
        f'--{boundary}\r\nContent-Disposition: form-data; name="{file_field}"; filename="{file_name}"\r\n'
        "Content-Type: application/octet-stream\r\n\r\n".encode()
    )
    parts.append(file_path)
    parts.append(f"\r\n--{boundary}--\r\n".encode())
    length = sum(part.stat().st_size if isinstance(part, Path) else len(part) for part in parts)
    return f"multipart/form-data; boundary={boundary}", parts, length


class Session:
    """A browser's cookies, enough to log in and post a form."""

    def __init__(self, port: int):
        self.port, self.cookies = port, {}

    def _headers(self, extra=None) -> dict:
        headers = {"Cookie": "; ".join(f"{k}={v}" for k, v in self.cookies.items())} if self.cookies else {}
        return {**headers, **(extra or {})}

    def _keep(self, headers: dict) -> None:
        for value in headers.get("set-cookie", []):
            cookie = SimpleCookie(value)
            self.cookies.update({key: morsel.value for key, morsel in cookie.items()})

    def get(self, path: str) -> tuple:
        status, headers, body = _request(self.port, "GET", path, self._headers())
        self._keep(headers)
        return status, body

    def post(self, path: str, parts, length: int, content_type: str) -> tuple:
        headers = self._headers({"Content-Type": content_type, "Referer": f"http://127.0.0.1:{self.port}{path}"})
        status, headers, body = _request(self.port, "POST", path, headers, parts, length)
        self._keep(headers)
        return status, body

    def csrf(self, path: str) -> str:
        _status_code, body = self.get(path)
        marker = b'name="csrfmiddlewaretoken" value="'
        start = body.index(marker) + len(marker)
        return body[start : body.index(b'"', start)].decode()


def _measure(pid: int, label: str, upload) -> dict:
    before = _status(pid)["VmRSS"]
    _reset_peak(pid)
    started = time.perf_counter()
    status, body = upload()
    seconds = time.perf_counter() - started
    after = _status(pid)
    row = {"case": label, "status": status, "baseline_mb": before, "peak_mb": after["VmHWM"],
           "delta_mb": after["VmHWM"] - before, "seconds": round(seconds, 1), "answer": body}  # fmt: skip
    print(
        f"{label:<46} {status:>4}  baseline {before:>5} MB  peak {after['VmHWM']:>5} MB  "
        f"+{after['VmHWM'] - before:>4} MB  {seconds:6.1f} s"
    )
    return row


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=float, default=200, help="size of the refused trial log (MB)")
    parser.add_argument("--accepted", type=float, default=0, help="also upload a trial log of this size within "
                        "the limit, parsed and stored (MB); 0: not")  # fmt: skip
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout whose code the server runs")
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    root = args.root.resolve()
    python = str(ROOT / ".venv" / "bin" / "python")
    with tempfile.TemporaryDirectory(prefix="upload-memory-") as folder:
        folder = Path(folder)
        password = secrets.token_urlsafe(16)
        env = {**os.environ, "VAR_DIR": str(folder / "var"), "DEBUG": "0", "SECRET_KEY": secrets.token_urlsafe(50),
               "ALLOWED_HOSTS": "127.0.0.1", "DATABASE_URL": "", "CELERY_BROKER_URL": "", "SECURE_COOKIES": "0",
               "DJANGO_SETTINGS_MODULE": "config.settings", "PYTHONPATH": str(root)}  # fmt: skip
        subprocess.run([python, "manage.py", "migrate", "-v", "0"], cwd=root, env=env, check=True)
        token = subprocess.run(
            [python, "-c", SETUP.format(password=password)], cwd=root, env=env, check=True, capture_output=True,
            text=True,
        ).stdout.strip().splitlines()[-1]  # fmt: skip
        trials = folder / "trials.jsonl"
        size = write_trials(trials, args.mb)
        print(f"code: {root}; trial log: {size / MB:.1f} MB ({size:,} bytes)")
        port = args.port or _free_port()
        server = subprocess.Popen(
            [str(ROOT / ".venv" / "bin" / "gunicorn"), "config.wsgi", "--bind", f"127.0.0.1:{port}", "--workers", "1",
             "--timeout", "600", "--log-level", "warning"],
            cwd=root, env=env,
        )  # fmt: skip
        try:
            _wait(port)
            pid = _worker_pid(server.pid)
            api = {"Authorization": f"Token {token}"}
            _request(port, "GET", "/api/v1/me/", api)  # the worker loads the app
            _request(port, "GET", "/api/v1/me/", api)
            rows = []

            def api_upload(path: Path, name: str):
                content_type, parts, length = _multipart({"name": name}, "file", path, "trials.jsonl")
                status, _headers, body = _request(
                    port, "POST", "/api/experiment/batch/", {**api, "Content-Type": content_type}, parts, length
                )
                return status, body.decode("utf-8", "replace")[:400]

            rows.append(_measure(pid, f"api: {size / MB:.0f} MB trial log", lambda: api_upload(trials, "big")))
            browser = Session(port)
            login = urllib.parse.urlencode(
                {"csrfmiddlewaretoken": browser.csrf("/login/"), "username": "bench", "password": password}
            ).encode()
            browser.post("/login/", [login], len(login), "application/x-www-form-urlencoded")

            def page_upload():
                token = browser.csrf("/research/batches/new/")
                fields = {"csrfmiddlewaretoken": token, "name": "page-big", "annotations_per_item": "3"}
                content_type, parts, length = _multipart(fields, "file", trials, "dialogues.jsonl")
                status, body = browser.post("/research/batches/new/", parts, length, content_type)
                text = body.decode("utf-8", "replace")
                start = text.find("UPLOAD_MAX_BYTES")
                return status, text[max(start - 200, 0) : start + 60] if start >= 0 else text[:200]

            rows.append(_measure(pid, f"page: {size / MB:.0f} MB as a dialogue file", page_upload))
            if args.accepted:
                small = folder / "accepted.jsonl"
                accepted = write_trials(small, args.accepted, at_most=True)
                label = f"api: {accepted / MB:.0f} MB trial log (within the limit)"
                rows.append(_measure(pid, label, lambda: api_upload(small, "accepted")))
            for row in rows:
                print(f"  {row['case']}: {row['answer']!r}")
            first = rows[0]
            print(f"the {size / MB:.0f} MB trial log (answer {first['status']}): +{first['delta_mb']} MB above the "
                  "baseline")  # fmt: skip
            targets = Targets()
            targets.at_most(f"memory above the baseline while a {size / MB:.0f} MB trial log is refused",
                            first["delta_mb"], 200, unit="MB", digits=0)  # fmt: skip
        finally:
            server.terminate()
            server.wait(timeout=30)
    return targets.finish()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait(port: int) -> None:
    for _ in range(600):
        try:
            status, _headers, _body = _request(port, "GET", "/healthz", {})
            if status:
                return
        except OSError:
            pass
        time.sleep(0.1)
    raise RuntimeError("the server did not start")


if __name__ == "__main__":
    sys.exit(main())
