"""The Director's hard rules (seed 004 §1–§6, §8): a pure package, no Django.

    from director.rules import check_utterance, load_rule_set
    rules = load_rule_set()                        # rulesets/default.yaml + characters/*.yaml
    verdict = check_utterance("ほんと！！すごいね", speaker="やな", rules=rules)
    verdict.status, verdict.to_dict()

``CHARACTERS`` maps the default rule set's canonical character ids to their names
(``{"ayu": ("あゆ",), "yana": ("やな",)}``); it is read from the character files on first use.
"""

from __future__ import annotations

from director.rules.characters import Character
from director.rules.engine import check_utterance
from director.rules.errors import RuleSetError, UnknownCharacter
from director.rules.ruleset import RuleSet, default_rule_set, load_rule_set
from director.rules.verdict import MODIFY, PASS, RETRY, RULE_ORDER, WARN, Finding, Verdict

__all__ = [
    "CHARACTERS",
    "MODIFY",
    "PASS",
    "RETRY",
    "RULE_ORDER",
    "WARN",
    "Character",
    "Finding",
    "RuleSet",
    "RuleSetError",
    "UnknownCharacter",
    "Verdict",
    "check_utterance",
    "default_rule_set",
    "load_rule_set",
]


def __getattr__(name: str):
    if name == "CHARACTERS":
        return default_rule_set().characters
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
