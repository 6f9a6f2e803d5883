"""Import problems in the reader's language: the pages and the API show a ``Problem`` through this.

A problem made with ``Problem.of`` (core.jsonl) carries its English template and parameters; the
template is a msgid, and so is every ``*_text`` parameter (a nested template such as "from 1 to 5",
or a JSON type name). A problem without a template shows its English message as it is. Any problem
kept the same way (a rating sheet's ``SheetProblem``), or a row of one stored as a dict, shows the same.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from django.utils.translation import gettext

from core.jsonl import Problem


class TemplatedProblem(Protocol):
    """A problem that keeps its English message, and the template and parameters it was filled from."""

    @property
    def message(self) -> str: ...

    @property
    def template(self) -> str: ...

    @property
    def params(self) -> Iterable[tuple[str, object]]: ...


def _filled(template: str, params: dict) -> str:
    """``core.jsonl.fill`` with the template and every ``*_text`` parameter translated."""
    translated = gettext(template)
    if not params:
        return translated
    plain = {key: value for key, value in params.items() if not key.endswith("_text")}
    values = {key: gettext(value) % plain if key.endswith("_text") else value for key, value in params.items()}
    return translated % values


def problem_message(problem: TemplatedProblem) -> str:
    """The problem's message in the active language (English when it has no template or no translation)."""
    if not problem.template:
        return problem.message
    return _filled(problem.template, dict(problem.params))


def problem_row(problem: Problem, *, names: dict[str, str] | None = None) -> dict:
    """A problem as a JSON-safe row (file, line, path, English message, template, params), for tables and jobs.

    ``names`` maps a file's path as the server read it to the name its user knows; the file column,
    the message and the parameters (e.g. "first at <path>:3") show only the latter.
    """
    names = names or {}

    def known(text):
        if not isinstance(text, str):
            return text
        for path, name in names.items():
            text = text.replace(path, name)
        return text

    return {
        "file": known(problem.file),
        "line": problem.line,
        "path": problem.path,
        "message": known(problem.message),
        "template": problem.template,
        "params": {key: known(value) for key, value in problem.params},
    }


def problem_row_message(row: dict) -> str:
    """A row's message in the active language (rows stored before templates existed show their message).

    ``params`` is a dict, or a list of (name, value) pairs (a dataclass's ``params`` stored as JSON).
    """
    if not row.get("template"):
        return str(row.get("message", ""))
    return _filled(row["template"], dict(row.get("params") or {}))
