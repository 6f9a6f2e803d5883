"""Request bodies are read strictly: a field the endpoint does not take is refused, not ignored."""

from __future__ import annotations

from collections.abc import Mapping

from rest_framework import serializers


class StrictFieldsMixin:
    """For serializers: an unknown or read-only field in the body is a 400 naming it and the accepted ones.

    A misspelt setting (``annotation_per_item``) silently ignored would leave a script believing it
    changed something.
    """

    def to_internal_value(self, data):
        if isinstance(data, Mapping):
            writable = sorted(name for name, field in self.fields.items() if not field.read_only)
            unknown = [key for key in data if key not in writable]
            if unknown:
                message = f"not a field this accepts; accepted: {', '.join(writable)}"
                raise serializers.ValidationError({key: [message] for key in unknown})
        return super().to_internal_value(data)
