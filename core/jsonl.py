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
import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import orjson

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

    def __init__(self, problems: list[Problem], *, truncated: bool = False) -> None:
        self.problems = problems
        self.truncated = truncated
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
            raise InputError(self.problems, truncated=self.truncated)


def read_jsonl(path: str | Path) -> Iterator[tuple[int, object]]:
    """Yield (line number, parsed JSON object) or (line number, Problem) for each non-blank line.

    Strict JSON, plus what a database or a later reader would trip over: a key given twice in one
    object (JSON parsers keep the last silently), a lone surrogate (``"\\ud800"``: not Unicode, so
    it cannot be stored or written out), a NUL character (PostgreSQL cannot store it in text).
    """
    name = str(path)
    with open(path, "rb") as handle:
        for number, raw in enumerate(handle, start=1):
            if number == 1 and raw.startswith(b"\xef\xbb\xbf"):
                raw = raw[3:]
            try:
                value = orjson.loads(raw)  # fast path; strict JSON and strict UTF-8
            except orjson.JSONDecodeError:
                value = _parse_slowly(name, number, raw)  # blank line, or an error to explain
                if value is None:
                    continue
            if isinstance(value, Problem):
                yield number, value
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
                unsafe = _unsafe_text(name, number, value) if _ESCAPES.search(raw) else None
                yield number, unsafe or _duplicate_key(name, number, raw, value) or value


_KEY = re.compile(rb'"\s*:')
# NUL and surrogates can only come in as escapes (raw bytes would not be valid JSON or UTF-8).
_ESCAPES = re.compile(rb"\\u(?:0000|[dD][89a-fA-F])")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _count_keys(value: dict | list) -> int:
    """Keys in ``value`` and every object inside it (type checks, not isinstance: this runs per line)."""
    if type(value) is dict:
        n, items = len(value), value.values()
    else:
        n, items = 0, value
    for item in items:
        kind = type(item)
        if kind is dict or kind is list:
            n += _count_keys(item)
    return n


def _key_like(raw: bytes) -> int:
    """An upper bound of the keys written in ``raw``: every ``"`` followed by ``:``, whatever the spacing."""
    if b'"\t' in raw or b'"  ' in raw:  # unusual spacing: the full pattern
        return len(_KEY.findall(raw))
    return raw.count(b'":') + raw.count(b'" :')


def _duplicate_key(name: str, number: int, raw: bytes, value: dict) -> Problem | None:
    """A key given twice in one object. Only lines with more key-like ``":`` than parsed keys are re-read."""
    if _key_like(raw) <= _count_keys(value):
        return None
    found: list[str] = []

    def pairs(items):
        seen: dict = {}
        for key, item in items:
            if key in seen and not found:
                found.append(key)
            seen[key] = item
        return seen

    json.loads(raw.decode("utf-8-sig" if number == 1 else "utf-8"), object_pairs_hook=pairs)
    if not found:
        return None
    template = gettext_noop("key %(key)s appears twice in one object; give each key once")
    return Problem.of(name, number, "$", template, key=repr(found[0]))


def _unsafe_text(name: str, number: int, value) -> Problem | None:
    """The first string (key or value) holding a lone surrogate or a NUL character, by JSON path."""
    for path, text in _strings(value, "$"):
        if "\x00" in text:
            template = gettext_noop("contains a NUL character (\\u0000), which cannot be stored; remove it")
            return Problem.of(name, number, path, template)
        surrogate = _SURROGATE.search(text)
        if surrogate:
            template = gettext_noop(
                "contains a lone surrogate %(escape)s at character %(position)s, which is not Unicode text; "
                "write the character itself or its full surrogate pair"
            )
            escape = f"\\u{ord(surrogate[0]):04x}"
            return Problem.of(name, number, path, template, escape=escape, position=surrogate.start() + 1)
    return None


def _strings(value, path: str):
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield f"{path}.{key}", key
            yield from _strings(item, f"{path}.{key}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _strings(item, f"{path}[{i}]")


def _parse_slowly(name: str, number: int, raw: bytes):
    """The standard library's reading of a line orjson refused: None (blank), a value, or a Problem."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        template = gettext_noop("not UTF-8 (byte %(byte)s at byte %(position)s); save as UTF-8")
        return Problem.of(name, number, "$", template, byte=f"0x{raw[exc.start]:02x}", position=exc.start + 1)
    text = text.rstrip("\r\n")
    if not text.strip():
        return None
    try:
        return _DECODER.decode(text)
    except ValueError as exc:
        if isinstance(exc, json.JSONDecodeError):
            template = gettext_noop("invalid JSON: %(detail_text)s at column %(column)s")
            return Problem.of(name, number, "$", template, detail_text=exc.msg, column=exc.colno)
        if isinstance(exc, _NotStrictJson):
            template = gettext_noop("invalid JSON: %(constant)s is not a number in strict JSON")
            return Problem.of(name, number, "$", template, constant=exc.constant)
        return Problem.of(name, number, "$", gettext_noop("invalid JSON: %(detail)s"), detail=str(exc))


class _NotStrictJson(ValueError):
    def __init__(self, constant: str) -> None:
        super().__init__(f"{constant} is not a number in strict JSON")
        self.constant = constant


def _reject_constant(name: str):
    raise _NotStrictJson(name)


_DECODER = json.JSONDecoder(parse_constant=_reject_constant)


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
    """A ``--batch`` name must be given and fit the column (``limit`` characters).

    ``digits_only=False``: refuse a name of digits only, where URLs and commands read digits as a batch id.
    """
    if not digits_only and name.strip().isdigit():
        template = gettext_noop(
            "the batch name %(name)s is only digits, which URLs and commands read as a batch id; "
            "give a name with a letter in it (e.g. batch-%(name)s)"
        )
        log.add(Problem.of("--batch", None, "name", template, name=name.strip()))
    elif not name.strip():
        log.add(
            Problem.of("--batch", None, "name", gettext_noop("the batch name is empty; give one with --batch NAME"))
        )
    elif len(name) > limit:
        template = gettext_noop("the batch name has %(length)s characters; at most %(limit)s fit")
        log.add(Problem.of("--batch", None, "name", template, length=len(name), limit=limit))


def report_files_without_records(paths, records, log: ProblemLog, *, empty: str) -> None:
    """An empty (or blank) file is a mistake, not an import of nothing: ``empty`` says so (a template)."""
    with_records = {record.file for record in records}
    with_problems = {problem.file for problem in log.problems}
    for path in paths:
        if str(path) not in with_records and str(path) not in with_problems:
            log.add(Problem.of(str(path), None, "$", empty))
