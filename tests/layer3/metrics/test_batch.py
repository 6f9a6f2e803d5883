"""Batch aggregation (BatchLayer3Results): item-weighted judge figures, trial means, None for no data."""

import json

import pytest

from layer3.metrics.batch import aggregate_by_model


def trial(
    *,
    gv=None,
    sc=None,
    types=None,
    entropy=1.0,
    normalized=0.25,
    unique=2,
    nodes=3,
    edges=2,
    density=0.3333,
    degree=1.33,
):
    metrics = {
        "version": "1.0",
        "evaluatedAt": "2026-11-26T00:00:00.000Z",
        "widgetDiversity": {"entropy": entropy, "normalizedEntropy": normalized, "uniqueWidgetCount": unique},
        "graphComplexity": {
            "nodeCount": nodes,
            "edgeCount": edges,
            "density": density,
            "avgDegree": degree,
            "maxDegree": 2,
        },
    }
    if types is not None:
        flow, meta, sync, unknown = types
        total = flow + meta + sync + unknown
        metrics["w2wrTypeDistribution"] = {
            "totalBindings": total,
            "distribution": {"flow": flow, "meta": meta, "sync": sync, "unknown": unknown},
        }
    if gv is not None:
        wrong, generic, useful = gv
        metrics["generatedValueRelevance"] = {
            "totalItems": wrong + generic + useful,
            "evaluatedItems": wrong + generic + useful,
            "distribution": {"notRelevant": wrong, "generic": generic, "useful": useful},
        }
    if sc is not None:
        wrong, redundant, correct = sc
        metrics["w2wrSemanticCorrectness"] = {
            "evaluatedBindings": wrong + redundant + correct,
            "distribution": {"correct": correct, "redundant": redundant, "wrong": wrong},
        }
    return metrics


def aggregate_batch_metrics(metrics):
    """The overall figures of trials all of one model config."""
    return aggregate_by_model(("A", value) for value in metrics)[0]


def test_judge_figures_are_item_weighted_across_trials():
    # trial 1: scores 0, 2, 2; trial 2: score 1 -> mean over the four items 5/4, not the mean of trial means
    results = aggregate_batch_metrics([trial(gv=(1, 0, 2)), trial(gv=(0, 1, 0))])
    gv = results["gvContentRelevance"]
    assert gv == {"avgScore": 1.25, "usefulRate": 0.5, "sampleSize": 4}


def test_w2wr_type_rates_count_unknown_in_the_denominator():
    results = aggregate_batch_metrics([trial(types=(2, 1, 0, 1)), trial(types=(1, 0, 2, 1))])
    assert results["w2wrTypeDistribution"] == {
        "flowRate": 3 / 8,
        "metaRate": 1 / 8,
        "syncRate": 2 / 8,
        "totalBindings": 8,
    }


def test_diversity_and_graph_figures_are_trial_means():
    results = aggregate_batch_metrics(
        [trial(entropy=1.0, nodes=2, density=0.5), trial(entropy=2.0, nodes=5, density=0.1)]
    )
    assert results["widgetDiversity"]["avgEntropy"] == 1.5
    assert results["graphComplexity"]["avgNodeCount"] == 3.5
    assert results["graphComplexity"]["avgDensity"] == pytest.approx(0.3, abs=1e-15)


def test_unmeasured_figures_are_null_not_zero_and_errors_are_skipped():
    error = {"version": "1.0", "evaluatedAt": "x", "error": "not a UISpec", "path": "generatedData"}
    results = aggregate_batch_metrics([trial(), error, None])
    assert results["gvContentRelevance"] == {"avgScore": None, "usefulRate": None, "sampleSize": 0}
    assert results["w2wrSemanticCorrectness"]["correctnessRate"] is None
    assert results["w2wrTypeDistribution"]["flowRate"] is None
    assert results["graphComplexity"]["avgNodeCount"] == 3
    json.dumps(results, allow_nan=False)


def test_nothing_evaluated_gives_null_everywhere():
    results = aggregate_batch_metrics([])
    assert all(
        value is None
        for block in results.values()
        for key, value in block.items()
        if key not in ("sampleSize", "totalBindings")
    )


def test_by_model_counts_trials_evaluated_and_errors_per_config_in_order():
    error = {"version": "1.0", "evaluatedAt": "x", "error": "e", "path": "p"}
    overall, by_model = aggregate_by_model(
        [("B", trial(nodes=4)), ("A", trial(nodes=2)), ("A", None), ("A", error), ("B", trial(nodes=6))]
    )
    assert [(e["modelConfig"], e["trialCount"], e["evaluatedCount"], e["errorCount"]) for e in by_model] == [
        ("A", 3, 1, 1),
        ("B", 2, 2, 0),
    ]
    assert by_model[0]["layer3"]["graphComplexity"]["avgNodeCount"] == 2
    assert by_model[1]["layer3"]["graphComplexity"]["avgNodeCount"] == 5
    assert overall["graphComplexity"]["avgNodeCount"] == 4
