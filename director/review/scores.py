"""The LLM review's scores (seed 004 §7): parse the reply, judge its average, combine statuses.

The reply of the ``director.review`` prompt (version 2), already validated against the JSON Schema the
gateway registers for it (``llm.prompt_library``)::

    {"frame": {"score": 4, "reason": "…"}, "roleplay": {…}, "connection": {…},
     "density": {…}, "naturalness": {…}, "summary": "…"}

``parse_review`` checks it again all the same (a reply may come from elsewhere, a stored review or a
test) and raises ``ValueError`` naming the aspect: a missing aspect, a score that is not an integer
from 1 to 5 (``4.0`` is taken as 4: JSON Schema counts it as an integer), a reason or summary that is
not a string, an unknown key. ``Review.average`` is the plain mean of the five scores.

``review_status`` (§7.1): average < ``retry_below`` → RETRY, < ``pass_from`` → WARN, else PASS. The mean
of five integers is a whole number of tenths and ``sum / 5`` is the float nearest to it, so it compares
with a threshold written in tenths exactly as the decimals do (3.4 RETRY, 3.5 and 3.6 WARN, 4.0 PASS).
An average summed up in floats may land a hair off (3.4999999999999996); it is rounded to 9 decimals
before comparing, so it counts as the 3.5 it means.

``worse`` ranks PASS < MODIFY < WARN < RETRY, the order ``check_utterance`` uses
(``director.rules.verdict``): any finding, WARN or RETRY, wins over MODIFY, which only says that
normalising changed the displayed text. Combining the hard rules' MODIFY with a review PASS gives
MODIFY, with a review WARN gives WARN; keeping the normalised text is the caller's business.
"""

from __future__ import annotations

from dataclasses import dataclass

from director.rules.thresholds import SCORE_MAX, SCORE_MIN, ReviewThresholds
from director.rules.verdict import MODIFY, PASS, RETRY, WARN

__all__ = ["ASPECTS", "Review", "ReviewThresholds", "parse_review", "review_status", "worse"]

ASPECTS = ("frame", "roleplay", "connection", "density", "naturalness")
_RANK = {PASS: 0, MODIFY: 1, WARN: 2, RETRY: 3}


@dataclass(frozen=True)
class Review:
    """A parsed review: ``scores`` and ``reasons`` by aspect (in ``ASPECTS`` order), the mean of the scores."""

    scores: dict[str, int]
    reasons: dict[str, str]
    summary: str
    average: float

    def to_dict(self) -> dict:
        return {
            "scores": dict(self.scores),
            "reasons": dict(self.reasons),
            "summary": self.summary,
            "average": self.average,
        }


def parse_review(reply: dict) -> Review:
    """The ``Review`` of a ``director.review`` reply; ``ValueError`` naming the aspect (see the module)."""
    if not isinstance(reply, dict):
        raise ValueError(f"review: expected an object of {', '.join(ASPECTS)} and summary, got {type(reply).__name__}")
    for key in reply:
        if key not in ASPECTS and key != "summary":
            raise ValueError(f"{key}: unknown key; accepted: {', '.join(ASPECTS)}, summary")
    scores, reasons = {}, {}
    for aspect in ASPECTS:
        if aspect not in reply:
            raise ValueError(f"{aspect}: missing (required: {', '.join(ASPECTS)}, summary)")
        entry = reply[aspect]
        if not isinstance(entry, dict) or set(entry) != {"score", "reason"}:
            raise ValueError(f'{aspect}: expected {{"score": 1-5, "reason": "…"}}, got {entry!r}')
        scores[aspect] = _score(aspect, entry["score"])
        if not isinstance(entry["reason"], str):
            raise ValueError(f"{aspect}.reason: expected a string, got {entry['reason']!r}")
        reasons[aspect] = entry["reason"]
    summary = reply.get("summary")
    if not isinstance(summary, str):
        raise ValueError(f"summary: expected a string, got {summary!r}")
    return Review(scores, reasons, summary, sum(scores.values()) / len(ASPECTS))


def _score(aspect: str, value: object) -> int:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not SCORE_MIN <= value <= SCORE_MAX:
        raise ValueError(f"{aspect}.score: expected an integer from {SCORE_MIN} to {SCORE_MAX}, got {value!r}")
    return value


def review_status(average: float, thresholds: ReviewThresholds | None = None) -> str:
    """RETRY, WARN or PASS for ``average`` (§7.1); ``thresholds`` default to 3.5 and 4.0."""
    thresholds = thresholds or ReviewThresholds()
    value = round(average, 9)
    if value < thresholds.retry_below:
        return RETRY
    if value < thresholds.pass_from:
        return WARN
    return PASS


def worse(a: str, b: str) -> str:
    """The worse of two statuses: PASS < MODIFY < WARN < RETRY; ``ValueError`` for another string."""
    for status in (a, b):
        if status not in _RANK:
            raise ValueError(f"unknown status {status!r}; expected one of {', '.join(_RANK)}")
    return a if _RANK[a] >= _RANK[b] else b
