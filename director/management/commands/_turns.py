"""Printing a Director turn on the console (shared by director_turn and director_session)."""

from __future__ import annotations

from director.rules.ruleset import default_rule_set


def describe_turn(outcome, write) -> None:
    """Every attempt with its verdict, then which line is shown and why, and the state after the turn."""
    name = default_rule_set().character(outcome.speaker).name
    for attempt, verdict in zip(outcome.attempts, outcome.verdicts, strict=True):
        if verdict is None:
            write(f"  #{attempt.number} generation failed: {attempt.generation_error}")
            continue
        review = ""
        if verdict.review_status == "ok" and verdict.review:
            review = f" · LLM {verdict.review['average']:.1f} ({verdict.review['status']})"
        elif verdict.review_status in ("skipped", "failed"):
            review = f" · LLM {verdict.review_status}: {verdict.review_note}"
        write(f"  #{attempt.number} {verdict.status:<6} {name}: {attempt.text}{review}")
        for finding in verdict.findings:
            write(f"      {finding['status']} {finding['rule']}: {finding.get('message', '')}")
    marker = "" if not outcome.flag else f" [{outcome.flag}]"
    write(f"  → turn {outcome.turn}: {outcome.reason}{marker}")
    state = outcome.state_after
    write(f"    state: topic {state['topic'] or '–'}, hook depth {state['hookDepth']}, "
          f"loop {state['loopCounter']}, accepted turns {state['turn']}")  # fmt: skip
