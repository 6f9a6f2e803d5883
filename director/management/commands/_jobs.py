"""The work of ``director_check`` and ``director_replay`` on a chunk of utterances, in any process.

``--jobs N`` runs it in N processes (``core.parallel``): each loads the rule set(s) once from their
files (and makes its own Sudachi analyser on first use), checks that a file still has the content
hash the command read, and judges its chunks; the command writes the results in input order. With
``--jobs 1`` the same functions run in the command's process on the rule sets it loaded, so the
output is the same either way. The input has been validated by then (fields, ids and speakers), so a
chunk raises only when something is wrong with the program or a rule set file changed meanwhile.

No Django here: a worker process imports this module and ``director.rules`` only.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path

from director.io.utterances import Utterance, verdict_line
from director.rules import RuleSet, check_utterance, load_rule_set


class RuleSetChanged(Exception):
    """A worker process read a rule set file whose content differs from the one the command read."""


def verdict(utterance: Utterance, rules: RuleSet, language: str) -> dict:
    return check_utterance(
        utterance.text,
        speaker=utterance.speaker,
        rules=rules,
        history=list(utterance.history) or None,
        language=language,
    ).to_dict()


def check_lines(chunk: Sequence[Utterance], *, rules: RuleSet, language: str) -> list[tuple[str, str]]:
    """``(status, verdict line as JSON + newline)`` of each utterance: ``director_check``'s output."""
    out = []
    for utterance in chunk:
        line = verdict_line(utterance, verdict(utterance, rules, language))
        out.append((line["status"], json.dumps(line, ensure_ascii=False) + "\n"))
    return out


def replay_verdicts(
    chunk: Sequence[Utterance], *, new: RuleSet, old: RuleSet | None, language: str
) -> list[tuple[dict | None, dict]]:
    """``(verdict under old or None without it, verdict under new)`` of each utterance."""
    return [
        (verdict(utterance, old, language) if old is not None else None, verdict(utterance, new, language))
        for utterance in chunk
    ]


def source(rules: RuleSet) -> tuple[str, str]:
    """What a worker process needs to load ``rules`` again: its file and content hash."""
    return str(Path(rules.path).resolve()), rules.content_hash


def load_same(path: str, content_hash: str) -> RuleSet:
    rules = load_rule_set(path)
    if rules.content_hash != content_hash:
        raise RuleSetChanged(f"{path} changed while the command ran; run it again")
    return rules


def check_worker(rules: tuple[str, str], language: str) -> Callable[[Sequence[Utterance]], list[tuple[str, str]]]:
    """In a worker process: ``check_lines`` on the rule set of ``source(rules)``, loaded once."""
    return partial(check_lines, rules=load_same(*rules), language=language)


def replay_worker(
    new: tuple[str, str], old: tuple[str, str] | None, language: str
) -> Callable[[Sequence[Utterance]], list[tuple[dict | None, dict]]]:
    """In a worker process: ``replay_verdicts`` on the rule sets of ``source(...)``, each loaded once."""
    return partial(
        replay_verdicts, new=load_same(*new), old=load_same(*old) if old is not None else None, language=language
    )
