"""Where JavaScript and Python differ, the JavaScript side (seed 002 §4 is TypeScript).

The metric functions must return what the seed's TypeScript returns, so the few places where the
two languages disagree go through the helpers here:

- ``js_round``: ``Math.round(x * 10**d) / 10**d`` (§4.3, §4.4). ``Math.round`` takes halves towards
  +infinity (``Math.round(2.5) == 3``, ``Math.round(-2.5) == -2``); Python's ``round`` takes them to
  the even neighbour (``round(2.5) == 2``).
- ``js_key_order``: the order of ``Object.keys`` / ``Object.entries`` (§4.1, §4.4). JavaScript lists
  the keys that are array indices ("0", "7", "42") first, in ascending numeric order, then the other
  keys in insertion order; a Python dict keeps plain insertion order.
- ``js_iso_timestamp`` / ``js_iso_now``: ``Date.prototype.toISOString`` (§6.1 ``evaluatedAt``):
  milliseconds and "Z", where ``datetime.isoformat`` gives microseconds and "+00:00".
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable
from datetime import UTC, datetime
from math import floor

# 10**d for the digits js_round accepts: exact doubles, as JavaScript's literal 10000 is.
_SCALES = tuple(10.0**digits for digits in range(16))

# An array index is the canonical decimal form of an integer 0 .. 2**32 - 2 (ECMAScript §6.1.7):
# "07", "+1", "1.0" and "4294967295" are ordinary string keys and keep their insertion place.
_ARRAY_INDEX = re.compile(r"0|[1-9][0-9]{0,9}")
_MAX_ARRAY_INDEX = 2**32 - 2
_DIGITS = frozenset("0123456789")


def js_round(value: float, digits: int) -> float:
    """``Math.round(value * 10**digits) / 10**digits``, exactly as JavaScript computes it.

    ``math.floor(scaled + 0.5)`` is not enough: the addition itself rounds, so 0.49999999999999994
    would come out as 1 where ``Math.round`` gives 0. ``scaled - floor(scaled)`` is exact for every
    double, so comparing it with 0.5 decides halves the way ``Math.round`` does (towards +infinity).

    JavaScript returns -0 for ``Math.round(-0.2)``; ``JSON.stringify`` writes it as 0, and this
    returns 0.0, so the stored JSON is the same. Infinity and NaN pass through as in JavaScript.
    """
    scale = _SCALES[digits]  # digits 0..15
    scaled = value * scale
    try:
        whole = floor(scaled)
    except (OverflowError, ValueError):  # infinity, NaN
        return scaled / scale
    if scaled - whole >= 0.5:
        whole += 1
    return whole / scale


def is_array_index(key: str) -> bool:
    """Whether JavaScript treats ``key`` as an array index, which moves it to the front of ``Object.keys``."""
    return _ARRAY_INDEX.fullmatch(key) is not None and int(key) <= _MAX_ARRAY_INDEX


def js_key_order(obj: dict[str, object]) -> Iterable[str]:
    """The keys of a decoded JSON object in the order of JavaScript's ``Object.keys``.

    Returns ``obj`` itself (insertion order) when no key starts with a digit, which is nearly always,
    so the common case costs one pass over the keys and no new list.
    """
    for key in obj:
        if key[:1] in _DIGITS:
            break
    else:
        return obj
    indices = sorted((key for key in obj if is_array_index(key)), key=int)
    if not indices:
        return obj
    moved = set(indices)
    return indices + [key for key in obj if key not in moved]


def js_iso_timestamp(moment: datetime) -> str:
    """``Date.prototype.toISOString``: UTC, milliseconds (truncated, as a JS Date holds no more), "Z"."""
    if moment.tzinfo is None:
        raise ValueError("evaluatedAt needs a timezone-aware datetime (a naive one has no defined instant)")
    m = moment if moment.tzinfo is UTC else moment.astimezone(UTC)
    # %-formatting: a third of isoformat's time, and unlike strftime's %Y it pads years before 1000.
    return "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ" % (  # noqa: UP031
        m.year,
        m.month,
        m.day,
        m.hour,
        m.minute,
        m.second,
        m.microsecond // 1000,
    )


_current_second: tuple[int, str] = (-1, "")  # (Unix second, its "YYYY-MM-DDTHH:MM:SS"), replaced whole


def js_iso_now() -> str:
    """``new Date().toISOString()``: the current time in UTC to the millisecond.

    Formats the date and time once per second; a batch stamps tens of thousands of trials a second,
    and formatting a datetime each time was a twentieth of a trial's cost.
    """
    global _current_second
    second, millisecond = divmod(time.time_ns() // 1_000_000, 1000)
    cached_second, prefix = _current_second
    if second != cached_second:
        prefix = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second))
        _current_second = (second, prefix)
    return f"{prefix}.{millisecond:03d}Z"
