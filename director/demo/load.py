"""The Director part of the demo data set: the recorded dialogue of ``director.demo.dialogue`` as a session.

The turns are replayed through ``turn_run`` with their recorded attempts (no generation, no LLM review:
``llm_review`` is off), so every attempt and verdict is stored as a real session would store it. Each
verdict is compared with the status and rules the dialogue expects; a difference (a rule changed since
the dialogue was written) stops the load with ``DemoDialogueMismatch`` naming the turn and attempt, and
nothing of the session is kept. Loading again replaces the demo session (found by its title, with no
creator), so the demo never holds two.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.db import transaction

from director.demo import dialogue
from director.demo.dialogue import Turn

STATUSES = ("PASS", "WARN", "RETRY", "MODIFY")


class DemoDialogueMismatch(Exception):
    """The recorded dialogue is malformed, or the Director's verdict differs from what it expects."""


def _label(number: int, turn: Turn, attempt: int | None = None) -> str:
    where = f"director demo dialogue, turn {number} ({turn.speaker})"
    return where if attempt is None else f"{where}, attempt {attempt}"


def check_dialogue(turns: Sequence[Turn], speakers: Sequence[str]) -> None:
    """Refuse a malformed dialogue: speakers alternating from the first, the last attempt of each turn the
    accepted one (not RETRY) and every one before it a RETRY, known statuses only."""
    if not turns:
        raise DemoDialogueMismatch("director demo dialogue: no turns")
    for number, turn in enumerate(turns, 1):
        expected_speaker = speakers[(number - 1) % 2]
        if turn.speaker != expected_speaker:
            raise DemoDialogueMismatch(f"{_label(number, turn)}: the speaker should be {expected_speaker}")
        if not turn.attempts:
            raise DemoDialogueMismatch(f"{_label(number, turn)}: no attempts")
        for index, attempt in enumerate(turn.attempts, 1):
            if attempt.status not in STATUSES:
                raise DemoDialogueMismatch(
                    f"{_label(number, turn, index)}: unknown status {attempt.status!r} ({', '.join(STATUSES)})"
                )
            last = index == len(turn.attempts)
            if last == (attempt.status == "RETRY"):
                rule = "the last attempt must be accepted (not RETRY)" if last else "only the last may be accepted"
                raise DemoDialogueMismatch(f"{_label(number, turn, index)}: {attempt.status}, but {rule}")


def _describe(status: str, rules) -> str:
    return f"{status} ({', '.join(sorted(rules)) or 'no findings'})"


def _compare(number: int, turn: Turn, outcome) -> None:
    """Each stored verdict against the dialogue's expectation, in attempt order."""
    for index, (expected, verdict) in enumerate(zip(turn.attempts, outcome.verdicts, strict=False), 1):
        got_rules = sorted({finding["rule"] for finding in verdict.findings})
        if verdict.status != expected.status or got_rules != sorted(expected.rules):
            raise DemoDialogueMismatch(
                f"{_label(number, turn, index)} 「{expected.text}」: "
                f"expected {_describe(expected.status, expected.rules)}, "
                f"the Director gave {_describe(verdict.status, got_rules)}; "
                "rewrite the line or its expectation in director/demo/dialogue.py"
            )
    if len(outcome.verdicts) != len(turn.attempts) or not outcome.accepted:  # cannot happen after the checks above
        raise DemoDialogueMismatch(
            f"{_label(number, turn)}: {len(outcome.verdicts)} of {len(turn.attempts)} attempts judged, "
            f"{'accepted' if outcome.accepted else 'not accepted'}: {outcome.reason}"
        )


def load_dialogue(
    *, title: str = dialogue.TITLE, scene: str = dialogue.SCENE, speakers: Sequence[str] = dialogue.SPEAKERS,
    turns: Sequence[Turn] | None = None,
):  # fmt: skip
    """The demo session replayed from ``turns`` (the recorded dialogue by default), replacing an earlier one."""
    from director.models import DirectorSession
    from director.sessions.services import session_create, turn_run

    turns = dialogue.TURNS if turns is None else turns
    check_dialogue(turns, speakers)
    with transaction.atomic():
        DirectorSession.objects.filter(title=title, created_by__isnull=True).delete()
        session = session_create(scene=scene, speakers=speakers, title=title, llm_review=False)
        for number, turn in enumerate(turns, 1):
            outcome = turn_run(
                session_id=session.pk, speaker=turn.speaker, texts=[attempt.text for attempt in turn.attempts],
                expected_turn=number - 1,
            )  # fmt: skip
            _compare(number, turn, outcome)
        session.refresh_from_db()
    return session


def load() -> str:
    from director.models import RetryVerdict

    session = load_dialogue()
    verdicts = RetryVerdict.objects.filter(session=session)
    retried = verdicts.filter(status="RETRY").values("attempt__turn").distinct().count()
    return (
        f"Director session {session.title!r}: {session.state['turn']} accepted turns, {verdicts.count()} attempts, "
        f"{retried} turns with a RETRY first, {verdicts.filter(shown=True, status='WARN').count()} WARN lines "
        f"(rule set {session.rules_version})"
    )
