"""How a job kind is named and its result told to people: "一致率レポート #2 を保存しました（合格）" with a link.

Each app registers its kinds next to their handlers (``register_job_display``); templates use the
``job_text`` tags. A kind without a registration shows its name; a result the summary cannot read
shows nothing rather than a Python dict.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from django.utils.functional import Promise

logger = logging.getLogger(__name__)

Summary = Callable[[dict], tuple[str, str | None]]  # result -> (text in the current language, url or None)


@dataclass(frozen=True)
class JobDisplay:
    label: str | Promise
    summary: Summary | None = None


_DISPLAYS: dict[str, JobDisplay] = {}


def register_job_display(kind: str, label: str | Promise, summary: Summary | None = None) -> None:
    _DISPLAYS[kind] = JobDisplay(label, summary)


def job_label(kind: str) -> str:
    display = _DISPLAYS.get(kind)
    return str(display.label) if display else kind


def job_summary(job) -> tuple[str, str | None] | None:
    """``(text, url)`` of a succeeded job's result, or None."""
    display = _DISPLAYS.get(job.kind)
    if job.status != "succeeded" or not isinstance(job.result, dict) or display is None or display.summary is None:
        return None
    try:
        return display.summary(job.result)
    except (KeyError, TypeError, ValueError, LookupError):
        logger.warning("job %s: result of kind %s could not be summarised", job.pk, job.kind)
        return None
