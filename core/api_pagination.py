"""The API's pages.

``KeysetPagination`` (the annotation API's lists): keyset ("cursor") pages, ``{next, previous, results}``.
A page is the ``page_size`` rows after (or before) the position its cursor holds, found through the
ordering's index: ``WHERE (updated_at, id) < (:t, :id) ORDER BY updated_at DESC, id DESC LIMIT n``,
so page 2,000 costs what page 1 costs, and no ``COUNT(*)`` runs over the filtered rows. The cursor is
opaque: the position's values, signed (``django.core.signing``) for the model and ordering it was made
for; anything else is a 400 naming ``cursor``. The old ``?page=N`` is a 400 saying to follow ``next``.

``StrictPageNumberPagination`` (the Director's verdicts): page numbers; a page size outside its range is a 400
naming the range, never silently capped. DRF's ``PageNumberPagination`` quietly falls back to the default size
for ``0`` or ``abc`` and caps a 30-digit size at the maximum: a script asking for more than it gets would miss
rows without knowing. A page after the last is a 404 naming the last one.

Both read their parameters through ``core.api_query`` (an empty or repeated ``page_size`` or ``cursor`` is a 400)
and document them from the same declarations.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from uuid import UUID

from django.core import signing
from django.core.exceptions import FieldDoesNotExist, ValidationError
from django.db.models import F
from django.db.models.fields.tuple_lookups import TupleGreaterThan, TupleLessThan
from django.utils.translation import gettext, gettext_noop
from rest_framework import exceptions
from rest_framework.pagination import CursorPagination, PageNumberPagination
from rest_framework.response import Response
from rest_framework.utils.urls import remove_query_param, replace_query_param

from core import api_query

NEXT, PREVIOUS = "n", "p"
PAGE_NUMBERS_GONE = (
    "page numbers were replaced by cursors: leave out page, and follow the next link of each answer "
    "(?cursor=...) until it is null"
)
BAD_CURSOR = "not a cursor this list gave out: use the next or previous link of an answer as it is, or leave it out"


MAX_PAGE = 10**9
NO_SUCH_PAGE = gettext_noop("no page %(page)s: the last page is %(last)s")


def read(request, *params: api_query.QueryParam) -> dict:
    """``core.api_query.read_query`` with its refusal as a validation error naming the parameter."""
    try:
        return api_query.read_query(request.query_params, *params)
    except api_query.QueryRefused as exc:
        raise exceptions.ValidationError({exc.name: [exc.translated()]}) from None


class StrictPageNumberPagination(PageNumberPagination):
    page_size = 50
    max_page_size = 500
    page_size_query_param = "page_size"

    def query_params(self) -> tuple[api_query.QueryParam, ...]:
        return (
            api_query.Integer(name=self.page_query_param, minimum=1, maximum=MAX_PAGE, default=1,
                              description="the page, from 1"),
            api_query.Integer(name=self.page_size_query_param, minimum=1, maximum=self.max_page_size,
                              default=self.page_size,
                              description=f"items per page, from 1 to {self.max_page_size} (default {self.page_size})"),
        )  # fmt: skip

    def get_schema_operation_parameters(self, view):
        return [param.openapi() for param in self.query_params()]

    def paginate_queryset(self, queryset, request, view=None):
        values = read(request, *self.query_params())
        self.request = request
        paginator = self.django_paginator_class(queryset, values[self.page_size_query_param])
        number = values[self.page_query_param]
        if number > 1 and number > paginator.num_pages:
            raise exceptions.NotFound(gettext(NO_SUCH_PAGE) % {"page": number, "last": paginator.num_pages})
        self.page = paginator.page(min(number, paginator.num_pages))
        return list(self.page)


class KeysetPagination(CursorPagination):
    """Keyset pages in the view's ``ordering`` (field names, all ascending or all descending, the last one unique:
    ``("-updated_at", "-id")``); rows may be model instances or ``values()`` dicts holding those fields."""

    page_size = 50
    max_page_size = 1000
    page_size_query_param = "page_size"
    cursor_query_param = "cursor"
    ordering = ("-id",)
    max_cursor_length = 1000

    def query_params(self) -> tuple[api_query.QueryParam, ...]:
        size = type(self).page_size
        return (
            api_query.Text(name=self.cursor_query_param, max_length=self.max_cursor_length,
                           description="where the page starts: the next or previous link of an answer holds it "
                           "(opaque; leave it out for the first page)"),
            api_query.Integer(name=self.page_size_query_param, minimum=1, maximum=self.max_page_size, default=size,
                              description=f"items per page, from 1 to {self.max_page_size} (default {size})"),
        )  # fmt: skip

    def get_schema_operation_parameters(self, view):
        return [param.openapi() for param in self.query_params()]

    def get_paginated_response_schema(self, schema):
        link = "/api/v1/annotation/annotations/?batch=3&page_size=1000&cursor=WyJuIixbIjIwMjUtMDEtMDZUMDA6MTA6MjBa"
        described = super().get_paginated_response_schema(schema)
        described["required"] = ["next", "previous", "results"]
        described["properties"]["next"].update(
            example=f"https://jaiml.example.org{link}",
            description="the next page (null on the last): follow it as it is until it is null",
        )
        described["properties"]["previous"].update(example=None, description="the page before (null on the first)")
        return described

    # --- the page ---------------------------------------------------------------------------------------------

    def paginate_queryset(self, queryset, request, view=None):
        if "page" in request.query_params:
            raise exceptions.ValidationError({"page": [PAGE_NUMBERS_GONE]})
        values = read(request, *self.query_params())
        self.request = request
        self.page_size = values[self.page_size_query_param]
        self.base_url = request.build_absolute_uri()
        self.fields, self.descending = _ordering(getattr(view, "ordering", None) or self.ordering)
        self.salt = f"{__name__}:{queryset.model._meta.label}:{','.join(self.fields)}:{self.descending}"
        direction, position = self._decode(values[self.cursor_query_param], queryset.model)
        backwards = direction == PREVIOUS
        descending = self.descending != backwards  # read the other way to go back
        names = [f"-{name}" if descending else name for name in self.fields]
        rows = queryset.order_by(*names)
        if position is not None:
            lookup = TupleLessThan if descending else TupleGreaterThan
            rows = rows.filter(lookup(tuple(F(name) for name in self.fields), tuple(position)))
        page = list(rows[: self.page_size + 1])
        more = len(page) > self.page_size
        del page[self.page_size :]
        if backwards:
            page.reverse()
        first = self._values(page[0]) if page else position
        last = self._values(page[-1]) if page else position
        if backwards:  # came from a later page: it is still there
            self.next_position, self.previous_position = last, first if more else None
        else:  # the first page has nothing before it; a page after a cursor has that cursor's row before it
            self.next_position = last if more else None
            self.previous_position = first if position is not None else None
        return page

    def get_paginated_response(self, data):
        return Response({"next": self.get_next_link(), "previous": self.get_previous_link(), "results": data})

    def get_next_link(self):
        return self._link(NEXT, self.next_position)

    def get_previous_link(self):
        return self._link(PREVIOUS, self.previous_position)

    # --- the cursor --------------------------------------------------------------------------------------------

    def _values(self, row) -> list:
        if isinstance(row, dict):
            return [row[name] for name in self.fields]
        return [getattr(row, name) for name in self.fields]

    def _link(self, direction: str, position: list | None) -> str | None:
        if position is None:
            return None
        token = signing.dumps([direction, [_plain(value) for value in position]], salt=self.salt, compress=True)
        return replace_query_param(remove_query_param(self.base_url, "page"), self.cursor_query_param, token)

    def _decode(self, token: str | None, model) -> tuple[str, list | None]:
        if token is None:
            return NEXT, None
        try:
            direction, raw = signing.loads(token, salt=self.salt)
            if direction not in (NEXT, PREVIOUS) or not isinstance(raw, list) or len(raw) != len(self.fields):
                raise ValueError(direction)
            return direction, [
                _field(model, name).to_python(value) for name, value in zip(self.fields, raw, strict=True)
            ]
        except (signing.BadSignature, ValueError, TypeError, ValidationError, OverflowError):
            raise exceptions.ValidationError({self.cursor_query_param: [BAD_CURSOR]}) from None


def _ordering(ordering: str | Sequence[str]) -> tuple[tuple[str, ...], bool]:
    names = (ordering,) if isinstance(ordering, str) else tuple(ordering)
    directions = {name.startswith("-") for name in names}
    if not names or len(directions) != 1:
        raise ValueError(f"a keyset ordering runs one way, its last field unique: {names!r}")
    return tuple(name.lstrip("-") for name in names), directions.pop()


def _field(model, name: str):
    try:
        return model._meta.get_field(name)
    except FieldDoesNotExist:  # "pk"
        return model._meta.pk


def _plain(value):
    """A position's value as JSON holds it (the model field's ``to_python`` reads it back)."""
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, UUID):
        return str(value)
    return value
