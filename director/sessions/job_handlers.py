"""The Director's job kind: turns of a session run by a Celery worker through the core job system."""

from __future__ import annotations

from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from core.job_display import register_job_display, register_job_messages
from core.jobs import job_handler
from director.sessions.services import TurnConflict, turn_run

TURNS = "director.turns"


@job_handler(
    TURNS,
    kept=gettext_lazy(
        "Turns that finished are stored; a turn cut short stored nothing and left the session's state as it was."
    ),
)
def turns(job, progress) -> dict:
    """Run ``turns`` turns of a session; params ``{"session_id": int, "turns": int (default 1)}``."""
    session_id, count = job.params.get("session_id"), int(job.params.get("turns", 1))
    if not isinstance(session_id, int):
        raise ValueError("params.session_id: a session id")
    outcomes = []
    progress(0, count, f"session {session_id}", force=True)
    for done in range(1, count + 1):
        try:
            outcome = turn_run(session_id=session_id)
        except TurnConflict as exc:
            outcomes.append({"conflict": str(exc)})
            break
        outcomes.append({"turn": outcome.turn, "accepted": outcome.accepted, "flag": outcome.flag or None,
                         "shownAttempt": outcome.shown.number if outcome.shown else None})  # fmt: skip
        progress(done, count, f"turn {outcome.turn}: {outcome.reason}")
        if outcome.flag == "generation_failed":
            break
    return {"session_id": session_id, "turns": outcomes}


def _turns_summary(result: dict) -> tuple[str, str | None]:
    turns = [t for t in result["turns"] if "turn" in t]
    accepted = sum(1 for t in turns if t["accepted"])
    text = _("Session %(id)s: %(n)s turns run, %(accepted)s lines accepted.") % {
        "id": result["session_id"], "n": len(turns), "accepted": accepted}  # fmt: skip
    return text, reverse("director:session", args=[result["session_id"]])


register_job_display(TURNS, gettext_lazy("Director turns"), _turns_summary)


register_job_messages(
    (r"session (?P<id>\d+)", gettext_lazy("Session %(id)s")),
    (
        r"turn (?P<turn>\d+): attempt (?P<n>\d+) (?P<status>[A-Z]+) after (?P<retries>\d+) RETRY",
        gettext_lazy("Turn %(turn)s: attempt %(n)s %(status)s after %(retries)s RETRY."),
    ),
    (
        r"turn (?P<turn>\d+): attempt (?P<n>\d+) (?P<status>[A-Z]+)",
        gettext_lazy("Turn %(turn)s: attempt %(n)s %(status)s."),
    ),
    (
        r"turn (?P<turn>\d+): every attempt was RETRY; attempt (?P<n>\d+) had the fewest problems; "
        r"the state did not advance(?P<rest>.*)",
        gettext_lazy(
            "Turn %(turn)s: every attempt was RETRY; attempt %(n)s had the fewest problems and the state did not "
            "advance%(rest)s"
        ),
    ),
    (r"turn (?P<turn>\d+): (?P<reason>.*)", gettext_lazy("Turn %(turn)s: %(reason)s")),
)
