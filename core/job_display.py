"""How a job kind is named and its result told to people: "一致率レポート #2 を保存しました（合格）" with a link.

Each app registers its kinds next to their handlers (``register_job_display``); templates use the
``job_text`` tags. A kind without a registration shows its name; a result the summary cannot read
shows nothing rather than a Python dict.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import dataclass

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy

from core.jobs import failure_kept

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


# ----------------------------------------------------------------- progress messages
# A job's progress message is written by the worker in English (it is also the API's "message"); the pages
# show it in the reader's language. Each app registers the messages its handlers write: an English pattern
# (a regular expression matching the whole message, with named groups) and the translatable text to show.

_MESSAGES: list[tuple[re.Pattern, str | Promise]] = []


def register_job_messages(*messages: tuple[str, str | Promise]) -> None:
    """Register ``(pattern, text)`` pairs: a stored message matching ``pattern`` is shown as ``text % groups``.
    Patterns are tried in the order registered, so a more specific one goes first."""
    _MESSAGES.extend((re.compile(pattern, re.S), text) for pattern, text in messages)


def job_message(message: str) -> str:
    """``message`` as written by a worker, in the current language (as it is when no pattern matches)."""
    for pattern, text in _MESSAGES:
        found = pattern.fullmatch(message or "")
        if found is not None:
            return str(text) % found.groupdict()
    return message


register_job_messages(
    ("cancelled before it started", gettext_lazy("Cancelled before it started.")),
    ("cancelled", gettext_lazy("Cancelled.")),
    ("pong", gettext_lazy("The worker answered.")),
    (
        "failed: the worker stopped",
        gettext_lazy(
            "The worker running this job stopped giving signs of life (it was stopped or killed, or lost the "
            "database), so the job was ended as failed."
        ),
    ),
    ("failed: the database connection was lost", gettext_lazy("The job lost its database connection and failed.")),
    ("failed", gettext_lazy("The job failed.")),
)


def job_failure_kept(job) -> str | None:
    """What a failed job of this kind leaves stored, in the reader's language (None: not a failure, or not said)."""
    if job.status != "failed":
        return None
    kept = failure_kept(job.kind)
    return str(kept) if kept else None
