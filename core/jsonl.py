"""Reading JSONL files line by line, and the problems found in them (pure Python, no Django; every app's imports).

A problem names the file, the line, the JSON path and what is accepted; a ``ProblemLog`` collects
them (up to a limit) so that a broken file reports many errors at once and nothing is stored.

A problem made with ``Problem.of`` keeps its English template and parameters besides the message,
so that the pages and the API can show it in the reader's language (``core.problem_text``);
the commands print the English ``message``. Templates are marked with ``gettext_noop`` so that
``makemessages`` finds them, without importing Django here.
"""

from __future__ import annotations

import gc
import json
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from core.json_strict import BLANK, check_text
from core.names import batch_name_problem

MAX_PROBLEMS = 100


def gettext_noop(message: str) -> str:
    """``message`` unchanged: marks a template for the translation catalogue (translated where shown)."""
    return message


# The JSON type names a problem may show (``json_type``), for the catalogue.
JSON_TYPE_NAMES = (
    gettext_noop("null"),
    gettext_noop("boolean"),
    gettext_noop("number"),
    gettext_noop("string"),
    gettext_noop("array"),
    gettext_noop("object"),
)


# The json module's messages for a line that is not JSON, for the catalogue.
JSON_DECODER_MESSAGES = (
    gettext_noop("Expecting value"),
    gettext_noop("Expecting ',' delimiter"),
    gettext_noop("Expecting ':' delimiter"),
    gettext_noop("Expecting property name enclosed in double quotes"),
    gettext_noop("Extra data"),
    gettext_noop("Unterminated string starting at"),
    gettext_noop("Invalid control character at"),
    gettext_noop("Invalid \\escape"),
    gettext_noop("Invalid \\uXXXX escape"),
    gettext_noop("Illegal trailing comma before end of object"),
    gettext_noop("Illegal trailing comma before end of array"),
)


def fill(template: str, params: dict) -> str:
    """``template`` with its ``%(name)s`` placeholders filled; a ``*_text`` parameter is a template itself,
    filled with the other parameters (one level deep)."""
    if not params:
        return template
    plain = {key: value for key, value in params.items() if not key.endswith("_text")}
    return template % {key: value % plain if key.endswith("_text") else value for key, value in params.items()}


@dataclass(frozen=True)
class Problem:
    file: str
    line: int | None
    path: str
    message: str  # in English: what the commands print
    kind: str = "format"  # "format" (JSON, fields, types) or "range" (a value outside its scale)
    template: str = ""  # the message's English template (a msgid), when made with ``Problem.of``
    params: tuple[tuple[str, object], ...] = ()

    @classmethod
    def of(cls, file: str, line: int | None, path: str, template: str, kind: str = "format", **params) -> Problem:
        """A problem whose message is ``template`` filled with ``params`` (``*_text`` ones are templates too)."""
        return cls(file, line, path, fill(template, params), kind, template, tuple(params.items()))

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line is not None else self.file
        return f"{where}: {self.path}: {self.message}"


class InputError(Exception):
    """Input that cannot be stored; ``problems`` says where and why."""

    def __init__(self, problems: list[Problem], *, truncated: bool = False, total: int | None = None) -> None:
        self.problems = problems
        self.truncated = truncated
        self.total = max(total or 0, len(problems))  # how many were found (``problems`` stops at a limit)
        more = " (more not shown)" if truncated else ""
        super().__init__(f"{len(problems)} problem(s){more}:\n" + "\n".join(f"  {p}" for p in problems))


class ProblemLog:
    """Collects problems up to a limit, so a broken file reports many errors but not millions."""

    def __init__(self, limit: int = MAX_PROBLEMS) -> None:
        self.limit = limit
        self.problems: list[Problem] = []
        self.truncated = False
        self.counts: dict[str, int] = {}

    def add(self, problem: Problem) -> None:
        self.counts[problem.kind] = self.counts.get(problem.kind, 0) + 1
        if len(self.problems) < self.limit:
            self.problems.append(problem)
        else:
            self.truncated = True

    def extend(self, problems: Iterable[Problem]) -> None:
        for problem in problems:
            self.add(problem)

    def __bool__(self) -> bool:
        return bool(self.problems)

    def raise_if_any(self) -> None:
        if self.problems:
            raise InputError(self.problems, truncated=self.truncated, total=sum(self.counts.values()))


def read_jsonl(path: str | Path) -> Iterator[tuple[int, object]]:
    """Yield (line number, parsed JSON object) or (line number, Problem) for each non-blank line.

    Each line is strict JSON under ``core.json_strict``'s rules: nesting depth, duplicate keys, lone
    surrogates, NUL characters and 64-bit integers, besides what JSON itself requires.
    """
    name = str(path)
    with open(path, "rb") as handle:
        for number, raw in enumerate(handle, start=1):
            value, finding = check_text(raw, strip_bom=number == 1)
            if finding is not None:
                yield number, Problem.of(name, number, finding.path, finding.template, **finding.params)
            elif value is BLANK:
                continue
            elif not isinstance(value, dict):
                yield (
                    number,
                    Problem.of(
                        name,
                        number,
                        "$",
                        gettext_noop("expected a JSON object per line, got %(type_text)s"),
                        type_text=json_type(value),
                    ),
                )
            else:
                yield number, value


def describe_value(value) -> str:
    """How an error message shows a wrong value: its JSON type, and the value itself when short."""
    if value is None or isinstance(value, (list, dict)):
        return json_type(value)
    return f"{json_type(value)} {json.dumps(value, ensure_ascii=False)}"


def got(value) -> dict:
    """``describe_value`` as parameters of a template's "got %(type_text)s%(shown)s" (the type translates)."""
    if value is None or isinstance(value, (list, dict)):
        return {"type_text": json_type(value), "shown": ""}
    return {"type_text": json_type(value), "shown": " " + json.dumps(value, ensure_ascii=False)}


def json_type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def readable_paths(paths: Iterable[str | Path], log: ProblemLog) -> list[str | Path]:
    """The paths that are regular files; a problem for each one that is not."""
    readable = []
    for path in paths:
        if Path(path).is_file():
            readable.append(path)
        else:
            log.add(Problem.of(str(path), None, "$", gettext_noop("file not found (or not a regular file)")))
    return readable


@contextmanager
def gc_paused():
    """Pause the cyclic garbage collector while building many small objects that form no cycles.

    Otherwise it runs again and again over every container made so far: a third of a 300k-line load.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


@gc_paused()
def load_records_with_unique_ids(paths: Iterable[str | Path], parse, *, log: ProblemLog | None = None) -> list:
    """Parse and validate files with ``parse(obj, file=, line=)``; an id repeated anywhere is a problem."""
    log = log if log is not None else ProblemLog()
    records: list = []
    first_seen: dict[str, tuple[str, int]] = {}
    for path in paths:
        name = str(path)
        for number, value in read_jsonl(path):
            if isinstance(value, Problem):
                log.add(value)
                continue
            record, problems = parse(value, file=name, line=number)
            if problems:
                log.extend(problems)
                continue
            if record.id in first_seen:
                first = "{}:{}".format(*first_seen[record.id])
                template = gettext_noop("duplicate id %(id)s (first at %(first)s)")
                log.add(Problem.of(name, number, "$.id", template, id=repr(record.id), first=first))
                continue
            first_seen[record.id] = (name, number)
            records.append(record)
    return records


def check_batch_name(name: str, log: ProblemLog, *, limit: int, digits_only: bool = True) -> None:
    """A ``--batch`` name must follow ``core.names`` (printable, no ``/``, at most ``limit`` characters).

    ``digits_only=False``: refuse a name of digits only, where URLs and commands read digits as a batch id.
    """
    problem = batch_name_problem(name, limit=limit, digits_allowed=digits_only)
    if problem is not None:
        template, params = problem
        log.add(Problem.of("--batch", None, "name", template, **params))


def report_files_without_records(paths, records, log: ProblemLog, *, empty: str) -> None:
    """An empty (or blank) file is a mistake, not an import of nothing: ``empty`` says so (a template)."""
    with_records = {record.file for record in records}
    with_problems = {problem.file for problem in log.problems}
    for path in paths:
        if str(path) not in with_records and str(path) not in with_problems:
            log.add(Problem.of(str(path), None, "$", empty))
