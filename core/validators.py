"""Django validators for the names rule of ``core.names``: forms, serializers and admin share it."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.utils.deconstruct import deconstructible
from django.utils.translation import gettext

from core.names import batch_name_problem


@deconstructible
class BatchNameValidator:
    """A batch name per ``core.names``; ``digits_allowed=False`` where digits would read as an id."""

    def __init__(self, *, limit: int = 100, digits_allowed: bool = True) -> None:
        self.limit = limit
        self.digits_allowed = digits_allowed

    def __call__(self, value) -> None:
        problem = batch_name_problem(value, limit=self.limit, digits_allowed=self.digits_allowed)
        if problem is not None:
            template, params = problem
            raise ValidationError(gettext(template) % params, code="batch_name")

    def __eq__(self, other) -> bool:
        return isinstance(other, BatchNameValidator) and (self.limit, self.digits_allowed) == (
            other.limit,
            other.digits_allowed,
        )
