"""The activity plot's geometry (pure): one row of bars per annotator on a common scale."""

from datetime import date

from annotation.activity.compute import Activity, AnnotatorActivity, day_window
from annotation.activity.plot import ROW_HEIGHT, activity_plot, short_name


def _annotator(name, per_day):
    return AnnotatorActivity(name=name, total=sum(per_day), per_day=tuple(per_day), last_rating=None,
                             median_seconds=None, n_timed=0, skipped=0, submitted=0, kappa_axes=(),
                             n_with_others=0)  # fmt: skip


def test_bars_share_one_scale_and_skip_empty_days():
    window = day_window(today=date(2025, 1, 12), last_rating_day=None, days=7)  # Mon 6th .. Sun 12th
    activity = Activity(window, (_annotator("a", [0, 4, 0, 0, 0, 0, 2]), _annotator("b", [1, 0, 0, 0, 0, 0, 0])))
    plot = activity_plot(activity)
    a, b = plot["rows"]
    assert [(bar["day"], bar["n"]) for bar in a["bars"]] == [("2025-01-07", 4), ("2025-01-12", 2)]
    assert float(a["bars"][0]["height"]) == ROW_HEIGHT and float(a["bars"][1]["height"]) == ROW_HEIGHT / 2
    assert float(b["bars"][0]["height"]) == ROW_HEIGHT / 4 and plot["scale_max"] == 4
    assert float(a["bars"][0]["y"]) + ROW_HEIGHT == float(a["baseline"])  # bars stand on their row's baseline
    assert float(b["baseline"]) > float(a["baseline"]) and (a["total"], b["total"]) == (6, 1)
    assert [w["day"] for w in plot["weekends"]] == ["2025-01-11", "2025-01-12"]
    assert plot["x_ticks"][-1]["label"] == "1/12"  # the last day is always labelled


def test_nobody_no_plot_and_long_names_are_shortened():
    assert activity_plot(Activity(day_window(today=date(2025, 1, 12), last_rating_day=None), ())) is None
    assert short_name("a" * 30) == "a" * 15 + "…" and short_name("ann_001") == "ann_001"
