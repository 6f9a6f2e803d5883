"""URL converters: ``<id:name>`` is a database id, 1 to 18 digits (always within a 64-bit column).

Django's ``<id:>`` takes any number of digits, and a 25-digit id then overflows the database
(``OverflowError`` on SQLite, out of range on PostgreSQL): a 500. Longer numbers match no URL: 404.
"""

from __future__ import annotations

from django.urls import register_converter


class IdConverter:
    regex = "[0-9]{1,18}"

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value) -> str:
        return str(int(value))


register_converter(IdConverter, "id")
