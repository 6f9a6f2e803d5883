"""Utterance and verdict lines (JSONL) of ``director_check`` and ``director_replay`` (pure: no Django).

An utterance line::

    {"id": "u-001", "speaker": "やな", "text": "えー、ほんと？", "history": [{"speaker": "あゆ", "text": "..."}]}

``id`` and ``speaker`` are non-empty strings (the speaker a character id or alias of the rule set,
checked when the line is evaluated), ``text`` a string, ``history`` (optional) the dialogue so far,
oldest first, as ``{"speaker", "text"}`` objects. A verdict line is what ``director_check`` writes:
the utterance's ``id``, ``speaker`` and ``text`` and its verdict (``status``, ``findings``, ``tone``,
``sentences``, ``topics``, ``topicHeads``, ``modifiedText``, ``rulesVersion``, ``rulesHash``;
``topicHeads`` is absent from verdicts written before it was added); ``director_replay`` reads either
kind. Any other key is a problem (a misspelt key would otherwise be ignored).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from core.jsonl import Problem, describe_value

UTTERANCE_FIELDS = ("id", "speaker", "text", "history")
VERDICT_FIELDS = (
    "status",
    "findings",
    "tone",
    "sentences",
    "topics",
    "topicHeads",
    "modifiedText",
    "rulesVersion",
    "rulesHash",
)
STATUSES = ("PASS", "WARN", "RETRY", "MODIFY")


@dataclass(frozen=True, slots=True)
class Utterance:
    id: str
    speaker: str
    text: str
    history: tuple[dict, ...]
    file: str
    line: int
    verdict: dict | None = None  # the stored verdict, when the line is a verdict line


def _key_path(key: str) -> str:
    return "$." + json.dumps(key, ensure_ascii=False)[1:-1]


def parse_line(obj: object, *, file: str, line: int, verdicts: bool = False) -> tuple[Utterance | None, list[Problem]]:
    """An ``Utterance`` or the problems of this line; ``verdicts`` also accepts verdict lines."""
    accepted = UTTERANCE_FIELDS + (VERDICT_FIELDS if verdicts else ())
    if not isinstance(obj, dict):
        return None, [
            Problem(file, line, "$", f"expected an object {{{', '.join(UTTERANCE_FIELDS)}}}, got {describe_value(obj)}")
        ]
    problems = []
    for key in ("id", "speaker"):
        value = obj.get(key)
        if key not in obj:
            problems.append(Problem(file, line, f"$.{key}", "missing required field (a non-empty string)"))
        elif not isinstance(value, str) or not value.strip():
            problems.append(
                Problem(file, line, f"$.{key}", f"expected a non-empty string, got {describe_value(value)}")
            )
    if "text" not in obj:
        problems.append(Problem(file, line, "$.text", "missing required field (the utterance as a string)"))
    elif not isinstance(obj["text"], str):
        problems.append(Problem(file, line, "$.text", f"expected a string, got {describe_value(obj['text'])}"))
    history = obj.get("history", [])
    if not isinstance(history, list):
        problems.append(
            Problem(file, line, "$.history", f"expected a list of {{speaker, text}}, got {describe_value(history)}")
        )
        history = []
    for index, turn in enumerate(history):
        if (
            not isinstance(turn, dict)
            or set(turn) - {"speaker", "text"}
            or not all(isinstance(turn.get(key), str) for key in ("speaker", "text"))
        ):
            problems.append(
                Problem(
                    file,
                    line,
                    f"$.history[{index}]",
                    f'expected {{"speaker": str, "text": str}}, got {describe_value(turn)}',
                )
            )
    verdict = None
    if verdicts and "status" in obj:
        if obj["status"] not in STATUSES:
            problems.append(
                Problem(
                    file,
                    line,
                    "$.status",
                    f"expected one of {', '.join(STATUSES)}, got {describe_value(obj['status'])}",
                )
            )
        if not isinstance(obj.get("findings"), list):
            problems.append(
                Problem(
                    file, line, "$.findings", f"expected a list of findings, got {describe_value(obj.get('findings'))}"
                )
            )
        verdict = {key: obj[key] for key in VERDICT_FIELDS if key in obj}
    for key in obj:
        if key not in accepted:
            problems.append(Problem(file, line, _key_path(key), f"unknown field; accepted: {', '.join(accepted)}"))
    if problems:
        return None, problems
    return Utterance(obj["id"], obj["speaker"], obj["text"], tuple(history), file, line, verdict), []


def verdict_line(utterance: Utterance, verdict: dict) -> dict:
    """What ``director_check`` writes for one utterance: its id, speaker and text, then the verdict."""
    return {"id": utterance.id, "speaker": utterance.speaker, "text": utterance.text, **verdict}
