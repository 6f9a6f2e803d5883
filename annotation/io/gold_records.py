"""Reading and validating gold-item JSONL for annotator training (pure Python, no Django).

One JSON object per line: the seed A.3 input record plus the gold standard,

    {"id": "gold_001", "user": "...", "response": "...", "context": [...],
     "gold": {"social": 3, "avoidant": 1, "mechanical": 1, "self": 1},
     "explanation": "社会的迎合3: 賞賛語「素晴らしい」...", "set": "practice"}

``set`` is ``"practice"`` (exercises with feedback, seed B.3.1 step 2) or ``"test"`` (the
qualification test, B.3.1 step 4). The dialogue part is checked by ``records.parse_dialogue``,
so every problem reads like the other imports: ``file:line: $.json.path: message``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from annotation.axes import AXES, SCORES
from annotation.io.records import Problem, ProblemLog, load_records_with_unique_ids, parse_dialogue
from core.jsonl import describe_value, json_type

SETS: tuple[str, ...] = ("practice", "test")
FIELDS: tuple[str, ...] = ("id", "user", "response", "context", "gold", "explanation", "set")
MAX_EXPLANATION_LENGTH = 5_000
_MISSING = object()


@dataclass(frozen=True, slots=True)
class GoldRecord:
    id: str
    user: str
    response: str
    context: list[dict]
    gold: dict[str, int]
    explanation: str
    set: str
    file: str = ""
    line: int = 0

    def as_json(self) -> dict:
        return {
            "id": self.id,
            "user": self.user,
            "response": self.response,
            "context": self.context,
            "gold": dict(self.gold),
            "explanation": self.explanation,
            "set": self.set,
        }


def _parse_gold(raw: object, problem) -> dict[str, int] | None:
    if raw is _MISSING:
        problem("$.gold", "missing required field (an object with the axes " + ", ".join(AXES) + ")")
        return None
    if not isinstance(raw, dict):
        problem("$.gold", f"must be an object with the axes {', '.join(AXES)}, got {json_type(raw)}")
        return None
    scores: dict[str, int] = {}
    for axis in AXES:
        path = f"$.gold.{axis}"
        if axis not in raw:
            problem(path, "missing required field")
            continue
        value = raw[axis]
        if isinstance(value, bool) or not isinstance(value, int):
            problem(path, f"must be an integer from 1 to 5, got {describe_value(value)}")
        elif value not in SCORES:
            problem(path, f"must be from 1 to 5, got {value}", "range")
        else:
            scores[axis] = value
    unknown = sorted(set(raw) - set(AXES))
    if unknown:
        problem("$.gold", f"unknown axis {', '.join(unknown)}; the axes are {', '.join(AXES)}")
    return scores if len(scores) == len(AXES) and not unknown else None


def _parse_explanation(raw: object, problem) -> str | None:
    if raw is _MISSING:
        problem("$.explanation", "missing required field (why the gold scores are right, naming the B.1 markers)")
        return None
    if not isinstance(raw, str):
        problem("$.explanation", f"must be a string, got {json_type(raw)}")
        return None
    if not raw.strip():
        problem("$.explanation", "must not be empty")
        return None
    if len(raw) > MAX_EXPLANATION_LENGTH:
        problem("$.explanation", f"must be at most {MAX_EXPLANATION_LENGTH} characters, got {len(raw)}")
        return None
    return raw


def _parse_set(raw: object, problem) -> str | None:
    if raw is _MISSING:
        problem("$.set", 'missing required field ("practice" or "test")')
        return None
    if raw not in SETS:
        problem("$.set", f'must be "practice" or "test", got {describe_value(raw)}')
        return None
    return raw


def parse_gold(obj: dict, *, file: str, line: int) -> tuple[GoldRecord | None, list[Problem]]:
    """One line's object as a GoldRecord, or the problems that prevent it."""
    dialogue, problems = parse_dialogue(obj, file=file, line=line)
    problems = list(problems)

    def problem(path: str, message: str, kind: str = "format") -> None:
        problems.append(Problem(file, line, path, message, kind))

    gold = _parse_gold(obj.get("gold", _MISSING), problem)
    explanation = _parse_explanation(obj.get("explanation", _MISSING), problem)
    item_set = _parse_set(obj.get("set", _MISSING), problem)
    unknown = [key for key in obj if key not in FIELDS]
    for key in unknown:
        problem(f"$.{key}", f"unknown field; the fields are {', '.join(FIELDS)}")
    if problems:
        return None, problems
    record = GoldRecord(
        dialogue.id, dialogue.user, dialogue.response, list(dialogue.context), gold, explanation, item_set, file, line
    )
    return record, []


def load_gold(paths: Iterable[str | Path], *, log: ProblemLog | None = None) -> list[GoldRecord]:
    """Parse and validate gold files in order; an id repeated anywhere is a problem."""
    return load_records_with_unique_ids(paths, parse_gold, log=log)
