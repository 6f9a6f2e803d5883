"""Director sessions (seed 004 §8, §9): check a line, create a session, run a turn with the retry loop.

``evaluate_line`` is the whole Director on one line: hard rules, the history's WARNs (topic loop, early
topic change), and the LLM review when the rules found no RETRY; the final status is the worse of the
two. Its ``interventions`` are what the line, once accepted, queues for its speaker's next prompt: the
suggestions of its WARN findings (``rule:…``, ``history:…``) and, when the review said WARN, a note
per aspect scored below the rule set's ``review.pass_from`` (``review:<aspect>``, ``aspect_notes``);
none for a RETRY.

``turn_run`` generates the line of the speaker whose turn it is through the gateway (persona, scene,
the last ``session.history_turns`` lines and pending interventions in the prompt), evaluates it, and
on RETRY regenerates with the reasons, up to ``max_retries`` times; every attempt and verdict is
stored. Only an accepted line (not RETRY) advances the session's state, with the line's
``interventions`` (at most ``session.max_interventions`` pending), and two turns of one session never
both advance it: the state is re-read under a row lock when the turn is stored, and a turn that
started from an older state is refused (``TurnConflict``) with nothing stored.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from django.db import transaction
from django.db.models import Max
from django.utils.translation import gettext_noop

from director.models import DirectorSession, RetryVerdict, UtteranceAttempt
from director.review.scores import aspect_notes, worse
from director.review.services import ReviewOutcome, review_line
from director.rules.engine import check_utterance
from director.rules.ruleset import default_rule_set
from director.rules.verdict import PASS, RETRY, WARN
from director.sessions import prompts
from director.sessions.state import (
    Intervention,
    SessionState,
    advance,
    finding_interventions,
    history_findings,
    leading_topic,
)
from llm import services as gateway

LINE_PROMPT = "director.line@1"


class TurnConflict(Exception):
    """Another turn of the session was stored while this one ran; nothing of this one was stored."""


class GenerationUnavailable(Exception):
    """No endpoint to generate lines with (give the line instead)."""


@dataclass
class Evaluation:
    text: str
    speaker: str  # character id
    status: str
    rules_status: str
    findings: list[dict]
    tone: dict
    topic: str
    review: ReviewOutcome
    rules_version: str
    rules_hash: str
    timings: dict = field(default_factory=dict)
    interventions: list[Intervention] = field(default_factory=list)  # for the speaker's next prompt

    def to_dict(self) -> dict:
        return {
            "text": self.text,
            "speaker": self.speaker,
            "status": self.status,
            "rulesStatus": self.rules_status,
            "findings": self.findings,
            "tone": self.tone,
            "topic": self.topic,
            "review": {"status": self.review.status, "note": self.review.note, **(self.review.to_dict() or {})},
            "rulesVersion": self.rules_version,
            "rulesHash": self.rules_hash,
            "timings": self.timings,
            "interventions": [entry.to_dict() for entry in self.interventions],
        }


def evaluate_line(
    *,
    text: str,
    speaker: str,
    state: SessionState | None = None,
    scene: str = "",
    history: list[tuple[str, str]] = (),
    llm: bool = True,
    model: str = "",
    language: str = "ja",
    rules=None,
) -> Evaluation:
    """The Director's verdict on ``text`` by ``speaker`` (id or name); ``UnknownCharacter`` for another speaker."""
    rules = rules or default_rule_set()
    started = time.monotonic()
    verdict = check_utterance(text, speaker, rules, language=language)
    timings = {"rules": round((time.monotonic() - started) * 1000, 1)}
    character = rules.character(speaker)
    findings = [finding.to_dict() for finding in verdict.findings]
    topic = leading_topic(verdict)
    rules_status = verdict.status
    if state is not None:
        for finding in history_findings(state, topic, rules.session, language=language, shift=verdict.topic_shift):
            findings.append(finding)
            rules_status = worse(rules_status, finding["status"])
    if not llm:
        review = ReviewOutcome("off", note=gettext_noop("the LLM review was not asked for"))
    elif rules_status == RETRY:
        review = ReviewOutcome("skipped", note=gettext_noop("the hard rules decided RETRY, so the LLM was not asked"))
    else:
        cast = [rules.cast[name] for name in sorted(rules.cast)]
        review = review_line(
            scene=scene, characters=prompts.characters_text(cast),
            history=prompts.history_text(history, rules.session.history_turns), speaker=character.name,
            text=verdict.modified_text or text, rules=rules, model=model,
        )  # fmt: skip
        timings["review"] = review.ms
    status = worse(rules_status, review.verdict_status) if review.status == "ok" else rules_status
    interventions = []
    if status != RETRY:
        interventions = finding_interventions(findings) + review_interventions(review, rules, language)
    return Evaluation(
        text=text, speaker=character.id, status=status, rules_status=rules_status, findings=findings,
        tone=verdict.tone.to_dict(), topic=topic, review=review, rules_version=verdict.rules_version,
        rules_hash=verdict.rules_hash, timings=timings, interventions=interventions,
    )  # fmt: skip


def review_interventions(review: ReviewOutcome, rules, language: str = "ja") -> list[Intervention]:
    """On a review WARN, a ``review:<aspect>`` intervention per aspect scored below ``review.pass_from``."""
    if review.status != "ok" or review.verdict_status != WARN or review.review is None:
        return []
    notes = aspect_notes(review.review, rules.review.pass_from, language)
    return [Intervention(note, f"review:{aspect}") for aspect, note in notes]


def check_line(
    *, text: str, speaker: str, history=(), scene: str = "", llm: bool = False, language: str = "ja", rules=None
) -> Evaluation:
    """A stand-alone check of ``text`` after ``history`` (``(speaker, text)`` lines, taken as accepted):
    the state they lead to gives the cross-turn WARNs, their names and texts go to the LLM review."""
    rules = rules or default_rule_set()
    return evaluate_line(
        text=text, speaker=speaker, state=state_after_history(history, rules), scene=scene,
        history=[(rules.character(name).name, line) for name, line in history], llm=llm, language=language,
        rules=rules,
    )  # fmt: skip


def verdict_store(
    evaluation: Evaluation, *, session=None, attempt=None, number: int = 1, shown: bool = False
) -> RetryVerdict:
    return RetryVerdict.objects.create(
        session=session, attempt=attempt, speaker=evaluation.speaker, text=evaluation.text,
        status=evaluation.status, rules_status=evaluation.rules_status, findings=evaluation.findings,
        tone=evaluation.tone, rules=sorted({f["rule"] for f in evaluation.findings}),
        review_status=evaluation.review.status, review=evaluation.review.to_dict(), review_note=evaluation.review.note,
        rules_version=evaluation.rules_version, rules_hash=evaluation.rules_hash, attempt_number=number,
        shown=shown, timings=evaluation.timings,
    )  # fmt: skip


def state_after_history(history, rules=None) -> SessionState:
    """The state a session would have after ``history`` (``(speaker, text)`` lines, all accepted), for a
    stand-alone check of the next line: each line's leading topic advances it as a turn would."""
    rules = rules or default_rule_set()
    state = SessionState()
    for speaker, text in history:
        verdict = check_utterance(text, speaker, rules)
        state = advance(state, status=PASS, speaker=rules.character(speaker).id, topic=leading_topic(verdict),
                        next_speaker=rules.character(speaker).id, thresholds=rules.session)  # fmt: skip
    return state


def session_create(
    *, scene: str, speakers=("yana", "ayu"), title: str = "", max_retries: int = 3, llm_review: bool = True,
    model: str = "", user=None,
) -> DirectorSession:  # fmt: skip
    rules = default_rule_set()
    ids = [rules.character(name).id for name in speakers]  # UnknownCharacter names the speaker
    if len(ids) != 2 or ids[0] == ids[1]:
        raise ValueError("speakers: two different characters, e.g. yana and ayu")
    if not 0 <= max_retries <= 10:
        raise ValueError("max_retries: a whole number from 0 to 10")
    return DirectorSession.objects.create(
        title=title, scene=scene, speakers=ids, state=SessionState().to_dict(), rules_version=rules.version,
        rules_hash=rules.content_hash, max_retries=max_retries, llm_review=llm_review, model=model,
        created_by=user,
    )  # fmt: skip


@dataclass
class AttemptRecord:
    number: int
    text: str
    evaluation: Evaluation | None
    generation_error: str = ""
    variables: dict | None = None


@dataclass
class TurnOutcome:
    session: DirectorSession
    turn: int
    speaker: str
    attempts: list[UtteranceAttempt]
    verdicts: list[RetryVerdict | None]
    shown: UtteranceAttempt | None  # the attempt shown to the reader (accepted, or the best of all RETRYs)
    accepted: bool  # the shown line entered the dialogue and advanced the state
    flag: str  # "" | all_retry | generation_failed
    reason: str
    state_before: dict
    state_after: dict


def history_lines(session: DirectorSession, rules=None) -> list[tuple[str, str]]:
    """``(speaker name, text)`` of the session's accepted lines, in turn order."""
    rules = rules or default_rule_set()
    rows = UtteranceAttempt.objects.filter(session=session, shown=True).order_by("turn")
    return [(rules.character(speaker).name, text) for speaker, text in rows.values_list("speaker", "text")]


def generate_line(
    *, character, scene: str, history, history_turns: int, interventions, feedback: str, model: str, force: bool
):
    """``(line, error, variables)``: one line of ``character`` from the gateway (``director.line@1``)."""
    variables = {
        "character": prompts.persona(character), "scene": scene or "（指定なし）",
        "history": prompts.history_text(history, history_turns), "interventions": prompts.bullet_list(interventions),
        "feedback": feedback or prompts.NONE, "speaker": character.name,
    }  # fmt: skip
    try:
        report = gateway.judge(LINE_PROMPT, [gateway.Item("line", variables)], model=model or None, backend="llm",
                               force=force)  # fmt: skip
    except Exception as exc:
        return "", f"{type(exc).__name__}: {exc}", variables
    result = report.results[0]
    if result.status != "ok" or not result.parsed:
        return "", f"{result.status}: {result.error}".rstrip(": "), variables
    return result.parsed["line"].strip(), "", variables


def turn_run(
    *, session_id: int, speaker: str | None = None, text: str | None = None, expected_turn: int | None = None,
    language: str = "ja", texts: list[str] | None = None,
) -> TurnOutcome:  # fmt: skip
    """One turn (module docstring). ``text`` given: that line is evaluated once, no generation; ``texts``:
    recorded attempts, evaluated in order until one is accepted (a recorded dialogue, no generation)."""
    if text is not None:
        texts = [text]
    session = DirectorSession.objects.get(pk=session_id)
    rules = default_rule_set()
    state = SessionState.from_dict(session.state)
    if expected_turn is not None and expected_turn != state.turn:
        raise TurnConflict(f"the session is at turn {state.turn}, not {expected_turn}")
    speaker_id = rules.character(speaker).id if speaker else session.speakers[state.turn % 2]
    if speaker_id not in session.speakers:
        raise ValueError(f"speaker: this session's characters are {', '.join(session.speakers)}")
    character = rules.character(speaker_id)
    if texts is None and not gateway.configured():
        raise GenerationUnavailable("generating lines needs an LLM endpoint (LLM_BASE_URL); give the line as text")
    history = history_lines(session, rules)
    turn = state.turn + 1
    earlier = UtteranceAttempt.objects.filter(session=session, turn=turn).aggregate(n=Max("number"))["n"] or 0
    records: list[AttemptRecord] = []
    feedback = ""
    for offset in range(1, (len(texts) if texts is not None else session.max_retries + 1) + 1):
        number = earlier + offset
        variables = None
        if texts is not None:
            line, error = texts[offset - 1], ""
        else:
            line, error, variables = generate_line(
                character=character, scene=session.scene, history=history,
                history_turns=rules.session.history_turns, interventions=state.texts(speaker_id), feedback=feedback,
                model=session.model,
                force=number > 1,  # a regeneration asks the model again, never the cache
            )  # fmt: skip
        if error:
            records.append(AttemptRecord(number, "", None, error, variables))
            break
        evaluation = evaluate_line(
            text=line, speaker=speaker_id, state=state, scene=session.scene, history=history,
            llm=session.llm_review, model=session.model, language=language, rules=rules,
        )  # fmt: skip
        records.append(AttemptRecord(number, line, evaluation, "", variables))
        if evaluation.status != RETRY:
            break
        feedback = prompts.retry_feedback(
            line, evaluation.findings, evaluation.review.to_dict(), pass_from=rules.review.pass_from
        )
    return _store_turn(session, state, turn, speaker_id, records, rules)


def _choose(records: list[AttemptRecord]) -> tuple[AttemptRecord | None, bool, str, str]:
    """``(shown, accepted, flag, reason)``."""
    judged = [r for r in records if r.evaluation is not None]
    accepted = [r for r in judged if r.evaluation.status != RETRY]
    if accepted:
        last = accepted[-1]
        retried = len(judged) - 1
        reason = f"attempt {last.number} {last.evaluation.status}" + (f" after {retried} RETRY" if retried else "")
        return last, True, "", reason
    if not judged:
        return None, False, "generation_failed", records[-1].generation_error if records else "no attempt"

    def badness(r: AttemptRecord):
        retries = sum(1 for f in r.evaluation.findings if f.get("status") == RETRY)
        average = r.evaluation.review.review.average if r.evaluation.review.review else 0.0
        return (retries, -average, r.number)

    best = min(judged, key=badness)
    failed = records[-1].generation_error
    reason = f"every attempt was RETRY; attempt {best.number} had the fewest problems; the state did not advance"
    return best, False, "all_retry", reason + (f" (then generation failed: {failed})" if failed else "")


def _store_turn(session, state: SessionState, turn: int, speaker: str, records, rules) -> TurnOutcome:
    shown, accepted, flag, reason = _choose(records)
    new_state = state  # only an accepted line advances the state (§9)
    if accepted:
        evaluation = shown.evaluation
        new_state = advance(state, status=evaluation.status, speaker=speaker, topic=evaluation.topic,
                            interventions=evaluation.interventions, next_speaker=speaker,
                            thresholds=rules.session)  # fmt: skip
    with transaction.atomic():
        locked = DirectorSession.objects.select_for_update().get(pk=session.pk)
        if SessionState.from_dict(locked.state).turn != state.turn:
            raise TurnConflict("another turn of this session was stored meanwhile; ask for the next turn again")
        attempts, verdicts, shown_attempt = [], [], None
        for record in records:
            is_shown = accepted and record is shown
            attempt = UtteranceAttempt.objects.create(
                session=locked, turn=turn, number=record.number, speaker=speaker, text=record.text,
                source="llm" if record.variables is not None else "given", generation_error=record.generation_error,
                shown=is_shown, prompt_variables=record.variables,
                state_after=new_state.to_dict() if is_shown else None,
            )  # fmt: skip
            attempts.append(attempt)
            if record is shown:
                shown_attempt = attempt
            verdicts.append(
                verdict_store(record.evaluation, session=locked, attempt=attempt, number=record.number, shown=is_shown)
                if record.evaluation is not None else None
            )  # fmt: skip
        locked.state = new_state.to_dict()
        locked.save(update_fields=["state", "updated_at"])
    return TurnOutcome(
        session=locked, turn=turn, speaker=speaker, attempts=attempts, verdicts=verdicts, shown=shown_attempt,
        accepted=accepted, flag=flag, reason=reason, state_before=state.to_dict(), state_after=locked.state,
    )  # fmt: skip
