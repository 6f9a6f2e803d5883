"""Validation of the guideline data files and of dialogues in the seed's shape (pure Python).

Every problem is a ``ValueError`` naming the file and the JSON path, and what is accepted.
"""

from __future__ import annotations

import json
from typing import Any

from annotation.axes import AXES
from annotation.guidelines.vocabulary import (
    _EXAMPLE_KEYS_OPTIONAL,
    _EXAMPLE_KEYS_REQUIRED,
    _RULE_ID,
    CONTEXT_RADIUS,
    EXCLUSIONS_KEY,
    MARKER_GROUPS,
    SCALE_MAX,
    SCALE_MIN,
    SPEAKERS,
    normalize,
)

# --------------------------------------------------------------------------- validation


def _fail(source: str, path: str, problem: str) -> ValueError:
    return ValueError(f"{source}: {path}: {problem}")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_text(value: Any, source: str, path: str) -> None:
    if not isinstance(value, str) or not value.strip():
        raise _fail(source, path, f"expected a non-empty string, got {value!r}")


def validate_markers(data: Any, source: str = "markers.json") -> None:
    """Check the shape of markers.json; raise ValueError naming the file and the JSON path."""
    if not isinstance(data, dict):
        raise _fail(source, "$", "expected an object {axis: {group: [markers]}}")
    unknown = sorted(set(data) - set(AXES) - {EXCLUSIONS_KEY})
    if unknown:
        raise _fail(source, f"$.{unknown[0]}", f"unknown axis (expected one of {', '.join(AXES)})")
    for axis in AXES:
        groups = data.get(axis)
        if not isinstance(groups, dict):
            raise _fail(source, f"$.{axis}", "missing or not an object {group: [markers]}")
        expected = MARKER_GROUPS[axis]
        extra = sorted(set(groups) - set(expected))
        if extra:
            raise _fail(source, f"$.{axis}.{extra[0]}", f"unknown group (expected {', '.join(expected)})")
        seen: dict[str, str] = {}
        for group in expected:
            words = groups.get(group)
            if not isinstance(words, list) or not words:
                raise _fail(source, f"$.{axis}.{group}", "missing or not a non-empty list of strings")
            for i, word in enumerate(words):
                path = f"$.{axis}.{group}[{i}]"
                _check_text(word, source, path)
                if word != word.strip():
                    raise _fail(source, path, f"marker {word!r} has surrounding whitespace")
                key = normalize(word)
                if key in seen:
                    raise _fail(source, path, f"duplicate marker {word!r} (already in {seen[key]})")
                seen[key] = f"$.{axis}.{group}"
    exclusions = data.get(EXCLUSIONS_KEY, {})
    if not isinstance(exclusions, dict):
        raise _fail(source, f"$.{EXCLUSIONS_KEY}", "expected an object {axis: [phrases]}")
    for axis, phrases in exclusions.items():
        path = f"$.{EXCLUSIONS_KEY}.{axis}"
        if axis not in AXES:
            raise _fail(source, path, f"unknown axis (expected one of {', '.join(AXES)})")
        if not isinstance(phrases, list):
            raise _fail(source, path, "expected a list of strings")
        for i, phrase in enumerate(phrases):
            _check_text(phrase, source, f"{path}[{i}]")


def validate_context(context: Any, source: str, path: str) -> None:
    """Check a seed A.3 context list: turns -3..-1 / +1..+3 (unique), speaker user|ai, non-empty text."""
    if not isinstance(context, list):
        raise _fail(source, path, "expected a list of {turn, speaker, text}")
    turns: set[int] = set()
    for i, item in enumerate(context):
        item_path = f"{path}[{i}]"
        if not isinstance(item, dict):
            raise _fail(source, item_path, "expected an object {turn, speaker, text}")
        extra = sorted(set(item) - {"turn", "speaker", "text"})
        if extra:
            raise _fail(source, f"{item_path}.{extra[0]}", "unknown key")
        turn = item.get("turn")
        if not _is_int(turn) or turn == 0 or abs(turn) > CONTEXT_RADIUS:
            raise _fail(
                source,
                f"{item_path}.turn",
                f"expected an integer offset -{CONTEXT_RADIUS}..-1 or 1..{CONTEXT_RADIUS}, got {turn!r}",
            )
        if turn in turns:
            raise _fail(source, f"{item_path}.turn", f"duplicate turn {turn}")
        turns.add(turn)
        if item.get("speaker") not in SPEAKERS:
            raise _fail(source, f"{item_path}.speaker", f"expected 'user' or 'ai', got {item.get('speaker')!r}")
        _check_text(item.get("text"), source, f"{item_path}.text")


def validate_scores(scores: Any, source: str, path: str) -> None:
    """Check {axis: int 1..5} for exactly the four axes."""
    if not isinstance(scores, dict):
        raise _fail(source, path, "expected an object {axis: 1..5}")
    extra = sorted(set(scores) - set(AXES))
    if extra:
        raise _fail(source, f"{path}.{extra[0]}", "unknown axis")
    for axis in AXES:
        value = scores.get(axis)
        if not _is_int(value) or not SCALE_MIN <= value <= SCALE_MAX:
            raise _fail(source, f"{path}.{axis}", f"expected an integer {SCALE_MIN}..{SCALE_MAX}, got {value!r}")


def validate_dialogue(item: Any, source: str, path: str = "$") -> None:
    """Check one seed A.3 input record {"id", "user", "response", "context"}."""
    if not isinstance(item, dict):
        raise _fail(source, path, "expected an object {id, user, response, context}")
    extra = sorted(set(item) - {"id", "user", "response", "context"})
    if extra:
        raise _fail(source, f"{path}.{extra[0]}", "unknown key")
    for key in ("id", "user", "response"):
        _check_text(item.get(key), source, f"{path}.{key}")
    validate_context(item.get("context"), source, f"{path}.context")


def validate_examples(data: Any, source: str = "examples.json") -> None:
    """Check the shape of examples.json; raise ValueError naming the file and the JSON path.

    Each entry: ``{"id", "axis", "user", "response", "context", "expected", "explanation"}`` and
    optionally ``"expected_flags"``: the consistency rule ids (``"C001"``) the example is known to
    trigger, explained in its explanation (the rules are heuristics; such an example teaches where).
    """
    if not isinstance(data, list) or not data:
        raise _fail(source, "$", "expected a non-empty list of examples")
    ids: set[str] = set()
    for i, item in enumerate(data):
        path = f"$[{i}]"
        if not isinstance(item, dict):
            raise _fail(source, path, "expected an object")
        for key in _EXAMPLE_KEYS_REQUIRED:
            if key not in item:
                raise _fail(source, f"{path}.{key}", "missing")
        extra = sorted(set(item) - set(_EXAMPLE_KEYS_REQUIRED) - set(_EXAMPLE_KEYS_OPTIONAL))
        if extra:
            raise _fail(source, f"{path}.{extra[0]}", "unknown key")
        for key in ("id", "user", "response", "explanation"):
            _check_text(item[key], source, f"{path}.{key}")
        if item["id"] in ids:
            raise _fail(source, f"{path}.id", f"duplicate id {item['id']!r}")
        ids.add(item["id"])
        if item["axis"] not in AXES:
            raise _fail(source, f"{path}.axis", f"expected one of {', '.join(AXES)}, got {item['axis']!r}")
        validate_context(item["context"], source, f"{path}.context")
        validate_scores(item["expected"], source, f"{path}.expected")
        flags = item.get("expected_flags", [])
        if not isinstance(flags, list) or not all(isinstance(f, str) and _RULE_ID.match(f) for f in flags):
            raise _fail(source, f"{path}.expected_flags", f"expected a list of rule ids like 'C001', got {flags!r}")


def validate_reference_scores(data: Any, source: str = "reference_scores.json") -> None:
    if not isinstance(data, dict) or not data:
        raise _fail(source, "$", "expected a non-empty object {dialogue id: {axis: 1..5}}")
    for key, scores in data.items():
        validate_scores(scores, source, f"$[{json.dumps(key, ensure_ascii=False)}]")
