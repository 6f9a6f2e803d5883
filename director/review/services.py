"""The Director's LLM review (seed 004 §7) through the gateway: five aspects, their average, a status.

It runs only when the hard rules found no RETRY (the caller decides). Without an endpoint the review
is ``skipped`` with the reason; a failed call or a reply that stays malformed is ``failed`` with the
gateway's error: in both cases the verdict falls back to the hard rules and says so. Scores are
never invented.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from django.conf import settings
from django.utils.translation import gettext_noop

from director.review.scores import Review, parse_review, review_status
from llm import services as gateway

REVIEW_PROMPT = "director.review@2"


@dataclass
class ReviewOutcome:
    status: str  # ok | skipped | failed
    review: Review | None = None
    verdict_status: str | None = None  # PASS | WARN | RETRY from the average (ok only)
    note: str = ""
    model: str = ""
    cached: bool = False
    ms: int = 0
    extra: dict = field(default_factory=dict)

    def to_dict(self) -> dict | None:
        if self.review is None:
            return None
        return {
            "scores": dict(self.review.scores),
            "reasons": dict(self.review.reasons),
            "summary": self.review.summary,
            "average": self.review.average,
            "status": self.verdict_status,
            "model": self.model,
            "cached": self.cached,
        }


def review_line(
    *, scene: str, characters: str, history: str, speaker: str, text: str, rules, model: str = ""
) -> ReviewOutcome:
    """The review of ``text`` by ``speaker`` (display name); ``rules`` gives the thresholds (``rules.review``)."""
    started = time.monotonic()
    if not gateway.configured():
        return ReviewOutcome("skipped", note=gettext_noop("no LLM endpoint is configured (LLM_BASE_URL)"))
    model = model or settings.DIRECTOR_MODEL or settings.LLM_MODEL
    if not model:
        return ReviewOutcome(
            "skipped", note=gettext_noop("no model: set DIRECTOR_MODEL or LLM_MODEL, or choose one for the session")
        )
    variables = {"scene": scene or "（指定なし）", "characters": characters, "history": history,
                 "speaker": speaker, "utterance": text}  # fmt: skip
    try:
        report = gateway.judge(REVIEW_PROMPT, [gateway.Item("review", variables)], model=model, backend="llm")
    except Exception as exc:  # the gateway raises only for configuration problems; never lose the verdict
        return ReviewOutcome("failed", note=f"{type(exc).__name__}: {exc}", model=model, ms=_ms(started))
    result = report.results[0]
    if result.status != "ok" or result.parsed is None:
        note = f"{result.status}: {result.error}" if result.error else result.status
        return ReviewOutcome("failed", note=note, model=model, ms=_ms(started))
    try:
        review = parse_review(result.parsed)
    except ValueError as exc:
        return ReviewOutcome("failed", note=f"malformed review: {exc}", model=model, ms=_ms(started))
    return ReviewOutcome(
        "ok", review=review, verdict_status=review_status(review.average, rules.review), model=model,
        cached=result.cached, ms=_ms(started),
    )  # fmt: skip


def _ms(started: float) -> int:
    return round((time.monotonic() - started) * 1000)
