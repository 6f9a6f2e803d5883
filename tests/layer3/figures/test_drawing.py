"""What the figures draw: bars that agree with the batch aggregation, intervals, no-data notes, type shares."""

import math

import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.container import BarContainer, ErrorbarContainer
from matplotlib.figure import Figure

from layer3.exports.tables import METRIC_COLUMNS
from layer3.figures.drawing import Page
from layer3.figures.intervals import metric_interval
from layer3.figures.model_comparison import draw_model_comparison
from layer3.figures.w2wr_types import draw_w2wr_types, type_counts
from layer3.metrics.batch import aggregate_by_model
from layer3.statistics import LAYER3_METRICS, model_samples
from tests.layer3.figures.batch import demo_batch
from tests.layer3.statistics.trials import error_trial, layer3_trial

ENGLISH = Page("en", ("DejaVu Sans",))


@pytest.fixture(scope="module")
def batch():
    return demo_batch(125)


def drawn(draw, trials_by_model, **options):
    figure = Figure(layout="constrained")
    FigureCanvasAgg(figure)
    samples = {label: model_samples(trials) for label, trials in trials_by_model.items()}
    draw(figure, samples, page=ENGLISH, batch_label="", **options)
    figure.canvas.draw()
    return figure.axes[0]


def bars(axes):
    (container,) = [c for c in axes.containers if isinstance(c, BarContainer)]
    return {round(p.get_x() + p.get_width() / 2): p.get_height() for p in container.patches}


def error_segments(axes):
    containers = [c for c in axes.containers if isinstance(c, ErrorbarContainer)]
    if not containers:
        return {}
    (container,) = containers
    (lines,) = container.lines[2]
    return {round(segment[0][0]): (segment[0][1], segment[1][1]) for segment in lines.get_segments()}


def texts(axes):
    return [t.get_text() for t in axes.texts] + [t.get_text() for t in axes.get_xticklabels()]


@pytest.mark.parametrize("metric", LAYER3_METRICS)
def test_bars_are_the_batch_figures_and_error_bars_the_intervals(batch, metric):
    axes = drawn(draw_model_comparison, batch, metric=metric)
    pairs = [(model, trial) for model, trials in batch.items() for trial in trials]
    _, by_model = aggregate_by_model(pairs)
    column = {name: (block, field) for name, block, field in METRIC_COLUMNS}[metric]
    heights = bars(axes)
    segments = error_segments(axes)
    for position, entry in enumerate(by_model):
        trials = batch[entry["modelConfig"]]
        if metric in ("GV_CR", "W2WR_SC"):  # trial means of the trials' average scores
            expected = float(np.mean(model_samples(trials).values[metric]))
        else:
            expected = entry["layer3"][column[0]][column[1]]
        assert math.isclose(heights[position], expected, rel_tol=1e-12)
        interval = metric_interval(model_samples(trials), metric)
        assert segments[position] == pytest.approx((interval.low, interval.high), abs=1e-12)


def test_a_model_without_data_gets_a_note_and_one_trial_gets_a_bar_without_an_interval():
    trials = {
        "A": [layer3_trial(graph=(3, 2)), layer3_trial(graph=(4, 2))],
        "B": [error_trial()],
        "C": [layer3_trial(graph=(5, 4))],
    }
    axes = drawn(draw_model_comparison, trials, metric="GC_NC")
    assert bars(axes) == {0: 3.5, 2: 5.0}
    assert set(error_segments(axes)) == {0}
    assert texts(axes).count("no data") == 1
    assert [t.get_text() for t in axes.get_xticklabels()] == ["A\nn=2", "B\nn=0", "C\nn=1"]


def test_error_bars_are_clipped_to_the_score_scale():
    axes = drawn(draw_model_comparison, {"A": [layer3_trial(gv=[2, 2]), layer3_trial(gv=[0, 1])]}, metric="GV_CR")
    assert metric_interval(model_samples([layer3_trial(gv=[2, 2]), layer3_trial(gv=[0, 1])]), "GV_CR").low < 0
    assert error_segments(axes)[0] == (0.0, 2.0)
    assert axes.get_ylim() == (0.0, 2.0)


def test_type_shares_are_binding_weighted_and_unknown_is_the_rest():
    samples = model_samples([layer3_trial(types=["flow", "flow", "meta"]), layer3_trial(types=["sync", "unknown"])])
    assert type_counts(samples) == ({"flow": 2, "meta": 1, "sync": 1, "unknown": 1}, 5)
    axes = drawn(draw_w2wr_types, {"A": [layer3_trial(types=["flow", "flow", "meta"])], "B": [layer3_trial(types=[])]})
    widths = [round(p.get_width(), 12) for c in axes.containers for p in c.patches if p.get_y() < 0]
    assert widths == [round(2 / 3, 12), round(1 / 3, 12), 0.0, 0.0]
    assert "no data" in texts(axes)
    assert "n=0" in texts(axes) and "n=3" in texts(axes)
