"""Strict JSON: what a JSON text may hold before anything reads it (pure Python, no Django).

One set of rules for every way JSON comes in (an API body, a line of an imported file, a setting):

- strict JSON (no ``NaN``/``Infinity``), strict UTF-8;
- at most ``MAX_DEPTH`` nested arrays/objects (deeper input exhausts parsers and the stack);
- no key given twice in one object (JSON parsers keep the last one silently);
- no lone surrogate (``"\\ud800"``: not Unicode, it cannot be stored or written out) and no NUL
  character (PostgreSQL cannot store it in text), in keys or values;
- integers within 64 bits (a database column's range; larger ones are read as floats or overflow).

``check_text(raw)`` parses and checks one JSON text and returns ``(value, None)``, ``(None, Finding)``
or ``(BLANK, None)`` for a blank text;
a finding names the JSON path and an English template with its parameters (a msgid, marked with
``gettext_noop`` so that ``makemessages`` finds it). ``core.jsonl`` turns findings into problems of a
file's line, ``core.json_input`` into problems of a request body.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

import orjson

MAX_DEPTH = 64
INT_MIN, INT_MAX = -(2**63), 2**63 - 1


def gettext_noop(message: str) -> str:
    """``message`` unchanged: marks a template for the translation catalogue (translated where shown)."""
    return message


@dataclass(frozen=True)
class Finding:
    path: str
    template: str
    params: dict

    @classmethod
    def at(cls, path: str, template: str, **params) -> Finding:
        return cls(path, template, params)


TOO_DEEP = gettext_noop(
    "nested more than %(limit)s levels deep (arrays and objects inside each other); at most %(limit)s are accepted"
)
NUL = gettext_noop("contains a NUL character (\\u0000), which cannot be stored; remove it")
SURROGATE = gettext_noop(
    "contains a lone surrogate %(escape)s at character %(position)s, which is not Unicode text; "
    "write the character itself or its full surrogate pair"
)
DUPLICATE_KEY = gettext_noop("key %(key)s appears twice in one object; give each key once")
INT_RANGE = gettext_noop(
    "the integer %(digits)s digits long is out of range; integers from -2^63 to 2^63-1 are accepted"
)


def check_text(raw: bytes, *, strip_bom: bool = True, plain: bool = False) -> tuple[object, Finding | None]:
    """``raw`` parsed and checked: ``(value, None)``, ``(None, finding)``, or ``(BLANK, None)`` when blank.

    ``plain``: ``raw`` is part of a text that ``is_plain`` found plain (its cheap scans are skipped).
    """
    if strip_bom and raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    try:
        value = orjson.loads(raw)  # fast path; strict JSON and strict UTF-8, at most 1024 levels
    except orjson.JSONDecodeError:
        value, finding = _parse_slowly(raw)  # blank, or the standard library's error to explain
        if finding is not None:
            return None, finding
        if value is BLANK:
            return BLANK, None
    finding = check_value(raw, value, plain=plain)
    return (None, finding) if finding else (value, None)


def is_plain(text: bytes) -> bool:
    """Whether ``text`` (many lines at once) holds no escape of a NUL or surrogate, no whitespace between a key's
    quote and its colon other than none or one space, and no run of 19 digits: then none of its lines does, and
    ``check_value(..., plain=True)`` need not scan each line for them (a few scans of the whole text in C)."""
    return not (
        (b"\\u" in text and _ESCAPES.search(text))
        or b"\t" in text
        or b"\r" in text
        or b'"  ' in text
        or b'"\n' in text
        or b'" \n' in text
        or _NINETEEN_DIGITS in text.translate(_DIGITS_AS_ZERO)
    )


def check_value(raw: bytes, value: object, *, plain: bool = False) -> Finding | None:
    """What the rules above refuse in ``value``, parsed from ``raw`` (the text, for the cheap pre-checks).

    ``plain``: ``raw`` is part of a text that ``is_plain`` found plain.
    """
    kind = type(value)
    if kind is dict or kind is list:
        try:
            keys = _count_keys(value, 1)
        except _TooDeep:
            return Finding.at(_short(_deep_path(value)), TOO_DEEP, limit=MAX_DEPTH)
    else:
        keys = 0
    if plain:  # keys are written as "key": or "key" : and no escape nor long number needs a look
        if raw.count(b'":') + raw.count(b'" :') > keys:
            return _duplicate_key(raw)
        return None
    if _ESCAPES.search(raw):
        finding = _unsafe_text(value)
        if finding:
            return finding
    if _key_like(raw) > keys:
        finding = _duplicate_key(raw)
        if finding:
            return finding
    if _NINETEEN_DIGITS in raw.translate(_DIGITS_AS_ZERO):
        return _big_integer(raw)
    return None


_KEY = re.compile(rb'"\s*:')
# NUL and surrogates can only come in as escapes (raw bytes would not be valid JSON or UTF-8).
_ESCAPES = re.compile(rb"\\u(?:0000|[dD][89a-fA-F])")
_SURROGATE = re.compile("[\ud800-\udfff]")
# 19 digits or more may be beyond 64 bits (orjson reads such integers as floats): checked exactly.
# A run of 19 digits is a run of 19 zeros once every digit is a zero (one C pass; a regex \d{19} is 10x slower).
_DIGITS_AS_ZERO = bytes.maketrans(b"123456789", b"000000000")
_NINETEEN_DIGITS = b"0" * 19


class _TooDeep(Exception):
    pass


def _count_keys(value: dict | list, depth: int) -> int:
    """Keys in ``value`` and every object inside it; ``_TooDeep`` past ``MAX_DEPTH`` (type checks: runs per line)."""
    if depth > MAX_DEPTH:
        raise _TooDeep
    if type(value) is dict:
        n, items = len(value), value.values()
    else:
        n, items = 0, value
    for item in items:
        kind = type(item)
        if kind is dict or kind is list:
            n += _count_keys(item, depth + 1)
    return n


def _deep_path(value) -> str:
    """The JSON path of the first container nested deeper than ``MAX_DEPTH`` (iterative: any depth)."""
    path, depth = "$", 1
    while depth <= MAX_DEPTH:
        if isinstance(value, dict):
            key, value = next((k, v) for k, v in value.items() if _depth_over(v, MAX_DEPTH - depth))
            path += f".{_shown(key)}"
        else:
            index, value = next((i, v) for i, v in enumerate(value) if _depth_over(v, MAX_DEPTH - depth))
            path += f"[{index}]"
        depth += 1
    return path


def _short(path: str, limit: int = 48) -> str:
    """A deep path cut to ``limit`` characters at a segment's end, with "…" (64 × ``[0]`` helps no one)."""
    if len(path) <= limit:
        return path
    cut = max(path.rfind("[", 0, limit), path.rfind(".", 0, limit))
    return path[: cut if cut > 1 else limit] + "…"


def _depth_over(value, allowed: int) -> bool:
    """Whether ``value`` nests containers more than ``allowed`` levels deep."""
    if not isinstance(value, (dict, list)):
        return False
    if allowed <= 0:
        return True
    items = value.values() if isinstance(value, dict) else value
    return any(_depth_over(item, allowed - 1) for item in items)


# Whatever JSON whitespace (space, tab, newline, return) stands between a key's quote and its colon other
# than none or one space starts with one of these: then the counting needs the full pattern.
_UNUSUAL_SPACING = (b'"\t', b'"\n', b'"\r', b'"  ', b'" \t', b'" \n', b'" \r')
_UNUSUAL = re.compile(rb'" ?[\t\n\r]|"  ')  # any of _UNUSUAL_SPACING, in one scan


def _key_like(raw: bytes) -> int:
    """An upper bound of the keys written in ``raw``: every ``"`` followed by ``:``, whatever the spacing."""
    if b"\t" in raw or b"\r" in raw:  # a tab or return is whitespace here (JSON strings escape them)
        unusual = _UNUSUAL.search(raw) is not None
    else:  # the patterns left: cheaper as three scans than as one regex
        unusual = b'"  ' in raw or b'"\n' in raw or b'" \n' in raw
    if unusual:  # unusual spacing: the full pattern
        return len(_KEY.findall(raw))
    return raw.count(b'":') + raw.count(b'" :')


def _duplicate_key(raw: bytes) -> Finding | None:
    """A key given twice in one object, with the path of that object."""
    found: list[str] = []

    def pairs(items):
        seen: dict = {}
        for key, item in items:
            if key in seen and not found:
                found.append(key)
            seen[key] = item
        return seen

    json.loads(_text(raw), object_pairs_hook=pairs)
    if not found:
        return None
    return Finding.at("$", DUPLICATE_KEY, key=repr(found[0]))


def _unsafe_text(value) -> Finding | None:
    """The first string (key or value) holding a lone surrogate or a NUL character, by JSON path."""
    for path, text in _strings(value, "$"):
        if "\x00" in text:
            return Finding.at(path, NUL)
        surrogate = _SURROGATE.search(text)
        if surrogate:
            escape = f"\\u{ord(surrogate[0]):04x}"
            return Finding.at(path, SURROGATE, escape=escape, position=surrogate.start() + 1)
    return None


def _strings(value, path: str):
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield f"{path}.{_shown(key)}", key
            yield from _strings(item, f"{path}.{_shown(key)}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _strings(item, f"{path}[{i}]")


def _big_integer(raw: bytes) -> Finding | None:
    """The first integer outside 64 bits, read exactly by the standard library (orjson makes it a float)."""
    found: list[int] = []

    def integer(text: str) -> int:
        number = int(text)
        if not found and not INT_MIN <= number <= INT_MAX:
            found.append(len(text.lstrip("-")))
        return number

    value = json.loads(_text(raw), parse_int=integer)
    if not found:
        return None
    return Finding.at(_big_integer_path(value, "$") or "$", INT_RANGE, digits=found[0])


def _big_integer_path(value, path: str) -> str | None:
    if isinstance(value, int) and not isinstance(value, bool):
        return path if not INT_MIN <= value <= INT_MAX else None
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        found = _big_integer_path(item, f"{path}.{_shown(key)}" if isinstance(value, dict) else f"{path}[{key}]")
        if found:
            return found
    return None


# What a key may hold that a path cannot show: control characters (NUL), and lone surrogates, which no
# UTF-8 answer, log line or terminal can encode (an error naming such a key would itself fail with a 500).
_UNSHOWABLE = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")


def _shown(key: str) -> str:
    """``key`` as a JSON path writes it: control characters and lone surrogates as ``\\uXXXX`` escapes."""
    return _UNSHOWABLE.sub(lambda match: f"\\u{ord(match[0]):04x}", key)


def _text(raw: bytes) -> str:
    return raw.decode("utf-8-sig")


BLANK = object()  # what ``check_text`` returns for a blank text


def _parse_slowly(raw: bytes) -> tuple[object, Finding | None]:
    """The standard library's reading of a text orjson refused: ``BLANK``, a value, or a finding."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        template = gettext_noop("not UTF-8 (byte %(byte)s at byte %(position)s); save as UTF-8")
        return None, Finding.at("$", template, byte=f"0x{raw[exc.start]:02x}", position=exc.start + 1)
    text = text.rstrip("\r\n")
    if not text.strip():
        return BLANK, None
    deep = _too_deep_at(text)
    if deep is not None:  # before the standard library, which would exhaust the stack
        path, line, column = deep
        template = gettext_noop(
            "nested more than %(limit)s levels deep at line %(lineno)s column %(column)s; "
            "at most %(limit)s levels of arrays and objects are accepted"
        )
        return None, Finding.at(_short(path), template, limit=MAX_DEPTH, lineno=line, column=column)
    try:
        return _DECODER.decode(text), None
    except ValueError as exc:
        if isinstance(exc, json.JSONDecodeError):
            template = gettext_noop("invalid JSON: %(detail_text)s at column %(column)s")
            if exc.lineno > 1:
                template = gettext_noop("invalid JSON: %(detail_text)s at line %(lineno)s column %(column)s")
            return None, Finding.at("$", template, detail_text=exc.msg, lineno=exc.lineno, column=exc.colno)
        if isinstance(exc, _NotStrictJson):
            template = gettext_noop("invalid JSON: %(constant)s is not a number in strict JSON")
            return None, Finding.at("$", template, constant=exc.constant)
        return None, Finding.at("$", gettext_noop("invalid JSON: %(detail)s"), detail=str(exc))
    except RecursionError:  # pragma: no cover - _too_deep_at catches this first
        return None, Finding.at("$", TOO_DEEP, limit=MAX_DEPTH)


def _too_deep_at(text: str) -> tuple[str, int, int] | None:
    """Where ``text`` opens an array or object deeper than ``MAX_DEPTH``: (JSON path, line, column), or None.

    A scan of the text that skips strings; it stops at the first container too deep, so a deeply
    nested input costs only the characters before it.
    """
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return None
    stack: list[list] = []  # [kind, key or index, expecting a key]
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            end = _string_end(text, i)
            if end < 0:
                return None
            top = stack[-1] if stack else None
            if top is not None and top[0] == "o" and top[2]:
                top[1], top[2] = text[i + 1 : end], False
            i = end + 1
            continue
        if c == "[" or c == "{":
            stack.append(["a", 0, False] if c == "[" else ["o", "", True])
            if len(stack) > MAX_DEPTH:
                path = "$" + "".join(f"[{key}]" if kind == "a" else f".{key}" for kind, key, _ in stack[:-1])
                line = text.count("\n", 0, i) + 1
                return path, line, i - (text.rfind("\n", 0, i) + 1) + 1
        elif c == "]" or c == "}":
            if stack:
                stack.pop()
        elif c == "," and stack:
            top = stack[-1]
            if top[0] == "a":
                top[1] += 1
            else:
                top[2] = True
        i += 1
    return None


def _string_end(text: str, start: int) -> int:
    """The index of the quote closing the string opened at ``start`` (-1 if it never closes)."""
    j = start + 1
    while True:
        j = text.find('"', j)
        if j < 0:
            return -1
        backslashes = 0
        k = j - 1
        while text[k] == "\\":
            backslashes += 1
            k -= 1
        if backslashes % 2 == 0:
            return j
        j += 1


class _NotStrictJson(ValueError):
    def __init__(self, constant: str) -> None:
        super().__init__(f"{constant} is not a number in strict JSON")
        self.constant = constant


def _reject_constant(name: str):
    raise _NotStrictJson(name)


_DECODER = json.JSONDecoder(parse_constant=_reject_constant)
