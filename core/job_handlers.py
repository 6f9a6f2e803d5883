"""Job kinds owned by the core app."""

from __future__ import annotations

import os
import platform
import socket

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from core.job_display import register_job_display
from core.jobs import job_handler


@job_handler("core.worker_ping")
def worker_ping(job, progress) -> dict:
    """Proves the round trip web → broker → worker → database."""
    progress(1, 1, "pong")
    return {"hostname": socket.gethostname(), "pid": os.getpid(), "python": platform.python_version()}


def _ping_summary(result: dict) -> tuple[str, None]:
    values = {"host": result["hostname"], "pid": result["pid"], "python": result["python"]}
    return _("Worker %(host)s answered (PID %(pid)s, Python %(python)s).") % values, None


register_job_display("core.worker_ping", gettext_lazy("Worker check"), _ping_summary)
