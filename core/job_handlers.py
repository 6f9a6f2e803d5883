"""Job kinds owned by the core app."""

from __future__ import annotations

import os
import platform
import socket

from core.jobs import job_handler


@job_handler("core.worker_ping")
def worker_ping(job, progress) -> dict:
    """Proves the round trip web → broker → worker → database."""
    progress(1, 1, "pong")
    return {"hostname": socket.gethostname(), "pid": os.getpid(), "python": platform.python_version()}
