"""The two errors of the rules engine: a bad rule set or character file, and a speaker nobody defined."""

from __future__ import annotations

from collections.abc import Mapping


class RuleSetError(ValueError):
    """A rule set or character file that cannot be used.

    ``file`` is the file's name (``default.yaml``, ``yana.yaml``), ``path`` the key path inside it
    (``thresholds.format.retry_lines``, ``setting.phrases[2]``; empty for the file as a whole) and
    ``problem`` what was wrong and what would be accepted. The message reads
    ``default.yaml: thresholds.format.retry_lines: expected an integer ≥ 1, got "eight"``.
    """

    def __init__(self, file: str, path: str, problem: str) -> None:
        self.file = file
        self.path = path
        self.problem = problem
        super().__init__(f"{file}: {path}: {problem}" if path else f"{file}: {problem}")


class UnknownCharacter(ValueError):
    """A speaker that is neither a character's id nor one of its names.

    ``known`` maps each canonical id to its names; the message lists them all:
    ``unknown speaker 'ゆな'; known: yana (やな), ayu (あゆ)``.
    """

    def __init__(self, speaker: object, known: Mapping[str, tuple[str, ...]]) -> None:
        self.speaker = speaker
        self.known = dict(known)
        listed = ", ".join(f"{key} ({', '.join(names)})" if names else key for key, names in known.items())
        super().__init__(f"unknown speaker {speaker!r}; known: {listed or 'none'}")
