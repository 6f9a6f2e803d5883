"""``model-comparison``: one Layer3 metric per model configuration, as bars with 95% confidence intervals.

A bar is the estimate of ``layer3.figures.intervals`` for that model config, with its interval (Wilson or t)
as the error bar and its sample size as the ``n=…`` under it. That is the batch figure of
``layer3.metrics.batch`` (``aggregate_by_model``) for every metric, with one definition each: the proportion
metrics pooled over items or bindings; GV_CR and W2WR_SC the mean over trials of each trial's mean score (as
the Mann–Whitney test compares them and the tables show them; the axis label says "trial mean"); WS_ENT and
GC_* trial means. A model config with no data for the metric gets no bar but a "no data" note; one whose
trial mean rests on a single trial gets a bar without an error bar.

A judged metric (GV_CR, GV_UR, W2WR_SC, W2WR_CR: ``layer3.metrics.provenance.METRIC_JUDGE``) names its judge:
a grey line under the title gives the one judge of every bar or, when the model configs' judges differ, says
so and each bar's judge is written under it, after its ``n=…``. A model config whose trials were judged by
more than one judge gets no bar (a figure of several judges would be a blend) but a "several judges" note.
The automatic metrics have no judge line.

The y axis has a fixed range for shares (0–1) and judge scores (0–2), so that figures of different batches
compare by eye, and starts at 0 for the other metrics (all non-negative). An error bar is drawn clipped
to that range: a t interval over few trials can reach below 0 or above 2, which no trial mean can.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from layer3.figures.drawing import (
    BAR_COLOR,
    NOTE_COLOR,
    NOTE_SIZE,
    Page,
    fitted_note,
    literal_tick_labels,
    metric_title,
    plain_text,
    text_inches,
    titles,
)
from layer3.figures.intervals import Interval, interval_method, metric_interval
from layer3.figures.labels import INTERVAL_NAMES, METRIC_LABELS, SAMPLE_NOTES
from layer3.metrics.provenance import METRIC_JUDGE
from layer3.statistics.samples import PROPORTION_METRICS, ModelSamples

SCORE_METRICS = ("GV_CR", "W2WR_SC")  # judge scores 0-2
LABEL_WIDTH = 14  # characters of a model label per line under its bar
JUDGE_WIDTH = 22  # characters of a judge label per line under its bar


def metric_judges(samples: ModelSamples, metric: str) -> tuple[str, ...]:
    """The judges of one model config's figure of ``metric``: () for an automatic metric or no judged data."""
    group = METRIC_JUDGE.get(metric)
    return tuple(samples.judges.get(group, ())) if group else ()


def _judge_texts(page: Page, judges: list[tuple[str, ...]]) -> tuple[str, list[str]]:
    """The judge line under the title and the judge line under each bar (empty where it needs none)."""
    single = sorted({labels[0] for labels in judges if len(labels) == 1})
    if len(single) <= 1:
        line = page.word("judge").format(judge=page.data(single[0])) if single else ""
        return line, [""] * len(judges)
    per_bar = [page.judge(labels[0], JUDGE_WIDTH) if len(labels) == 1 else "" for labels in judges]
    return page.word("judges_differ"), per_bar


def _y_top(metric: str, intervals: list[Interval]) -> float:
    if metric in PROPORTION_METRICS:
        return 1.0
    if metric in SCORE_METRICS:
        return 2.0
    tops = [i.high if i.high is not None else i.estimate for i in intervals if i.estimate is not None]
    top = max(tops, default=0.0)
    return top * 1.15 if top > 0 else 1.0


def _error_bars(axes: Axes, positions: np.ndarray, intervals: list[Interval], top: float) -> None:
    bounded = [(x, i) for x, i in zip(positions, intervals, strict=True) if i.low is not None]
    if not bounded:
        return
    estimates = np.array([i.estimate for _, i in bounded])
    lows = np.clip([i.low for _, i in bounded], 0.0, top)
    highs = np.clip([i.high for _, i in bounded], 0.0, top)
    axes.errorbar(
        [x for x, _ in bounded],
        estimates,
        yerr=np.vstack([estimates - lows, highs - estimates]).clip(min=0.0),
        fmt="none",
        ecolor="black",
        elinewidth=1.0,
        capsize=4,
        zorder=3,
        clip_on=False,  # a cap exactly on the top of the range stays whole
    )


def draw_model_comparison(
    figure: Figure, samples: Mapping[str, ModelSamples], *, page: Page, metric: str, batch_label: str
) -> None:
    labels = [page.data(label, LABEL_WIDTH) for label in samples]
    judges = [metric_judges(model, metric) for model in samples.values()]
    intervals = [
        Interval(None, None, None, interval.n) if len(who) > 1 else interval  # never a bar of several judges
        for interval, who in zip((metric_interval(model, metric) for model in samples.values()), judges, strict=True)
    ]
    judge_line, bar_judges = _judge_texts(page, judges)
    ticks = [
        f"{label}\nn={interval.n}" + (f"\n{judge}" if judge else "")
        for label, interval, judge in zip(labels, intervals, bar_judges, strict=True)
    ]
    notes = [  # in place of a bar
        "" if interval.estimate is not None else page.word("several_judges" if len(who) > 1 else "no_data")
        for interval, who in zip(intervals, judges, strict=True)
    ]
    longest = max((len(line) for text in [*ticks, *notes] for line in text.splitlines()), default=1)
    width = max(4.2, 1.4 + len(labels) * max(0.75, 0.3 + 0.065 * longest), 0.8 + text_inches(judge_line, 8.5))
    figure.set_size_inches(width, 3.6)
    axes = figure.add_subplot()
    positions = np.arange(len(labels), dtype=float)
    top = _y_top(metric, intervals)

    drawn = [(x, i.estimate) for x, i in zip(positions, intervals, strict=True) if i.estimate is not None]
    axes.bar([x for x, _ in drawn], [e for _, e in drawn], width=0.6, color=BAR_COLOR, zorder=2)
    _error_bars(axes, positions, intervals, top)
    for x, note in zip(positions, notes, strict=True):
        if note:
            where = axes.get_xaxis_transform()  # x in data, y in axes coordinates
            plain_text(axes, x, 0.02, note, transform=where, ha="center", va="bottom", color=NOTE_COLOR, fontsize=8)
    if not labels:
        plain_text(axes, 0.5, 0.5, page.word("no_data"), transform=axes.transAxes, ha="center", color=NOTE_COLOR)

    axes.set_xlim(-0.6, max(len(labels), 1) - 0.4)
    axes.set_ylim(0, top)
    axes.yaxis.grid(True, color="0.88", linewidth=0.6)
    axes.set_axisbelow(True)
    literal_tick_labels(axes.xaxis, positions, ticks)
    name, axis_label = METRIC_LABELS[metric][page.language]
    axes.set_ylabel(axis_label)
    axes.set_xlabel(page.word("model_config"))
    titles(axes, metric_title(name, metric, page.language), page.data(batch_label), judge_line)
    method = INTERVAL_NAMES[interval_method(metric)][page.language]
    note = page.word("ci_note").format(method=method, unit=SAMPLE_NOTES[metric][page.language])
    figure.supxlabel(fitted_note(note, width), fontsize=NOTE_SIZE, color=NOTE_COLOR)
