"""Thresholds of the Director's stages after the hard rules, carried by the rule set (seed 004 §7.1, §8).

``ReviewThresholds``: the LLM review's average of five 1–5 scores is RETRY below ``retry_below``, WARN
below ``pass_from``, else PASS (used by ``director.review.scores``). ``SessionThresholds``: the same
topic leading ``topic_loop_turns`` turns in a row is a topic loop; a topic should lead ``hook_depth``
turns before another one takes over (used by ``director.sessions.state``).

They live here, beside the rule set that loads them (``rulesets/default.yaml``: ``review:`` and
``session:``), so that ``director.rules`` imports neither of the packages that use them. The loader
reports a bad value with its file and key; the checks below guard values built in code.
"""

from __future__ import annotations

from dataclasses import dataclass

SCORE_MIN, SCORE_MAX = 1, 5


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
    """``topic_loop_turns`` and ``hook_depth``, integers ≥ 1."""

    topic_loop_turns: int = 3
    hook_depth: int = 2

    def __post_init__(self) -> None:
        for name in ("topic_loop_turns", "hook_depth"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name}: expected an integer ≥ 1, got {value!r}")
