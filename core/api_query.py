"""Query parameters of the API, declared once: documented in the OpenAPI schema and read by the same declaration.

A view lists its parameters (``Integer``, ``Text``, ``Choice``, ``Flag``, ``Moment``, ``Pattern``); ``parameters()``
gives them to ``extend_schema`` and ``read_query`` reads them, so the schema and the server cannot disagree on a
bound, a length or a choice. The rules are the schema's reading of a query string, strictly:

- a parameter left out takes its default (None when it has none);
- a parameter given empty (``?batch=``) or more than once (``?batch=1&batch=2``) is refused: none of them is a list,
  and an empty value is no value of an integer, a choice or a name;
- an integer is ASCII digits (an optional sign), within its range; a flag is ``true``/``false`` (also ``1``/``0``,
  any case); a choice one of its values exactly; a text at most ``max_length`` characters, without NUL; a moment a date
  (``2025-01-31``, midnight in the site's time zone) or an RFC 3339 date-time with its offset
  (``2025-01-31T09:00:00+09:00``, ``…Z``).

A refusal is ``QueryRefused`` naming the parameter; its message is translated when read (``translated()``).
Parameters a view does not declare are ignored, as the OpenAPI reading of a query string allows.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, time

from django.utils import timezone
from django.utils.translation import gettext, gettext_noop
from drf_spectacular.utils import OpenApiParameter

from core.query_params import ID_MAX, INTEGER, RANGE, QueryParamError, shown

REPEATED = gettext_noop("given %(count)s times; give it once")
EMPTY = gettext_noop("given empty; give a value or leave the parameter out")
ONE_OF = gettext_noop("expected one of %(choices)s, got %(value)s")
TRUE_OR_FALSE = gettext_noop("expected true or false, got %(value)s")
TOO_LONG = gettext_noop("at most %(limit)s characters")
NUL = gettext_noop("holds a NUL character (U+0000), which no name or text here holds")
MOMENT = gettext_noop(
    "expected a date (2025-01-31) or an RFC 3339 time with its offset (2025-01-31T09:00:00+09:00, or …Z; "
    "write + as %%2B in a URL), got %(value)s"
)

_MOMENT = re.compile(
    r"(?P<date>[0-9]{4}-[0-9]{2}-[0-9]{2})"
    r"(?:T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]{1,9})?(?:Z|[+-][0-9]{2}:[0-9]{2}))?"
)


class QueryRefused(QueryParamError):
    """A query parameter refused: ``name``, an English ``template`` and its ``params`` (translated when read)."""

    def translated(self, gettext=gettext) -> str:
        return super().translated(gettext)


@dataclass(frozen=True, kw_only=True)
class QueryParam:
    name: str
    description: str = ""
    default: object = None

    def schema(self) -> dict:
        raise NotImplementedError

    def parse(self, text: str) -> object:
        return text

    def refuse(self, template: str, **params) -> QueryRefused:
        return QueryRefused(self.name, template, **params)

    def full_schema(self) -> dict:
        schema = self.schema()
        return schema if self.default is None else {**schema, "default": self.default}

    def parameter(self) -> OpenApiParameter:
        """For ``extend_schema(parameters=...)``."""
        return OpenApiParameter(
            self.name, type=self.full_schema(), location=OpenApiParameter.QUERY, description=self.description
        )

    def openapi(self) -> dict:
        """The OpenAPI parameter object (for a paginator's ``get_schema_operation_parameters``)."""
        found = {"name": self.name, "in": "query", "required": False, "schema": self.full_schema()}
        return {**found, "description": self.description} if self.description else found


@dataclass(frozen=True, kw_only=True)
class Integer(QueryParam):
    minimum: int = 0
    maximum: int = ID_MAX

    def schema(self) -> dict:
        return {"type": "integer", "minimum": self.minimum, "maximum": self.maximum}

    def parse(self, text: str) -> int:
        if not INTEGER.fullmatch(text) or not self.minimum <= int(text) <= self.maximum:
            raise self.refuse(RANGE, minimum=self.minimum, maximum=self.maximum, value=shown(text))
        return int(text)


@dataclass(frozen=True, kw_only=True)
class Text(QueryParam):
    max_length: int = 200

    def schema(self) -> dict:
        return {"type": "string", "minLength": 1, "maxLength": self.max_length, "pattern": "^[^\\x00]*$"}

    def parse(self, text: str) -> str:
        if len(text) > self.max_length:
            raise self.refuse(TOO_LONG, limit=self.max_length)
        if "\x00" in text:  # PostgreSQL cannot compare a text holding one
            raise self.refuse(NUL)
        return text


@dataclass(frozen=True, kw_only=True)
class Choice(QueryParam):
    choices: tuple[str, ...] = ()

    def schema(self) -> dict:
        return {"type": "string", "enum": list(self.choices)}

    def parse(self, text: str) -> str:
        if text not in self.choices:
            raise self.refuse(ONE_OF, choices=", ".join(self.choices), value=shown(text))
        return text


BOOLEAN_WORDS = {"true": True, "false": False}  # a form field's boolean: as JSON spells it
BOOLEAN_SPELLINGS = {**BOOLEAN_WORDS, "1": True, "0": False}  # a query string's: also 1 and 0, in any case


@dataclass(frozen=True, kw_only=True)
class Flag(QueryParam):
    default: bool = False
    spellings: dict = field(default_factory=lambda: BOOLEAN_SPELLINGS, compare=False)

    def schema(self) -> dict:
        return {"type": "boolean"}

    def parse(self, text: str) -> bool:
        value = self.spellings.get(text.lower() if self.spellings is BOOLEAN_SPELLINGS else text)
        if value is None:
            raise self.refuse(TRUE_OR_FALSE, value=shown(text))
        return value


@dataclass(frozen=True, kw_only=True)
class Moment(QueryParam):
    """A date (midnight in the site's time zone) or an RFC 3339 date-time; an aware ``datetime``."""

    def schema(self) -> dict:
        return {"anyOf": [{"type": "string", "format": "date"}, {"type": "string", "format": "date-time"}]}

    def parse(self, text: str) -> datetime:
        found = _MOMENT.fullmatch(text)
        try:
            if found is None:
                raise ValueError(text)
            moment = datetime.fromisoformat(text)
            if found.group(0) == found.group("date"):  # a date: its midnight here
                moment = timezone.make_aware(datetime.combine(moment.date(), time.min))
        except ValueError:
            raise self.refuse(MOMENT, value=shown(text)) from None
        try:
            return moment.astimezone(UTC)  # as the database compares it
        except OverflowError:  # before 0001-01-01 or after 9999-12-31 in UTC: the first or last moment there is
            return (datetime.min if moment.year == 1 else datetime.max).replace(tzinfo=UTC)


@dataclass(frozen=True, kw_only=True)
class Pattern(QueryParam):
    """A text of a given form (``pattern``, anchored), read by ``reader`` (which raises ``ValueError``)."""

    pattern: str = ""
    reader: Callable[[str], object] = field(default=str, compare=False)
    message: str = ""

    def schema(self) -> dict:
        return {"type": "string", "pattern": f"^(?:{self.pattern})$"}

    def parse(self, text: str) -> object:
        if not re.fullmatch(self.pattern, text):
            raise self.refuse(self.message, value=shown(text))
        try:
            return self.reader(text)
        except ValueError:
            raise self.refuse(self.message, value=shown(text)) from None


def parameters(*declared: QueryParam) -> list[OpenApiParameter]:
    return [param.parameter() for param in declared]


def read_query(params, *declared: QueryParam) -> dict[str, object]:
    """``{name: value}`` of the ``declared`` parameters in ``params`` (a ``QueryDict``); ``QueryRefused`` names the
    first one refused."""
    values = {}
    for param in declared:
        given = params.getlist(param.name)
        if not given:
            values[param.name] = param.default
            continue
        if len(given) > 1:
            raise param.refuse(REPEATED, count=len(given))
        if given[0] == "":
            raise param.refuse(EMPTY)
        values[param.name] = param.parse(given[0])
    return values
