"""Query parameters of the annotation API, read strictly (``core.api_query``): a bad value is a 400 naming it.

A filter that silently matched nothing because of a typo (``?batch=seven``) would read as "no data"; so a
malformed number, date or choice, an empty value and a parameter given twice are refused with what would be
accepted, and for researchers a batch or username that does not exist is a 404 naming the parameter.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from rest_framework import status

from annotation.api.errors import ApiError, invalid
from annotation.models import Batch
from core import api_query
from core.query_params import ID_MAX

BATCH_PARAM = api_query.Integer(name="batch", minimum=1, maximum=ID_MAX, description="only this batch (its id)")
ANNOTATOR_PARAM = api_query.Text(name="annotator", max_length=150, description="only this annotator (username)")
SINCE_PARAM = api_query.Moment(
    name="since",
    description="only those created or changed at or after this date (midnight, site time zone) or RFC 3339 time",
)


def read(params, *declared: api_query.QueryParam) -> dict:
    """``core.api_query.read_query`` with its refusal as this API's 400."""
    try:
        return api_query.read_query(params, *declared)
    except api_query.QueryRefused as exc:
        raise invalid(exc.name, exc.translated()) from None


def read_one(params, param: api_query.QueryParam):
    return read(params, param)[param.name]


def whole_number(params, name: str) -> int | None:
    return read_one(params, api_query.Integer(name=name, minimum=1 if name == "batch" else 0))


def choice(params, name: str, choices) -> str | None:
    return read_one(params, api_query.Choice(name=name, choices=tuple(choices)))


def moment(params, name: str):
    return read_one(params, api_query.Moment(name=name))


def form_flag(data, name: str) -> bool:
    """A form field's ``true`` or ``false`` (a JSON boolean's spelling), given at most once; false when left out."""
    return read_one(data, api_query.Flag(name=name, spellings=api_query.BOOLEAN_WORDS))


def missing(name: str, message: str) -> ApiError:
    """A 404 for an object the query names that does not exist."""
    return ApiError(message, code=status.HTTP_404_NOT_FOUND, field=name)


def check_batch(pk: int | None, name: str = "batch") -> int | None:
    """``pk`` when a batch has it (or None); a 404 naming the parameter when none has."""
    if pk is not None and not Batch.objects.filter(pk=pk).exists():
        raise missing(name, f"no batch with id {pk}")
    return pk


def check_username(given: str | None, name: str = "annotator") -> str | None:
    if given is not None and not get_user_model().objects.filter(username=given).exists():
        raise missing(name, f"no user named {given!r}")
    return given


def batch_id(params, name: str = "batch") -> int | None:
    """A batch id that exists (researchers' filters); 404 naming the parameter when none has it."""
    return check_batch(read_one(params, api_query.Integer(name=name, minimum=1, maximum=ID_MAX)), name)


def username(params, name: str = "annotator", *, check: bool = True) -> str | None:
    given = read_one(params, api_query.Text(name=name, max_length=150))
    return check_username(given, name) if check else given


BATCH = BATCH_PARAM.parameter()
ANNOTATOR = ANNOTATOR_PARAM.parameter()
SINCE = SINCE_PARAM.parameter()
