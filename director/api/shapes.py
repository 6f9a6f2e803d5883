"""The JSON shapes of the Director's API (camelCase): verdicts, attempts, sessions."""

from __future__ import annotations


def verdict_dict(verdict) -> dict:
    return {
        "id": verdict.pk,
        "session": verdict.session_id,
        "attempt": verdict.attempt_number,
        "speaker": verdict.speaker,
        "text": verdict.text,
        "status": verdict.status,
        "rulesStatus": verdict.rules_status,
        "findings": verdict.findings,
        "tone": verdict.tone,
        "review": {"status": verdict.review_status, "note": verdict.review_note, **(verdict.review or {})},
        "rulesVersion": verdict.rules_version,
        "rulesHash": verdict.rules_hash,
        "shown": verdict.shown,
        "timingsMs": verdict.timings,
        "createdAt": verdict.created_at.isoformat(),
    }


def attempt_dict(attempt, verdict=None) -> dict:
    if verdict is None:
        verdict = getattr(attempt, "verdict", None)  # a missing reverse one-to-one is an AttributeError
    return {
        "number": attempt.number,
        "speaker": attempt.speaker,
        "text": attempt.text,
        "source": attempt.source,
        "generationError": attempt.generation_error or None,
        "shown": attempt.shown,
        "verdict": verdict_dict(verdict) if verdict is not None else None,
    }


def session_dict(session, attempts) -> dict:
    turns: dict[int, list] = {}
    for attempt in attempts:
        turns.setdefault(attempt.turn, []).append(attempt_dict(attempt))
    return {
        "id": session.pk,
        "title": session.title,
        "scene": session.scene,
        "speakers": session.speakers,
        "state": session.state,
        "maxRetries": session.max_retries,
        "llmReview": session.llm_review,
        "model": session.model,
        "rulesVersion": session.rules_version,
        "rulesHash": session.rules_hash,
        "createdAt": session.created_at.isoformat(),
        "turns": [{"turn": turn, "attempts": items} for turn, items in sorted(turns.items())],
    }
