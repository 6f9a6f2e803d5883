"""Files sent by the API: streamed attachments whatever the client accepts; a refusal stays the API's JSON.

A script asking for ``Accept: text/csv`` would get DRF's 406 from content negotiation (the API renders
JSON only): ``AnyAccept`` sends the file anyway, and an error (401, 403, 404, 400) as JSON.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.http import StreamingHttpResponse
from django.utils.http import content_disposition_header
from rest_framework.negotiation import BaseContentNegotiation


class AnyAccept(BaseContentNegotiation):
    def select_parser(self, request, parsers):
        return parsers[0] if parsers else None

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type


def attachment(chunks: Iterable[str | bytes], content_type: str, filename: str) -> StreamingHttpResponse:
    """``chunks`` streamed as a download named ``filename`` (RFC 6266 header, non-ASCII names included)."""
    response = StreamingHttpResponse(chunks, content_type=content_type)
    response["Content-Disposition"] = content_disposition_header(as_attachment=True, filename=filename)
    return response
