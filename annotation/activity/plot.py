"""Ratings per day per annotator as SVG geometry for the activity page's inline plot (pure).

Small multiples: one row of daily bars per annotator, all rows on the same day axis and the same count
scale, so rows compare at a glance and the figure stays legible with many annotators (lines of mostly-zero
daily counts zigzag into each other). The template draws what is computed here; coordinates are strings so
that no localisation touches them. Every bar carries the count it is drawn from, which is the count the
tables under the plot print (both read the same :class:`~annotation.activity.compute.Activity`).
"""

from __future__ import annotations

import math

from annotation.activity.compute import Activity
from annotation.dashboard.palette import line_style

WIDTH = 960
LEFT, RIGHT, TOP, BOTTOM = 130, 84, 8, 40
ROW_HEIGHT, ROW_GAP = 46, 10  # a row's bar area, and the space above it
MAX_X_LABELS = 12
NAME_CHARS = 16  # longer names are shortened in the figure (the full name is in the tooltip and the table)
BAR_GAP = 0.18  # share of a day's slot left empty beside its bar


def _fmt(value: float) -> str:
    return f"{value:.1f}"


def short_name(name: str, limit: int = NAME_CHARS) -> str:
    return name if len(name) <= limit else name[: limit - 1] + "…"


def activity_plot(activity: Activity) -> dict | None:
    """One row of bars per annotator (in the order of ``activity.annotators``); None if nobody rated."""
    if not activity.annotators:
        return None
    days = activity.days
    inner_w = WIDTH - LEFT - RIGHT
    slot = inner_w / len(days)
    bar_w = slot * (1 - BAR_GAP)
    top = max(1, activity.max_per_day)  # the common scale: the busiest day of anyone fills a row
    pitch = ROW_GAP + ROW_HEIGHT
    rows_bottom = TOP + pitch * len(activity.annotators)
    height = rows_bottom + BOTTOM

    label_every = max(1, math.ceil(len(days) / MAX_X_LABELS))
    last = len(days) - 1
    x_ticks = [
        {
            "x": _fmt(LEFT + (i + 0.5) * slot),
            "label": f"{day.month}/{day.day}" if (last - i) % label_every == 0 else "",
        }
        for i, day in enumerate(days)
    ]
    weekends = [
        {"x": _fmt(LEFT + i * slot), "width": _fmt(slot), "day": day.isoformat()}
        for i, day in enumerate(days)
        if day.weekday() >= 5
    ]
    rows = []
    for n, annotator in enumerate(activity.annotators):
        colour, _dash = line_style(n)
        base = TOP + pitch * n + ROW_GAP + ROW_HEIGHT
        bars = []
        for i, count in enumerate(annotator.per_day):
            if not count:
                continue
            h = max(1.0, count / top * ROW_HEIGHT)
            bars.append({"x": _fmt(LEFT + i * slot + (slot - bar_w) / 2), "y": _fmt(base - h), "width": _fmt(bar_w),
                         "height": _fmt(h), "day": days[i].isoformat(), "n": count})  # fmt: skip
        rows.append(
            {
                "name": annotator.name,
                "label": short_name(annotator.name),
                "colour": colour,
                "dash": _dash,
                "bars": bars,
                "total": annotator.in_window,
                "baseline": _fmt(base),
                "top_line": _fmt(base - ROW_HEIGHT),
                "mid_line": _fmt(base - ROW_HEIGHT / 2),
                "label_y": _fmt(base - ROW_HEIGHT / 2),
            }
        )
    return {
        "width": WIDTH,
        "height": _fmt(height),
        "left": LEFT,
        "right": WIDTH - RIGHT,
        "top": TOP,
        "bottom": _fmt(rows_bottom),
        "area_height": _fmt(rows_bottom - TOP),
        "name_x": LEFT - 10,
        "total_x": WIDTH - RIGHT + 10,
        "tick_end_y": _fmt(rows_bottom + 5),
        "x_label_y": _fmt(rows_bottom + 19),
        "x_title_y": _fmt(height - 4),
        "scale_max": top,
        "x_ticks": x_ticks,
        "weekends": weekends,
        "rows": rows,
        "first_day": days[0].isoformat(),
        "last_day": days[-1].isoformat(),
    }
