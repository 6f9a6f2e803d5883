"""Batch aggregation (BatchLayer3Results): one unit of averaging per metric, one judge per figure, None for no data."""

import json

import pytest

from layer3.metrics.batch import aggregate_by_model

LLM_GV = {"kind": "llm", "model": "gpt-4o", "prompt": "layer3.gv_relevance@1"}
BASE_GV = {"kind": "baseline", "model": "baseline-tfidf@1", "prompt": "layer3.gv_relevance@1"}
LLM_LABEL = "llm:gpt-4o:layer3.gv_relevance@1"
BASE_LABEL = "baseline:baseline-tfidf@1:layer3.gv_relevance@1"


def trial(
    *,
    gv=None,
    sc=None,
    gv_judge=LLM_GV,
    sc_judge=None,
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
        n = wrong + generic + useful
        metrics["generatedValueRelevance"] = {
            "totalItems": n,
            "evaluatedItems": n,
            "distribution": {"notRelevant": wrong, "generic": generic, "useful": useful},
            "avgScore": (generic + 2 * useful) / n if n else None,
            "usefulRate": useful / n if n else None,
            "judge": gv_judge,
        }
    if sc is not None:
        wrong, redundant, correct = sc
        n = wrong + redundant + correct
        metrics["w2wrSemanticCorrectness"] = {
            "evaluatedBindings": n,
            "distribution": {"correct": correct, "redundant": redundant, "wrong": wrong},
            "avgScore": (redundant + 2 * correct) / n if n else None,
            "correctnessRate": correct / n if n else None,
            "judge": sc_judge or {**LLM_GV, "prompt": "layer3.w2wr_semantic@1"},
        }
    return metrics


def aggregate_batch_metrics(metrics):
    """The overall figures of trials all of one model config."""
    return aggregate_by_model(("A", value) for value in metrics)[0]


def test_mean_scores_are_trial_means_and_rates_pool_the_items():
    # trial 1: scores 0, 2, 2 (mean 4/3); trial 2: score 1 -> GV_CR = (4/3 + 1) / 2, the unit Mann-Whitney
    # compares; GV_UR pools the four items: 2 useful of 4, the unit the z-test compares
    results = aggregate_batch_metrics([trial(gv=(1, 0, 2)), trial(gv=(0, 1, 0))])
    gv = results["gvContentRelevance"]
    assert gv["avgScore"] == (4 / 3 + 1) / 2
    assert (gv["usefulRate"], gv["sampleSize"], gv["trialCount"]) == (0.5, 4, 2)
    assert (gv["judge"], gv["judges"], gv["reason"]) == (LLM_LABEL, [LLM_LABEL], None)
    assert gv["byJudge"] == [{"judge": LLM_LABEL, "avgScore": gv["avgScore"], "usefulRate": 0.5, "sampleSize": 4,
                              "trialCount": 2}]  # fmt: skip


def test_a_trial_without_judged_items_adds_no_score_even_from_an_old_stored_zero():
    empty = trial(gv=(0, 0, 0))
    old = trial(gv=(0, 0, 0))
    old["generatedValueRelevance"].update(avgScore=0, usefulRate=0)  # the seed's `|| 1` guard, stored before
    gv = aggregate_batch_metrics([trial(gv=(0, 0, 2)), empty, old])["gvContentRelevance"]
    assert (gv["avgScore"], gv["usefulRate"], gv["sampleSize"], gv["trialCount"]) == (2.0, 1.0, 2, 1)


def test_figures_of_two_judges_are_never_pooled_but_given_per_judge():
    results = aggregate_batch_metrics(
        [trial(gv=(0, 0, 2)), trial(gv=(2, 0, 0), gv_judge=BASE_GV), trial(gv=(0, 1, 1), gv_judge=BASE_GV)]
    )
    gv = results["gvContentRelevance"]
    assert (gv["avgScore"], gv["usefulRate"], gv["judge"]) == (None, None, None)
    assert gv["judges"] == [BASE_LABEL, LLM_LABEL] and (gv["sampleSize"], gv["trialCount"]) == (6, 3)
    assert BASE_LABEL in gv["reason"] and LLM_LABEL in gv["reason"] and "2 trials" in gv["reason"]
    by_judge = {entry["judge"]: entry for entry in gv["byJudge"]}
    assert (by_judge[LLM_LABEL]["usefulRate"], by_judge[LLM_LABEL]["trialCount"]) == (1.0, 1)
    assert by_judge[BASE_LABEL]["usefulRate"] == 1 / 4 and by_judge[BASE_LABEL]["avgScore"] == (0 + 1.5) / 2


def test_per_model_entries_name_their_judge_and_the_overall_refuses_a_blend():
    overall, by_model = aggregate_by_model([("A", trial(gv=(0, 0, 2))), ("B", trial(gv=(0, 1, 1), gv_judge=BASE_GV))])
    assert [entry["judge"] for entry in by_model] == [{"gv": LLM_LABEL, "w2wr": None}, {"gv": BASE_LABEL, "w2wr": None}]
    assert by_model[0]["layer3"]["gvContentRelevance"]["usefulRate"] == 1.0
    assert overall["gvContentRelevance"]["usefulRate"] is None and overall["gvContentRelevance"]["reason"]


def test_a_block_stored_without_a_judge_counts_as_an_unrecorded_judge_of_its_own():
    legacy = trial(gv=(0, 0, 2))
    del legacy["generatedValueRelevance"]["judge"]
    gv = aggregate_batch_metrics([legacy, trial(gv=(0, 0, 2))])["gvContentRelevance"]
    assert gv["judges"] == [LLM_LABEL, "unrecorded"] and gv["usefulRate"] is None


def test_types_outside_the_catalogue_are_counted_per_batch():
    inside = trial()
    inside["widgetDiversity"].update(availableWidgetCount=15, outOfCatalogue=[], widgetCounts={"a": 2})
    outside = trial()
    outside["widgetDiversity"].update(availableWidgetCount=15, outOfCatalogue=["x"], widgetCounts={"a": 1, "x": 3})
    diversity = aggregate_batch_metrics([inside, outside, outside])["widgetDiversity"]
    assert diversity["availableWidgetCount"] == 15
    assert diversity["outOfCatalogue"] == {"trials": 2, "types": {"x": 6}}


def test_trials_normalised_by_different_widget_counts_have_no_one_available_widget_count():
    first, second = trial(), trial()
    first["widgetDiversity"].update(availableWidgetCount=15)
    second["widgetDiversity"].update(availableWidgetCount=17)
    assert aggregate_batch_metrics([first, second])["widgetDiversity"]["availableWidgetCount"] is None


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
    assert results["gvContentRelevance"] == {
        "avgScore": None,
        "usefulRate": None,
        "sampleSize": 0,
        "trialCount": 0,
        "judge": None,
        "judges": [],
        "byJudge": [],
        "reason": None,
    }
    assert results["w2wrSemanticCorrectness"]["correctnessRate"] is None
    assert results["w2wrTypeDistribution"]["flowRate"] is None
    assert results["graphComplexity"]["avgNodeCount"] == 3
    json.dumps(results, allow_nan=False)


def test_nothing_evaluated_gives_null_everywhere():
    results = aggregate_batch_metrics([])
    counts = ("sampleSize", "totalBindings", "trialCount", "judges", "byJudge", "outOfCatalogue")
    assert all(value is None for block in results.values() for key, value in block.items() if key not in counts)


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
