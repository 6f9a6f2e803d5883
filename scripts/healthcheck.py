"""A container's health check (compose.yaml): GET /healthz of the server on this machine's PORT.

    python scripts/healthcheck.py 8000

Exit status 0 when it answers 200 (the database and the broker are up), 1 otherwise. The request
names the first host of ``ALLOWED_HOSTS`` (else ``localhost``), so Django accepts it whatever the
site's host names, and says it came over HTTPS (used only with ``SECURE_PROXY_SSL_HEADER=1``, whose
``SECURE_SSL_REDIRECT`` would otherwise answer with a redirect). No Django: this runs every few seconds.
"""

from __future__ import annotations

import os
import sys
import urllib.error
import urllib.request

TIMEOUT = 5  # seconds


def host_header(allowed_hosts: str) -> str:
    """The first host name of ``ALLOWED_HOSTS`` a request may carry (not ``*`` nor a ``.domain`` pattern)."""
    for host in allowed_hosts.split(","):
        host = host.strip()
        if host and host != "*" and not host.startswith("."):
            return host
    return "localhost"


def main(argv: list[str]) -> int:
    if len(argv) != 2 or not argv[1].isdigit():
        print("usage: healthcheck.py PORT", file=sys.stderr)
        return 2
    request = urllib.request.Request(
        f"http://127.0.0.1:{argv[1]}/healthz",
        headers={"Host": host_header(os.environ.get("ALLOWED_HOSTS", "")), "X-Forwarded-Proto": "https"},
    )
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT) as response:  # noqa: S310 - a fixed http URL
            status = response.status
    except urllib.error.HTTPError as exc:
        status = exc.code
    except OSError as exc:
        print(f"healthz: {exc}", file=sys.stderr)
        return 1
    if status != 200:
        print(f"healthz: HTTP {status}", file=sys.stderr)
    return 0 if status == 200 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
