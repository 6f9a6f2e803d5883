"""What the Director's pages show: sessions with their turns, and verdict statistics (reads only)."""

from __future__ import annotations

from collections import Counter, defaultdict

from django.db.models import Count

from director.models import DirectorSession, RetryVerdict, UtteranceAttempt
from director.pages.highlight import segments
from director.pages.labels import intervention_rows
from director.rules.ruleset import default_rule_set
from director.sessions.state import SessionState

STATUS_ORDER = ("PASS", "MODIFY", "WARN", "RETRY")


def session_rows() -> list[dict]:
    sessions = DirectorSession.objects.annotate(n_attempts=Count("attempts"))
    return [{"session": s, "accepted": (s.state or {}).get("turn", 0), "attempts": s.n_attempts} for s in sessions]


def session_turns(session: DirectorSession) -> list[dict]:
    """Each turn: the shown (accepted) attempt, every attempt with its verdict and highlighted text, the state,
    and the interventions the turn queued for its speaker's next turn, each with its origin."""
    rules = default_rule_set()
    attempts = UtteranceAttempt.objects.filter(session=session).select_related("verdict").order_by("turn", "number")
    turns: dict[int, dict] = {}
    for attempt in attempts:
        verdict = getattr(attempt, "verdict", None)
        item = {"attempt": attempt, "verdict": verdict, "name": _name(rules, attempt.speaker),
                "segments": segments(attempt.text, verdict.findings if verdict else [])}  # fmt: skip
        turn = turns.setdefault(attempt.turn, {"turn": attempt.turn, "attempts": [], "shown": None})
        turn["attempts"].append(item)
        if attempt.shown:
            turn["shown"] = item
    for turn in turns.values():
        shown = turn["shown"]
        turn["retries"] = sum(1 for a in turn["attempts"] if a["verdict"] and a["verdict"].status == "RETRY")
        turn["state"] = shown["attempt"].state_after if shown else None
        turn["interventions"] = _queued(shown["attempt"]) if shown else []
    return [turns[key] for key in sorted(turns)]


def _queued(attempt) -> list[dict]:
    """The speaker's pending interventions in the state after its accepted line: the ones that line queued
    (its own earlier ones were consumed by it)."""
    try:
        state = SessionState.from_dict(attempt.state_after or {})
    except ValueError:
        return []
    return intervention_rows(state.interventions.get(attempt.speaker, ()))


def _name(rules, speaker: str) -> str:
    try:
        return rules.character(speaker).name
    except LookupError:
        return speaker


def _shares(counter: Counter) -> dict:
    total = sum(counter.values())
    return {
        "total": total,
        "cells": [{"status": s, "n": counter[s], "share": 100 * counter[s] / total if total else 0.0}
                  for s in STATUS_ORDER],
    }  # fmt: skip


def verdict_statistics() -> dict:
    """Status shares overall, per rule (the findings' statuses), per character and per rule-set version;
    attempts per session turn."""
    overall, by_speaker, by_version = Counter(), defaultdict(Counter), defaultdict(Counter)
    by_rule = defaultdict(Counter)
    rows = RetryVerdict.objects.values_list("status", "speaker", "rules_version", "findings")
    for status, speaker, version, findings in rows.iterator(chunk_size=2000):
        overall[status] += 1
        by_speaker[speaker][status] += 1
        by_version[version][status] += 1
        for finding in findings or ():
            by_rule[finding.get("rule", "?")][finding.get("status", "?")] += 1
    per_turn = Counter(
        UtteranceAttempt.objects.values("session_id", "turn").annotate(n=Count("pk")).values_list("n", flat=True)
    )
    turns = sum(per_turn.values())
    rules = default_rule_set()
    return {
        "overall": _shares(overall),
        "overall_rows": [{"key": "", **_shares(overall)}],
        "by_rule": [{"key": rule, **_shares(counter)} for rule, counter in sorted(by_rule.items())],
        "by_speaker": [{"key": _name(rules, key), **_shares(c)} for key, c in sorted(by_speaker.items())],
        "by_version": [{"key": key, **_shares(c)} for key, c in sorted(by_version.items())],
        "attempts_per_turn": [{"attempts": n, "turns": per_turn[n]} for n in sorted(per_turn)],
        "mean_attempts": sum(n * k for n, k in per_turn.items()) / turns if turns else None,
        "turns": turns,
    }


def statistics_rows(stats: dict) -> list[list[str]]:
    """The statistics as CSV rows: group, key, total, then count and share per status."""
    header = ["group", "key", "total"] + [f"{s} {kind}" for s in STATUS_ORDER for kind in ("n", "%")]
    rows = [header]
    groups = [("overall", [{"key": "all", **stats["overall"]}]), ("rule", stats["by_rule"]),
              ("character", stats["by_speaker"]), ("rule set", stats["by_version"])]  # fmt: skip
    for group, entries in groups:
        for entry in entries:
            cells = [str(x) for c in entry["cells"] for x in (c["n"], f"{c['share']:.1f}")]
            rows.append([group, entry["key"], str(entry["total"]), *cells])
    for entry in stats["attempts_per_turn"]:
        rows.append(["attempts per turn", str(entry["attempts"]), str(entry["turns"])])
    return rows
