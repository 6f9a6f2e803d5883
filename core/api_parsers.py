"""The API's JSON parser: every body read under the strict rules of ``core.json_strict``.

Depth, duplicate keys, lone surrogates, NUL characters and 64-bit integers are checked before a view
sees the data, and a body larger than ``DATA_UPLOAD_MAX_MEMORY_SIZE`` is refused with 413 before it
is parsed. A refusal names the JSON path (``core.api_errors`` shapes the answer).
"""

from __future__ import annotations

from django.conf import settings
from django.utils.translation import gettext as _
from rest_framework import exceptions
from rest_framework.parsers import BaseParser

from core.json_input import decode_json
from core.jsonl import InputError


class JsonBodyError(exceptions.ParseError):
    """A request body refused by the strict JSON rules; ``problems`` say where."""

    def __init__(self, error: InputError) -> None:
        self.input_error = error
        super().__init__(detail=_("The request body is not accepted JSON."))


class BodyTooLarge(exceptions.APIException):
    status_code = 413
    default_code = "body_too_large"


class StrictJSONParser(BaseParser):
    media_type = "application/json"

    def parse(self, stream, media_type=None, parser_context=None):
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        raw = stream.read() if limit is None else stream.read(limit + 1)
        if limit is not None and len(raw) > limit:
            raise BodyTooLarge(
                _("The request body is larger than %(limit)s bytes (DATA_UPLOAD_MAX_MEMORY_SIZE).") % {"limit": limit}
            )
        try:
            return decode_json(raw, source="body")
        except InputError as exc:
            raise JsonBodyError(exc) from None
