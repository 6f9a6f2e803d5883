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

``low_aspects`` lists the aspects scored below ``pass_from``, the ones that pulled the average down;
``aspect_notes`` words them for a prompt, one line each: the aspect's name (``ASPECT_NAMES``, seed
§7's Japanese names or English) and the reviewer's reason, e.g. ``情報密度: 内容が薄い``. The reason is
the model's text: each run of spaces, line breaks and control characters becomes one space, and it
is cut at ``NOTE_CHARS`` characters (with …); an empty reason gives the score instead (``情報密度: 3点``).

``worse`` ranks PASS < MODIFY < WARN < RETRY, the order ``check_utterance`` uses
(``director.rules.verdict``): any finding, WARN or RETRY, wins over MODIFY, which only says that
normalising changed the displayed text. Combining the hard rules' MODIFY with a review PASS gives
MODIFY, with a review WARN gives WARN; keeping the normalised text is the caller's business.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from director.rules.thresholds import SCORE_MAX, SCORE_MIN, ReviewThresholds
from director.rules.verdict import MODIFY, PASS, RETRY, WARN

__all__ = [
    "ASPECTS",
    "ASPECT_NAMES",
    "Review",
    "ReviewThresholds",
    "aspect_notes",
    "low_aspects",
    "parse_review",
    "review_status",
    "worse",
]

ASPECTS = ("frame", "roleplay", "connection", "density", "naturalness")
ASPECT_NAMES = {
    "ja": {"frame": "フレーム整合性", "roleplay": "ロールプレイ", "connection": "対話の接続性",
           "density": "情報密度", "naturalness": "自然さ"},
    "en": {"frame": "Frame consistency", "roleplay": "Role-play", "connection": "Connection",
           "density": "Information density", "naturalness": "Naturalness"},
}  # fmt: skip
NOTE_CHARS = 80  # of a reason quoted in an aspect note (a sanitising limit, not a threshold)
_SPACES = re.compile(r"[\s\x00-\x1f\x7f]+")  # whitespace and control characters
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


def low_aspects(review: Review, pass_from: float) -> list[str]:
    """The aspects scored below ``pass_from`` (the rule set's ``review.pass_from``), in ``ASPECTS`` order."""
    return [aspect for aspect in ASPECTS if review.scores[aspect] < pass_from]


def aspect_notes(review: Review, pass_from: float, language: str = "ja") -> list[tuple[str, str]]:
    """``(aspect, note)`` of each aspect of ``low_aspects``, the note as the module docstring says."""
    if language not in ASPECT_NAMES:
        raise ValueError(f"language: expected one of {', '.join(ASPECT_NAMES)}, got {language!r}")
    notes = []
    for aspect in low_aspects(review, pass_from):
        reason = _SPACES.sub(" ", review.reasons.get(aspect, "")).strip()
        if len(reason) > NOTE_CHARS:
            reason = reason[: NOTE_CHARS - 1].rstrip() + "…"
        if not reason:
            score = review.scores[aspect]
            reason = f"{score}点" if language == "ja" else f"score {score} of {SCORE_MAX}"
        notes.append((aspect, f"{ASPECT_NAMES[language][aspect]}: {reason}"))
    return notes
