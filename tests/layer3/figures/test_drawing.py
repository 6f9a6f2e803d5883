"""What the figures draw: bars that agree with the batch aggregation, intervals, no-data notes, judges, type shares."""

import math

import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.container import BarContainer, ErrorbarContainer
from matplotlib.figure import Figure

from layer3.exports.tables import METRIC_COLUMNS
from layer3.figures.drawing import Page, fitted_note, text_inches, wrap_after_colons
from layer3.figures.intervals import metric_interval
from layer3.figures.model_comparison import draw_model_comparison, metric_judges
from layer3.figures.w2wr_types import draw_w2wr_types, type_counts
from layer3.metrics.batch import aggregate_by_model
from layer3.metrics.provenance import BASELINE_MODEL, METRIC_JUDGE
from layer3.statistics import LAYER3_METRICS, model_samples
from tests.layer3.figures.batch import demo_batch, judged_trial, label
from tests.layer3.statistics.trials import error_trial, layer3_trial

ENGLISH = Page("en", ("DejaVu Sans",))
JUDGED = tuple(METRIC_JUDGE)


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
        expected = entry["layer3"][column[0]][column[1]]  # GV_CR and W2WR_SC too: trial means everywhere
        assert math.isclose(heights[position], expected, rel_tol=1e-12)
        if metric in ("GV_CR", "W2WR_SC"):
            assert math.isclose(heights[position], float(np.mean(model_samples(trials).values[metric])), rel_tol=1e-12)
        interval = metric_interval(model_samples(trials), metric)
        assert segments[position] == pytest.approx((interval.low, interval.high), abs=1e-12)
        if metric in JUDGED:
            assert metric_judges(model_samples(trials), metric) == (entry["judge"][METRIC_JUDGE[metric]],)


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


def subtitles(axes):
    """The grey lines under the title (batch label, judge line), top to bottom."""
    title = axes.title.get_text()
    lines = [t for t in axes.texts if t.get_position() == (0.5, 1) and t.get_text() != title]
    return [t.get_text() for t in sorted(lines, key=lambda t: -t.get_transform().transform((0.5, 1))[1])]


@pytest.mark.parametrize("metric", JUDGED)
def test_a_judged_metric_names_its_one_judge_under_the_title(batch, metric):
    axes = drawn(draw_model_comparison, batch, metric=metric)
    group = METRIC_JUDGE[metric]
    assert subtitles(axes) == [f"Judge: {label('fake-judge', group)}"]
    assert all(tick.get_text().count("\n") == 1 for tick in axes.get_xticklabels())  # label and n only


@pytest.mark.parametrize("metric", ["W2WR_FR", "WS_ENT", "GC_NC"])
def test_an_automatic_metric_has_no_judge_line(batch, metric):
    axes = drawn(draw_model_comparison, batch, metric=metric)
    assert subtitles(axes) == []
    assert not any("udge" in text for text in texts(axes))


def test_a_batch_label_and_the_judge_line_are_two_lines_under_the_title():
    figure = Figure(layout="constrained")
    FigureCanvasAgg(figure)
    samples = {"A": model_samples([judged_trial(gv=[2, 1]), judged_trial(gv=[2])])}
    draw_model_comparison(figure, samples, page=ENGLISH, batch_label="run 7", metric="GV_UR")
    assert subtitles(figure.axes[0]) == ["run 7", f"Judge: {label('fake-judge')}"]


def test_configs_judged_by_different_judges_name_their_judge_under_each_bar():
    trials = {
        "A": [judged_trial("gpt-4o", gv=[2, 1]), judged_trial("gpt-4o", gv=[2, 2])],
        "B": [judged_trial(BASELINE_MODEL, gv=[0, 1])],
        "C": [judged_trial("gpt-4o", gv=[1])],
    }
    axes = drawn(draw_model_comparison, trials, metric="GV_UR")
    assert subtitles(axes) == ["Judges: differ between model configurations (under each bar)"]
    assert bars(axes) == {0: 0.75, 1: 0.0, 2: 0.0}
    ticks = [t.get_text() for t in axes.get_xticklabels()]
    assert ticks[0] == "A\nn=4\n" + wrap_after_colons(label("gpt-4o"), 22)
    assert ticks[0] == "A\nn=4\nllm:gpt-4o:\nlayer3.gv_relevance@1"
    assert ticks[1] == "B\nn=2\nbaseline:\nbaseline-tfidf@1:\nlayer3.gv_relevance@1"
    assert ticks[2].startswith("C\nn=1\nllm:gpt-4o:")


def test_a_config_judged_by_several_judges_gets_no_bar_but_a_note():
    trials = {
        "A": [judged_trial("gpt-4o", gv=[2, 1]), judged_trial("gpt-4o", gv=[2, 2])],
        "B": [judged_trial("gpt-4o", gv=[0, 1]), judged_trial(BASELINE_MODEL, gv=[2, 2])],
        "C": [error_trial()],
    }
    for metric in ("GV_UR", "GV_CR"):
        axes = drawn(draw_model_comparison, trials, metric=metric)
        assert set(bars(axes)) == {0}  # B: several judges, C: no data
        assert set(error_segments(axes)) == {0}
        assert texts(axes).count("several judges") == 1 and texts(axes).count("no data") == 1
        assert subtitles(axes) == [f"Judge: {label('gpt-4o')}"]  # the one judge of the bars drawn
        assert [t.get_text() for t in axes.get_xticklabels()][1].startswith("B\nn=")
    axes = drawn(draw_model_comparison, trials, metric="W2WR_CR")  # no W2WR semantic data: no judge at all
    assert subtitles(axes) == [] and "several judges" not in texts(axes)


def test_several_judges_everywhere_leaves_only_notes():
    mixed = [judged_trial("gpt-4o", sc=[2, 1]), judged_trial(BASELINE_MODEL, sc=[2])]
    axes = drawn(draw_model_comparison, {"A": mixed, "B": list(reversed(mixed))}, metric="W2WR_SC")
    assert not [c for c in axes.containers if isinstance(c, BarContainer) and c.patches]
    assert texts(axes).count("several judges") == 2
    assert subtitles(axes) == []


def test_the_w2wr_types_figure_has_no_judge():
    trials = {"A": [judged_trial("gpt-4o", types=["flow"], gv=[2])], "B": [judged_trial(BASELINE_MODEL, types=["x"])]}
    axes = drawn(draw_w2wr_types, trials)
    assert not any("udge" in text for text in texts(axes))


@pytest.mark.parametrize(
    ("text", "width", "wrapped"),
    [
        ("llm:gpt-4o:layer3.gv_relevance@1", 22, "llm:gpt-4o:\nlayer3.gv_relevance@1"),
        ("llm:gemma2:27b:layer3.w2wr_semantic@1", 22, "llm:gemma2:27b:\nlayer3.w2wr_semantic@1"),
        ("short:one", 22, "short:one"),
        ("abcdefghij", 4, "abcd\nefgh\nij"),
        ("", 5, ""),
    ],
)
def test_judge_labels_wrap_after_their_colons(text, width, wrapped):
    assert wrap_after_colons(text, width) == wrapped


def test_the_note_under_a_narrow_figure_goes_on_two_lines():
    english = "Error bars: 95% confidence interval (t interval of the mean). n = trials with judged bindings"
    assert fitted_note(english, 10.0) == english
    assert fitted_note(english, 4.2) == (
        "Error bars: 95% confidence interval (t interval of the mean).\nn = trials with judged bindings"
    )
    japanese = "エラーバー: 95%信頼区間（平均の t 区間）。n = 評価済みバインディングのある試行数"
    assert (
        fitted_note(japanese, 3.0)
        == "エラーバー: 95%信頼区間（平均の t 区間）。\nn = 評価済みバインディングのある試行数"
    )
    assert text_inches("日本", 7.2) == pytest.approx(0.2) and text_inches("ab", 7.2) == pytest.approx(0.11)
