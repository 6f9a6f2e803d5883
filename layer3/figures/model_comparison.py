"""``model-comparison``: one Layer3 metric per model configuration, as bars with 95% confidence intervals.

A bar is the estimate of ``layer3.figures.intervals`` for that model config, with its interval (Wilson or t)
as the error bar and its sample size as the ``n=…`` under it. For the proportion metrics and for WS_ENT and
the GC_* metrics that is the batch figure of ``layer3.metrics.batch`` (``aggregate_by_model``). For GV_CR and
W2WR_SC it is the mean of the trials' average scores, as the Mann–Whitney test compares them, which differs
from the batch table's item-weighted ``avgScore`` (a trial with many judged items weighs more there); the
axis label says "trial mean". A model config with no data for the metric gets no
bar but a "no data" note; one whose trial mean rests on a single trial gets a bar without an error bar.

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
    literal_tick_labels,
    metric_title,
    plain_text,
    titles,
)
from layer3.figures.intervals import Interval, interval_method, metric_interval
from layer3.figures.labels import INTERVAL_NAMES, METRIC_LABELS, SAMPLE_NOTES
from layer3.statistics.samples import PROPORTION_METRICS, ModelSamples

SCORE_METRICS = ("GV_CR", "W2WR_SC")  # judge scores 0-2
LABEL_WIDTH = 14  # characters of a model label per line under its bar


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
    intervals = [metric_interval(model, metric) for model in samples.values()]
    longest = max((len(line) for label in labels for line in label.splitlines()), default=1)
    figure.set_size_inches(max(4.2, 1.4 + len(labels) * max(0.75, 0.3 + 0.065 * longest)), 3.6)
    axes = figure.add_subplot()
    positions = np.arange(len(labels), dtype=float)
    top = _y_top(metric, intervals)

    drawn = [(x, i.estimate) for x, i in zip(positions, intervals, strict=True) if i.estimate is not None]
    axes.bar([x for x, _ in drawn], [e for _, e in drawn], width=0.6, color=BAR_COLOR, zorder=2)
    _error_bars(axes, positions, intervals, top)
    for x, interval in zip(positions, intervals, strict=True):
        if interval.estimate is None:
            note = page.word("no_data")
            where = axes.get_xaxis_transform()  # x in data, y in axes coordinates
            plain_text(axes, x, 0.02, note, transform=where, ha="center", va="bottom", color=NOTE_COLOR, fontsize=8)
    if not labels:
        plain_text(axes, 0.5, 0.5, page.word("no_data"), transform=axes.transAxes, ha="center", color=NOTE_COLOR)

    axes.set_xlim(-0.6, max(len(labels), 1) - 0.4)
    axes.set_ylim(0, top)
    axes.yaxis.grid(True, color="0.88", linewidth=0.6)
    axes.set_axisbelow(True)
    literal_tick_labels(
        axes.xaxis, positions, [f"{label}\nn={i.n}" for label, i in zip(labels, intervals, strict=True)]
    )
    name, axis_label = METRIC_LABELS[metric][page.language]
    axes.set_ylabel(axis_label)
    axes.set_xlabel(page.word("model_config"))
    titles(axes, metric_title(name, metric, page.language), page.data(batch_label))
    method = INTERVAL_NAMES[interval_method(metric)][page.language]
    note = page.word("ci_note").format(method=method, unit=SAMPLE_NOTES[metric][page.language])
    figure.supxlabel(note, fontsize=NOTE_SIZE, color=NOTE_COLOR)
