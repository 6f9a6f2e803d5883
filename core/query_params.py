"""Numbers read from a URL's query string or a form field: one parser for every page, API and filter.

``parse_id("12")`` is 12; anything that is not 1 to 18 ASCII digits is None (a database id always
fits a 64-bit column, so a 30-digit "id" is no id rather than an overflow). ``whole_number`` reads a
bounded integer and raises ``QueryParamError`` naming the parameter and the accepted range (its
``message`` in English, ``translated(gettext)`` in the reader's language). ``required_id`` reads an id
a form always sends (given once, 1 or more). Pure Python: no Django.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

ID_MAX = 10**18 - 1
_ID = re.compile(r"[0-9]{1,18}")
INTEGER = re.compile(r"[+-]?[0-9]{1,18}")  # a whole number that fits a 64-bit column, optionally signed


def gettext_noop(message: str) -> str:
    return message


RANGE = gettext_noop("expected a whole number from %(minimum)s to %(maximum)s, got %(value)s")


def shown(text: str, limit: int = 40) -> str:
    """A refused value as a message shows it: quoted, cut at ``limit`` characters."""
    return repr(text[:limit] + ("…" if len(text) > limit else ""))


class QueryParamError(ValueError):
    """A parameter refused: ``name``, an English ``template`` (a msgid) and its ``params``."""

    def __init__(self, name: str, template: str, **params) -> None:
        self.name = name
        self.template = template
        self.params = params
        self.message = template % params if params else template
        super().__init__(f"{name}: {self.message}")

    def translated(self, gettext) -> str:
        text = gettext(self.template)
        return text % self.params if self.params else text


def parse_id(text: object) -> int | None:
    """``text`` as a database id, or None when it cannot be one (not digits, or too long for a column)."""
    if isinstance(text, int) and not isinstance(text, bool):
        return text if 0 <= text <= ID_MAX else None
    if not isinstance(text, str) or not _ID.fullmatch(text.strip()):
        return None
    return int(text.strip())


def whole_number(
    params: Mapping[str, str], name: str, *, default: int | None = None, minimum: int = 0, maximum: int = ID_MAX
) -> int | None:
    """``params[name]`` as an integer from ``minimum`` to ``maximum``; ``default`` when absent or blank."""
    raw = params.get(name)
    if raw is None or not str(raw).strip():
        return default
    text = str(raw).strip()
    if not INTEGER.fullmatch(text) or not minimum <= int(text) <= maximum:
        raise QueryParamError(name, RANGE, minimum=minimum, maximum=maximum, value=shown(text))
    return int(text)


MISSING = gettext_noop("missing: expected a whole number from %(minimum)s to %(maximum)s")
REPEATED = gettext_noop("given %(count)s times: give it once")


def required_id(params: Mapping[str, str], name: str) -> int:
    """``params[name]`` as a database id (1 to ``ID_MAX``), given once; ``QueryParamError`` otherwise.

    For a field a form always sends (a hidden ``batch``): absent, blank, not digits, 0, too long for a
    column, or given twice is a request the page never makes, refused with what would be accepted.
    """
    getlist = getattr(params, "getlist", None)
    values = getlist(name) if getlist is not None else ([params[name]] if name in params else [])
    if len(values) > 1:
        raise QueryParamError(name, REPEATED, count=len(values))
    if not values or not str(values[0]).strip():
        raise QueryParamError(name, MISSING, minimum=1, maximum=ID_MAX)
    return whole_number({name: values[0]}, name, minimum=1, maximum=ID_MAX)
