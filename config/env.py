"""Typed readers for environment variables.

Pure Python (no Django import) so settings can use them before Django is set up.
Each reader raises ``ImproperlyConfiguredError`` naming the variable and what is accepted.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

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


def env_int(name: str, default: int, *, minimum: int | None = None, environ: Mapping[str, str] | None = None) -> int:
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
