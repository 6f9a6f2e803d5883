"""model_samples: one model config's samples from stored Layer3MetricsV1 dicts."""

import math
import re
import time

import numpy as np
import pytest

from layer3.metrics import compute_trial_metrics
from layer3.statistics import LAYER3_METRICS, ModelSamples, ProportionCount, compare_model_configs, model_samples
from layer3.statistics.samples import MANN_WHITNEY_METRICS, PROPORTION_METRICS
from tests.layer3.metrics.specs import binding, ui_spec, widget
from tests.layer3.statistics.trials import error_trial, layer3_trial


def realistic_trials():
    return [
        layer3_trial(
            gv=[2, 2, 1, 0],
            types=["flow", "flow", "sync", "unknown"],
            sc=[2, 1, 2],
            widgets=["brainstorm_cards", "emotion_palette", "brainstorm_cards"],
            graph=(3, 4),
        ),
        error_trial(),
        # The judge found no generatedValue: GV_CR has no value, GV_UR gets no items.
        layer3_trial(gv=[], types=["meta"], sc=[0], widgets=["timeline"], graph=(1, 0)),
        # A trial evaluated without the judge: no generatedValueRelevance, no w2wrSemanticCorrectness.
        layer3_trial(types=[], widgets=["timeline", "priority_matrix"], graph=(2, 1)),
        layer3_trial(gv=[1], sc=[]),
        {"version": "1.0", "evaluatedAt": "2025-01-15T09:30:00.000Z", "generatedValueRelevance": None},
    ]


def test_the_metric_names_are_the_seeds_in_its_order_and_split_by_test():
    assert LAYER3_METRICS == (
        "GV_CR",
        "GV_UR",
        "W2WR_FR",
        "W2WR_MR",
        "W2WR_SYR",
        "W2WR_SC",
        "W2WR_CR",
        "WS_ENT",
        "GC_NC",
        "GC_EC",
        "GC_DEN",
    )
    assert sorted(MANN_WHITNEY_METRICS + PROPORTION_METRICS) == sorted(LAYER3_METRICS)


def test_it_reads_one_value_per_trial_for_the_mann_whitney_metrics():
    samples = model_samples(realistic_trials())
    assert samples.values["GV_CR"].tolist() == [1.25, 1.0]  # the trial with evaluatedItems 0 is left out
    assert samples.values["W2WR_SC"].tolist() == pytest.approx([5 / 3, 0.0], abs=1e-12)  # evaluatedBindings 0 out
    assert samples.values["WS_ENT"].tolist() == [0.9183, 0.0, 1.0]
    assert samples.values["GC_NC"].tolist() == [3.0, 1.0, 2.0]
    assert samples.values["GC_EC"].tolist() == [4.0, 0.0, 1.0]
    assert samples.values["GC_DEN"].tolist() == [0.6667, 0.0, 0.5]
    assert all(array.dtype == np.float64 for array in samples.values.values())


def test_it_sums_the_counts_of_the_proportion_metrics():
    counts = model_samples(realistic_trials()).counts
    assert counts["GV_UR"] == ProportionCount(successes=2, n=5)
    assert counts["W2WR_FR"] == ProportionCount(2, 5)  # totalBindings includes the unknown binding
    assert counts["W2WR_MR"] == ProportionCount(1, 5)
    assert counts["W2WR_SYR"] == ProportionCount(1, 5)
    assert counts["W2WR_CR"] == ProportionCount(2, 4)
    assert counts["W2WR_CR"].proportion == 0.5
    assert ProportionCount(0, 0).proportion is None


def test_it_keeps_the_counts_of_every_trial_for_the_bootstrap():
    trial_counts = model_samples(realistic_trials()).trial_counts
    assert list(trial_counts) == list(PROPORTION_METRICS)
    # Five trials read without error (the error trial is no row); 0 of 0 where a trial has no such block.
    expected = {
        "GV_UR": ([2, 0, 0, 0, 0], [4, 0, 0, 1, 0]),
        "W2WR_FR": ([2, 0, 0, 0, 0], [4, 1, 0, 0, 0]),
        "W2WR_MR": ([0, 1, 0, 0, 0], [4, 1, 0, 0, 0]),
        "W2WR_SYR": ([1, 0, 0, 0, 0], [4, 1, 0, 0, 0]),
        "W2WR_CR": ([2, 0, 0, 0, 0], [3, 1, 0, 0, 0]),
    }
    counts = model_samples(realistic_trials()).counts
    for metric, (successes, n) in trial_counts.items():
        assert (successes.tolist(), n.tolist()) == expected[metric]
        assert successes.dtype == n.dtype == np.int64
        assert (int(successes.sum()), int(n.sum())) == (counts[metric].successes, counts[metric].n)
        with pytest.raises(ValueError, match="read-only"):
            successes[0] = 1


def test_it_skips_error_trials_and_counts_them():
    samples = model_samples(realistic_trials())
    assert (samples.trials, samples.error_trials) == (6, 1)
    only_errors = model_samples([error_trial(), {"error": "parse failed", "graphComplexity": {"nodeCount": 3}}])
    assert only_errors.error_trials == 2
    assert all(array.size == 0 for array in only_errors.values.values())
    assert all(count == ProportionCount(0, 0) for count in only_errors.counts.values())
    assert all(x.size == n.size == 0 for x, n in only_errors.trial_counts.values())
    assert only_errors.judges == {"gv": (), "w2wr": ()}


def test_it_reads_the_non_llm_metrics_that_compute_trial_metrics_stores():
    spec = ui_spec(
        [widget("w1"), widget("w2", "emotion_palette"), widget("w3", "timeline")],
        [binding("b1", "w1.out", "w2.in"), binding("b2", "w2.out", "w1.in"), binding("b3", "w2.x", "w3.y", "validate")],
    )
    stored = compute_trial_metrics(spec)
    samples = model_samples([stored])
    assert samples.values["GC_NC"].tolist() == [3.0]
    assert samples.values["GC_EC"].tolist() == [3.0]
    assert samples.values["GC_DEN"].tolist() == [stored["graphComplexity"]["density"]]
    assert samples.values["WS_ENT"].tolist() == [stored["widgetDiversity"]["entropy"]]
    assert samples.counts["W2WR_SYR"] == ProportionCount(2, 3)
    assert samples.counts["W2WR_MR"] == ProportionCount(1, 3)
    assert samples.counts["W2WR_FR"] == ProportionCount(0, 3)
    assert samples.values["GV_CR"].size == 0 and samples.counts["GV_UR"] == ProportionCount(0, 0)


def test_it_reads_a_generator_in_one_pass():
    samples = model_samples(layer3_trial(graph=(n, n - 1)) for n in range(2, 12))
    assert samples.trials == 10
    assert samples.values["GC_NC"].tolist() == [float(n) for n in range(2, 12)]


def test_the_sample_arrays_are_read_only():
    samples = model_samples(realistic_trials())
    with pytest.raises(ValueError, match="read-only"):
        samples.values["GC_NC"][0] = 99
    with pytest.raises(TypeError):
        samples.values["GC_NC"] = np.zeros(1)


def test_ten_thousand_trials_take_well_under_a_second():
    trials = [
        layer3_trial(gv=[2, 1, i % 3], types=["flow", "sync"], sc=[2], widgets=["a", "b"], graph=(4, i % 7))
        for i in range(10_000)
    ]
    start = time.perf_counter()
    samples = model_samples(trials)
    elapsed = time.perf_counter() - start
    assert samples.values["GC_EC"].size == 10_000
    assert samples.counts["GV_UR"].n == 30_000
    assert elapsed < 1.0


@pytest.mark.parametrize(
    ("trial", "message"),
    [
        ({"graphComplexity": {"nodeCount": 3, "edgeCount": 2}}, "trial 0: graphComplexity.density is missing"),
        (
            {"graphComplexity": {"nodeCount": 3, "edgeCount": 2, "density": "0.3"}},
            "trial 0: graphComplexity.density must be a finite number; got '0.3'",
        ),
        ({"widgetDiversity": {"entropy": math.nan}}, "trial 0: widgetDiversity.entropy must be a finite number"),
        ({"widgetDiversity": {"entropy": True}}, "widgetDiversity.entropy must be a finite number; got True"),
        ({"widgetDiversity": [1.0]}, "trial 0: widgetDiversity must be an object"),
        (
            {"generatedValueRelevance": {"evaluatedItems": 2, "distribution": {"useful": 3}, "avgScore": 2}},
            "trial 0: generatedValueRelevance.distribution.useful exceeds its total 2; got 3",
        ),
        (
            {"generatedValueRelevance": {"evaluatedItems": 1.5, "distribution": {"useful": 1}, "avgScore": 2}},
            "generatedValueRelevance.evaluatedItems must be a non-negative integer; got 1.5",
        ),
        (
            {"w2wrTypeDistribution": {"totalBindings": 2, "distribution": {"flow": 1, "meta": 0}}},
            "trial 0: w2wrTypeDistribution.distribution.sync is missing",
        ),
        ({"w2wrSemanticCorrectness": {"evaluatedBindings": 1}}, "w2wrSemanticCorrectness.distribution is missing"),
        (
            {"w2wrSemanticCorrectness": {"evaluatedBindings": 1, "distribution": {"correct": -1}}},
            "w2wrSemanticCorrectness.distribution.correct must be a non-negative integer; got -1",
        ),
        ("not a dict", "trial 0: expected a Layer3MetricsV1 object; got str"),
    ],
)
def test_a_bad_field_names_the_trial_and_json_path(trial, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        model_samples([trial])


def test_compare_model_configs_adds_the_model_label_to_the_error():
    trials = [layer3_trial(graph=(2, 1)), {"graphComplexity": {"nodeCount": -1, "edgeCount": 0, "density": None}}]
    with pytest.raises(ValueError, match=r"model 'B', trial 1: graphComplexity.density must be a finite number"):
        compare_model_configs({"A": [layer3_trial(graph=(2, 1))], "B": trials})


def test_integral_floats_count_as_counts_and_avg_score_is_not_read_without_items():
    trial = {
        "generatedValueRelevance": {"evaluatedItems": 0.0, "distribution": {"useful": 0.0}, "avgScore": None},
        "w2wrSemanticCorrectness": {"evaluatedBindings": 4.0, "distribution": {"correct": 3.0}, "avgScore": 1.5},
    }
    samples = model_samples([trial])
    assert samples.values["GV_CR"].size == 0
    assert samples.counts["W2WR_CR"] == ProportionCount(3, 4)
    assert type(samples.counts["W2WR_CR"].n) is int
    assert isinstance(samples, ModelSamples)
