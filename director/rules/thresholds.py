"""Thresholds of the Director's stages after the hard rules, carried by the rule set (seed 004 §7.1, §8).

``ReviewThresholds``: the LLM review's average of five 1–5 scores is RETRY below ``retry_below``, WARN
below ``pass_from``, else PASS (used by ``director.review.scores``); on a review WARN, the aspects
scored below ``pass_from`` become interventions (``director.sessions``). ``SessionThresholds``: the
same topic leading ``topic_loop_turns`` turns in a row is a topic loop; a topic should lead
``hook_depth`` turns before another one takes over; a speaker has at most ``max_interventions``
pending interventions (``director.sessions.state``); the prompts show the last ``history_turns``
lines of the dialogue (``director.sessions.prompts``). ``SESSION_RANGES`` bounds each of them.

They live here, beside the rule set that loads them (``rulesets/default.yaml``: ``review:`` and
``session:``), so that ``director.rules`` imports neither of the packages that use them. The loader
reports a bad value with its file and key; the checks below guard values built in code.
"""

from __future__ import annotations

from dataclasses import dataclass

SCORE_MIN, SCORE_MAX = 1, 5
# key -> (minimum, maximum or None): the accepted integers of each session threshold
SESSION_RANGES = {
    "topic_loop_turns": (1, None),
    "hook_depth": (1, None),
    "max_interventions": (1, 20),
    "history_turns": (1, 100),
}


@dataclass(frozen=True, slots=True)
class ReviewThresholds:
    """``retry_below`` < ``pass_from``, both within 1..5 (the range of an aspect's score)."""

    retry_below: float = 3.5
    pass_from: float = 4.0

    def __post_init__(self) -> None:
        for name in ("retry_below", "pass_from"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float) or not SCORE_MIN <= value <= SCORE_MAX:
                raise ValueError(f"{name}: expected a number from {SCORE_MIN} to {SCORE_MAX}, got {value!r}")
        if self.retry_below >= self.pass_from:
            raise ValueError(f"retry_below ({self.retry_below}) must be below pass_from ({self.pass_from})")


@dataclass(frozen=True, slots=True)
class SessionThresholds:
    """Integers within ``SESSION_RANGES``: ``topic_loop_turns``, ``hook_depth`` ≥ 1, ``max_interventions``
    1–20, ``history_turns`` 1–100."""

    topic_loop_turns: int = 3
    hook_depth: int = 2
    max_interventions: int = 5
    history_turns: int = 12

    def __post_init__(self) -> None:
        for name, (low, high) in SESSION_RANGES.items():
            value = getattr(self, name)
            is_integer = isinstance(value, int) and not isinstance(value, bool)
            if not is_integer or value < low or (high is not None and value > high):
                expected = f"an integer ≥ {low}" if high is None else f"an integer from {low} to {high}"
                raise ValueError(f"{name}: expected {expected}, got {value!r}")
