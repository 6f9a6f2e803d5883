"""Reading YAML rule files strictly: every value checked, every error naming the file and the key path.

``read_yaml`` parses a file with PyYAML's safe loader, refusing duplicate keys (PyYAML would silently
keep the last one) and reporting syntax errors with their line and column. ``Reader`` checks the
decoded values: mappings with exactly the allowed keys (unknown keys refused, required keys present),
integers in a range (``True`` is not an integer here, although Python says it is), numbers (integer or
decimal) in a range, non-empty strings
and lists of distinct non-empty strings. Each failure raises ``RuleSetError(file, path, problem)``
with ``path`` spelled ``thresholds.format.retry_lines`` or ``setting.phrases[2]``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

import yaml

from director.rules.errors import RuleSetError


class _StrictLoader(yaml.SafeLoader):
    """The safe loader, refusing a key that appears twice in one mapping."""

    def construct_mapping(self, node, deep=False):
        seen = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            if isinstance(key, str | int | float | bool) and key in seen:
                mark = key_node.start_mark
                raise yaml.constructor.ConstructorError(
                    None, None, f"duplicate key {key!r} (line {mark.line + 1})", mark
                )
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


def read_yaml(path: Path) -> object:
    """The decoded content of ``path``; ``RuleSetError`` for an unreadable file or invalid YAML."""
    try:
        source = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise RuleSetError(path.name, "", f"cannot read the file ({error})") from None
    try:
        return yaml.load(source, Loader=_StrictLoader)  # noqa: S506 - a SafeLoader subclass
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f"{path.name}:{mark.line + 1}:{mark.column + 1}" if mark else path.name
        problem = getattr(error, "problem", None) or str(error)
        raise RuleSetError(where, "", f"invalid YAML: {problem}") from None


def describe(value: object) -> str:
    """A short rendering of a found value for an error message: ``"eight"``, ``8.5``, ``true``, ``a list``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null (an empty value)"
    if isinstance(value, str):
        shown = value if len(value) <= 40 else value[:40] + "…"
        return json.dumps(shown, ensure_ascii=False)
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, list):
        return f"a list of {len(value)}"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__


def child(path: str, key: object) -> str:
    """``path`` extended by a mapping key (``a.b``) or a list index (``a[2]``)."""
    if isinstance(key, int) and not isinstance(key, bool):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else str(key)


class Reader:
    """Strict checks of decoded YAML values, raising ``RuleSetError`` that names ``file`` and the path."""

    def __init__(self, file: str) -> None:
        self.file = file

    def error(self, path: str, problem: str) -> RuleSetError:
        return RuleSetError(self.file, path, problem)

    def fields(self, value: object, path: str, required: Iterable[str], optional: Iterable[str] = ()) -> dict:
        """A mapping with every key of ``required``, any of ``optional`` and nothing else."""
        required = tuple(required)
        accepted = required + tuple(optional)
        if not isinstance(value, dict):
            keys = ", ".join(accepted)
            raise self.error(path, f"expected a mapping with the keys {keys}, got {describe(value)}")
        for key in value:
            if key not in accepted:
                raise self.error(child(path, key), f"unknown key; accepted: {', '.join(accepted)}")
        for key in required:
            if key not in value:
                raise self.error(child(path, key), f"missing (required here: {', '.join(required)})")
        return value

    def integer(self, value: object, path: str, minimum: int, maximum: int | None = None) -> int:
        """An integer (not a boolean) in ``minimum..maximum``."""
        expected = f"an integer ≥ {minimum}" if maximum is None else f"an integer from {minimum} to {maximum}"
        if (
            not isinstance(value, int)
            or isinstance(value, bool)
            or value < minimum
            or (maximum is not None and value > maximum)
        ):
            raise self.error(path, f"expected {expected}, got {describe(value)}")
        return value

    def number(self, value: object, path: str, minimum: float, maximum: float) -> float:
        """A finite number (integer or decimal, not a boolean) in ``minimum..maximum``, as a float."""
        if (
            not isinstance(value, int | float)
            or isinstance(value, bool)
            or not minimum <= value <= maximum  # also refuses nan
        ):
            raise self.error(path, f"expected a number from {minimum} to {maximum}, got {describe(value)}")
        return float(value)

    def flag(self, value: object, path: str) -> bool:
        if not isinstance(value, bool):
            raise self.error(path, f"expected true or false, got {describe(value)}")
        return value

    def text(self, value: object, path: str, expected: str = "a non-empty string") -> str:
        if not isinstance(value, str) or not value.strip():
            raise self.error(path, f"expected {expected}, got {describe(value)}")
        return value

    def words(self, value: object, path: str) -> list[str]:
        """A list of distinct non-empty strings (an empty list is allowed)."""
        if not isinstance(value, list):
            raise self.error(path, f"expected a list of strings, got {describe(value)}")
        seen = set()
        for index, word in enumerate(value):
            self.text(word, child(path, index))
            if word in seen:
                raise self.error(child(path, index), f"{describe(word)} is listed twice")
            seen.add(word)
        return list(value)
