"""Request bodies are read strictly: a field the endpoint does not take, or a value of another JSON type, is refused
(``core.api_fields.StrictInputMixin``), not ignored or coerced."""

from __future__ import annotations

from core.api_fields import StrictInputMixin

StrictFieldsMixin = StrictInputMixin
