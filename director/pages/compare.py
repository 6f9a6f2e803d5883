"""Comparing a candidate rule set with the shipped one on the stored verdicts' lines (the replay of the rules issue)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from core.upload_limits import upload_size_error
from core.uploads import scratch_copies
from director.models import RetryVerdict
from director.replay import STATUSES, ReplayLine, RuleSide, changed, iter_report
from director.rules import RuleSetError, UnknownCharacter, check_utterance, load_rule_set
from director.rules.diff import settings_diff
from director.rules.ruleset import default_rule_set

MAX_LINES = 5000  # the most recent distinct lines judged again


class CompareError(ValueError):
    status = 400


class RulesTooLarge(CompareError):
    """A rule-set file over ``UPLOAD_MAX_BYTES_RULES``: refused before it is read."""

    status = 413


def load_candidate(upload) -> tuple:
    """``(rule set, file name)`` from an uploaded YAML file; ``CompareError`` names the file, key and problem."""
    if upload is None:
        raise CompareError("choose a rule-set file (YAML) to compare with the shipped one")
    if (message := upload_size_error(upload, "UPLOAD_MAX_BYTES_RULES")) is not None:
        raise RulesTooLarge(message)
    name = Path(upload.name or "rules.yaml").name
    with scratch_copies([upload], prefix="director-rules-", names=[name]) as (_folder, (path,)):
        try:
            return load_rule_set(path), name
        except (RuleSetError, UnicodeDecodeError, OSError) as exc:
            raise CompareError(str(exc)) from None


def replay_stored(
    candidate, name: str, baseline=None, baseline_name: str = "shipped default.yaml"
) -> tuple[list[ReplayLine], RuleSide, RuleSide, int]:
    """The stored lines judged under ``baseline`` (default: the shipped rule set) and under ``candidate``;
    also how many were skipped (a speaker one of the two does not know)."""
    baseline = baseline or default_rule_set()
    seen, lines, skipped = set(), [], 0
    rows = RetryVerdict.objects.order_by("-created_at", "-pk").values_list("pk", "speaker", "text")
    for pk, speaker, text in rows.iterator(chunk_size=1000):
        if (speaker, text) in seen:
            continue
        seen.add((speaker, text))
        try:
            old = check_utterance(text, speaker, baseline).to_dict()
            new = check_utterance(text, speaker, candidate).to_dict()
        except UnknownCharacter:
            skipped += 1
            continue
        lines.append(ReplayLine(str(pk), speaker, text, old, new))
        if len(lines) >= MAX_LINES:
            break
    sides = (RuleSide(baseline_name, baseline.version, baseline.content_hash),
             RuleSide(name, candidate.version, candidate.content_hash))  # fmt: skip
    return lines, *sides, skipped


def summary(lines: list[ReplayLine]) -> dict:
    """The transition table (rows: shipped, columns: candidate) and the changed lines, for the page."""
    transitions = Counter((line.baseline["status"], line.new["status"]) for line in lines)
    rows = [{"status": old, "cells": [transitions[(old, new)] for new in STATUSES],
             "total": sum(transitions[(old, new)] for new in STATUSES)} for old in STATUSES]  # fmt: skip
    changes = [line for line in lines if changed(line)]
    return {"statuses": STATUSES, "rows": rows, "lines": len(lines), "changed": len(changes), "examples": changes[:50]}


def settings_changes(baseline, candidate) -> list:
    """The settings that differ from ``baseline`` to ``candidate`` (``director.rules.diff``), for the page."""
    return settings_diff(baseline, candidate)


def report_markdown(lines, baseline: RuleSide, new: RuleSide, settings=None) -> str:
    return "".join(iter_report(lines, baseline=baseline, new=new, settings=settings))
