"""Helpers of the rules engine tests: rule-set files to vary, findings as dicts."""

from collections.abc import Callable
from pathlib import Path

import yaml

from director.rules.ruleset import DEFAULT_RULE_SET


def default_data() -> dict:
    return yaml.safe_load(DEFAULT_RULE_SET.read_text(encoding="utf-8"))


def write_rule_set(folder: Path, change: Callable[[dict], object] | None = None, name: str = "default.yaml") -> Path:
    """A copy of the default rule set in ``folder``, changed by ``change(data)``, saved as ``name``."""
    data = default_data()
    if change is not None:
        change(data)
    path = folder / name
    path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return path


def finding(verdict, rule: str) -> dict | None:
    """The finding of ``rule`` in ``verdict`` as a dict, or None."""
    found = verdict.finding(rule)
    return found.to_dict() if found is not None else None


def rules_found(verdict) -> dict[str, str]:
    """``{rule: status}`` of the verdict's findings."""
    return {found.rule: found.status for found in verdict.findings}


def assert_evidence_in_original(text: str, verdict) -> None:
    """Every evidence span of ``verdict`` slices ``text`` to its own text, which is not blank."""
    for found in verdict.findings:
        for span in found.evidence:
            assert 0 <= span["start"] < span["end"] <= len(text), (found.rule, span)
            assert text[span["start"] : span["end"]] == span["text"], (found.rule, span)
            assert span["text"].strip(), (found.rule, span)
