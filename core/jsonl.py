"""Reading JSONL files line by line, and the problems found in them (pure Python, no Django; every app's imports).

A problem names the file, the line, the JSON path and what is accepted; a ``ProblemLog`` collects
them (up to a limit) so that a broken file reports many errors at once and nothing is stored.
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


@dataclass(frozen=True)
class Problem:
    file: str
    line: int | None
    path: str
    message: str
    kind: str = "format"  # "format" (JSON, fields, types) or "range" (a value outside its scale)

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
                yield number, Problem(name, number, "$", f"expected a JSON object per line, got {json_type(value)}")
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
    return Problem(name, number, "$", f"key {found[0]!r} appears twice in one object; give each key once")


def _unsafe_text(name: str, number: int, value) -> Problem | None:
    """The first string (key or value) holding a lone surrogate or a NUL character, by JSON path."""
    for path, text in _strings(value, "$"):
        if "\x00" in text:
            return Problem(name, number, path, "contains a NUL character (\\u0000), which cannot be stored; remove it")
        surrogate = _SURROGATE.search(text)
        if surrogate:
            return Problem(
                name,
                number,
                path,
                f"contains a lone surrogate \\u{ord(surrogate[0]):04x} at character {surrogate.start() + 1}, "
                "which is not Unicode text; write the character itself or its full surrogate pair",
            )
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
        return Problem(
            name, number, "$", f"not UTF-8 (byte 0x{raw[exc.start]:02x} at byte {exc.start + 1}); save as UTF-8"
        )
    text = text.rstrip("\r\n")
    if not text.strip():
        return None
    try:
        return _DECODER.decode(text)
    except ValueError as exc:
        detail = f"{exc.msg} at column {exc.colno}" if isinstance(exc, json.JSONDecodeError) else str(exc)
        return Problem(name, number, "$", f"invalid JSON: {detail}")


def _reject_constant(name: str):
    raise ValueError(f"{name} is not a number in strict JSON")


_DECODER = json.JSONDecoder(parse_constant=_reject_constant)


def describe_value(value) -> str:
    """How an error message shows a wrong value: its JSON type, and the value itself when short."""
    if value is None or isinstance(value, (list, dict)):
        return json_type(value)
    return f"{json_type(value)} {json.dumps(value, ensure_ascii=False)}"


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
            log.add(Problem(str(path), None, "$", "file not found (or not a regular file)"))
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
                log.add(Problem(name, number, "$.id", f"duplicate id {record.id!r} (first at {first})"))
                continue
            first_seen[record.id] = (name, number)
            records.append(record)
    return records


def check_batch_name(name: str, log: ProblemLog, *, limit: int) -> None:
    """A ``--batch`` name must be given and fit the column (``limit`` characters)."""
    if not name.strip():
        log.add(Problem("--batch", None, "name", "the batch name is empty; give one with --batch NAME"))
    elif len(name) > limit:
        log.add(Problem("--batch", None, "name", f"the batch name has {len(name)} characters; at most {limit} fit"))


def report_files_without_records(paths, records, log: ProblemLog, *, what: str) -> None:
    """An empty (or blank) file is a mistake, not an import of nothing."""
    with_records = {record.file for record in records}
    with_problems = {problem.file for problem in log.problems}
    for path in paths:
        if str(path) not in with_records and str(path) not in with_problems:
            log.add(Problem(str(path), None, "$", f"no {what} in this file (it is empty or has only blank lines)"))
