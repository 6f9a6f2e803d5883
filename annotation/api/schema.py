"""Shared pieces of the OpenAPI description: the one error body and the refusals (``core.api_schema``)."""

from __future__ import annotations

from core.api_schema import ErrorSerializer, ProblemSerializer, error_response, error_responses

__all__ = ["ErrorSerializer", "ProblemSerializer", "error_response", "error_responses"]
