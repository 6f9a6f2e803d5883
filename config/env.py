"""Typed readers for environment variables.

Pure Python (no Django import) so settings can use them before Django is set up.
Each reader raises ``ImproperlyConfiguredError`` naming the variable and what is accepted.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from celery.schedules import crontab

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


class ImproperlyConfiguredError(ValueError):
    """An environment variable holds a value the settings cannot use."""


def env_str(name: str, default: str = "", *, environ: Mapping[str, str] | None = None) -> str:
    environ = os.environ if environ is None else environ
    return environ.get(name, default)


def env_bool(name: str, default: bool, *, environ: Mapping[str, str] | None = None) -> bool:
    """An unset or empty variable means ``default``."""
    environ = os.environ if environ is None else environ
    value = environ.get(name, "").strip().lower()
    if not value:
        return default
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfiguredError(
        f"{name}={environ[name]!r} is not a boolean; use one of 1/0, true/false, yes/no, on/off"
    )


def env_int(
    name: str,
    default: int,
    *,
    minimum: int | None = None,
    maximum: int | None = None,
    environ: Mapping[str, str] | None = None,
) -> int:
    environ = os.environ if environ is None else environ
    raw = environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ImproperlyConfiguredError(f"{name}={raw!r} is not an integer") from None
    if minimum is not None and value < minimum:
        raise ImproperlyConfiguredError(f"{name}={value} must be at least {minimum}")
    if maximum is not None and value > maximum:
        raise ImproperlyConfiguredError(f"{name}={value} must be at most {maximum}")
    return value


def env_float(
    name: str, default: float, *, minimum: float | None = None, environ: Mapping[str, str] | None = None
) -> float:
    environ = os.environ if environ is None else environ
    raw = environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ImproperlyConfiguredError(f"{name}={raw!r} is not a number") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise ImproperlyConfiguredError(f"{name}={raw!r} must be a finite number")
    if minimum is not None and value < minimum:
        raise ImproperlyConfiguredError(f"{name}={value} must be at least {minimum}")
    return value


def env_list(name: str, default: list[str], *, environ: Mapping[str, str] | None = None) -> list[str]:
    """A comma-separated list; blanks around items and empty items are dropped."""
    environ = os.environ if environ is None else environ
    if name not in environ:
        return list(default)
    return [item.strip() for item in environ[name].split(",") if item.strip()]


def env_json_object(name: str, default: dict, *, environ: Mapping[str, str] | None = None) -> dict:
    """A JSON object from the environment (e.g. a price table); the error names the variable and the position."""
    import json

    environ = os.environ if environ is None else environ
    raw = environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise ImproperlyConfiguredError(f"{name}: not JSON ({exc.msg} at column {exc.colno})") from None
    if not isinstance(value, dict):
        raise ImproperlyConfiguredError(f"{name} must be a JSON object")
    return value


def env_choice(name: str, default: str, choices: tuple[str, ...], *, environ: Mapping[str, str] | None = None) -> str:
    environ = os.environ if environ is None else environ
    raw = environ.get(name, "").strip() or default
    if raw not in choices:
        raise ImproperlyConfiguredError(f"{name}={raw!r}: accepted values are {', '.join(choices)}")
    return raw


_CRONTAB_FIELDS = (
    ("minute", "minute", "0-59"),
    ("hour", "hour", "0-23"),
    ("day_of_month", "day of month", "1-31"),
    ("month_of_year", "month", "1-12"),
    ("day_of_week", "day of week", "0-6 with 0 = Sunday, or sun..sat"),
)
_CRONTAB_ACCEPTED = (
    "accepted: 'off', or five crontab fields 'minute hour day-of-month month day-of-week' in the site time zone, "
    "each *, a number, a list (1,15), a range (1-5) or a step (*/15), e.g. '0 6 * * 1' = Mondays at 06:00"
)


def env_crontab(name: str, default: str, *, environ: Mapping[str, str] | None = None) -> crontab | None:
    """A Celery ``crontab`` from five cron fields, or None for ``off``; unset or empty means ``default``.

    Celery's own parser checks each field, one at a time, so the error names the field that is wrong.
    """
    from celery.schedules import ParseException, crontab

    environ = os.environ if environ is None else environ
    raw = environ.get(name, "").strip() or default
    if raw.lower() == "off":
        return None
    values = raw.split()
    if len(values) != len(_CRONTAB_FIELDS):
        raise ImproperlyConfiguredError(
            f"{name}={raw!r} has {len(values)} field(s), not {len(_CRONTAB_FIELDS)}; {_CRONTAB_ACCEPTED}"
        )
    for (keyword, label, allowed), value in zip(_CRONTAB_FIELDS, values, strict=True):
        try:
            crontab(**{keyword: value})
        except (ValueError, ParseException):
            raise ImproperlyConfiguredError(
                f"{name}={raw!r}: the {label} field {value!r} is not valid (values {allowed}); {_CRONTAB_ACCEPTED}"
            ) from None
    return crontab(**{keyword: value for (keyword, _, _), value in zip(_CRONTAB_FIELDS, values, strict=True)})
