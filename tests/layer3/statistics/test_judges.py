"""Judges: model_samples reads who judged each block; judged metrics are only compared under one judge."""

import json

import pytest

from layer3.metrics.provenance import UNRECORDED
from layer3.statistics import compare_model_configs, model_samples
from tests.layer3.statistics.trials import error_trial, judge_label, layer3_trial

GPT = judge_label("gpt-4o", "llm", "gv")
GPT_W2WR = judge_label("gpt-4o", "llm", "w2wr")
BASELINE = judge_label("baseline-tfidf@1", "baseline", "gv")
BASELINE_W2WR = judge_label("baseline-tfidf@1", "baseline", "w2wr")
JUDGED = ("GV_CR", "GV_UR", "W2WR_SC", "W2WR_CR")
AUTOMATIC = ("W2WR_FR", "W2WR_MR", "W2WR_SYR", "WS_ENT", "GC_NC", "GC_EC", "GC_DEN")


def judged_trials(n=8, judge="gpt-4o", kind="llm", shift=0):
    return [
        layer3_trial(
            gv=[(i + shift) % 3, 2, i % 2],
            types=["flow", "meta", "sync"][: 1 + (i + shift) % 3],
            sc=[2, (i + shift) % 3],
            widgets=["a", "b", "c"][: 1 + i % 3],
            graph=(2 + i, i + shift),
            judge=judge,
            judge_kind=kind,
        )
        for i in range(n)
    ]


def rows_of(result):
    return {(row["metric"], row["modelA"], row["modelB"]): row for row in result["layer3Comparisons"]}


def test_model_samples_reads_the_judge_of_each_judged_block():
    trials = [
        *judged_trials(3),
        *judged_trials(2, "baseline-tfidf@1", "baseline"),
        layer3_trial(gv=[], sc=[], judge="gemma2:27b"),  # no judged item: no data, no judge
        layer3_trial(gv=[1], sc=[], judge="gemma2:27b"),  # a judged item, but no judged binding
        layer3_trial(types=["flow"]),  # not judged at all
        error_trial(),
    ]
    samples = model_samples(trials)
    gemma = judge_label("gemma2:27b", "llm", "gv")
    assert samples.judges == {"gv": (BASELINE, gemma, GPT), "w2wr": (BASELINE_W2WR, GPT_W2WR)}
    assert samples.judge_trials == {"gv": {GPT: 3, BASELINE: 2, gemma: 1}, "w2wr": {GPT_W2WR: 3, BASELINE_W2WR: 2}}
    assert samples.judge("gv") is None and samples.judge("w2wr") is None  # more than one each
    assert samples.values["GV_CR"].size == sum(samples.judge_trials["gv"].values())
    assert samples.values["W2WR_SC"].size == sum(samples.judge_trials["w2wr"].values())


def test_one_judge_is_the_models_judge():
    samples = model_samples(judged_trials(4))
    assert samples.judges == {"gv": (GPT,), "w2wr": (GPT_W2WR,)}
    assert samples.judge("gv") == GPT and samples.judge("w2wr") == GPT_W2WR
    assert samples.metric_judges("GV_UR") == (GPT,) and samples.metric_judges("W2WR_CR") == (GPT_W2WR,)
    assert samples.metric_judges("GC_NC") == ()


def test_a_block_without_judged_items_and_a_null_average_does_not_raise():
    trial = {
        "generatedValueRelevance": {
            "totalItems": 3,
            "evaluatedItems": 0,
            "distribution": {"notRelevant": 0, "generic": 0, "useful": 0},
            "avgScore": None,
            "usefulRate": None,
            "judge": {"kind": "llm", "model": "gpt-4o", "prompt": "layer3.gv_relevance@1"},
        },
        "w2wrSemanticCorrectness": {
            "evaluatedBindings": 0,
            "distribution": {"correct": 0, "redundant": 0, "wrong": 0},
            "avgScore": None,
            "correctnessRate": None,
        },
    }
    samples = model_samples([trial])
    assert samples.values["GV_CR"].size == samples.values["W2WR_SC"].size == 0
    assert samples.counts["GV_UR"].n == samples.counts["W2WR_CR"].n == 0
    assert samples.judges == {"gv": (), "w2wr": ()}
    assert samples.judge_trials == {"gv": {}, "w2wr": {}}


def test_blocks_without_a_judge_record_read_as_unrecorded():
    samples = model_samples([layer3_trial(gv=[2, 1], sc=[0], legacy=True), layer3_trial(gv=[], legacy=True)])
    assert samples.judges == {"gv": (UNRECORDED,), "w2wr": (UNRECORDED,)}
    assert samples.judge_trials == {"gv": {UNRECORDED: 1}, "w2wr": {UNRECORDED: 1}}


def test_different_judges_are_refused_naming_both_and_automatic_metrics_still_compared():
    result = compare_model_configs(
        {"A": judged_trials(), "B": judged_trials(shift=1, judge="baseline-tfidf@1", kind="baseline")}
    )
    json.dumps(result, allow_nan=False)
    rows = rows_of(result)
    for metric in JUDGED:
        row = rows[metric, "A", "B"]
        group_a, group_b = (GPT, BASELINE) if metric.startswith("GV") else (GPT_W2WR, BASELINE_W2WR)
        assert row["reason"] == (
            f"model A was judged by {group_a} and model B by {group_b}; figures of different judges are not compared"
        )
        assert row["reasonCode"] == "different_judges"
        assert row["reasonParams"] == {"modelA": "A", "modelB": "B", "judgeA": group_a, "judgeB": group_b}
        assert (row["judgeA"], row["judgeB"]) == (group_a, group_b)
        for key in ("statistic", "pValue", "adjustedPValue", "effectSize", "effectMagnitude", "difference", "zCi"):
            assert row[key] is None
        assert row["clusterBootstrapCi"] is row["designEffect"] is row["clusterBootstrapReplicates"] is None
        assert row["significant"] is False and row["mark"] == ""
        assert row["valueA"] is not None and row["valueB"] is not None  # each model's own figure is shown
        assert row["nA"] > 0 and row["nB"] > 0
    for metric in AUTOMATIC:
        row = rows[metric, "A", "B"]
        assert row["judgeA"] is row["judgeB"] is None
        assert row["reasonCode"] is None and row["pValue"] is not None
    assert result["summary"]["performedTests"] == len(AUTOMATIC)
    assert result["summary"]["familySize"] == 11


def test_a_model_with_two_judges_is_refused_listing_them():
    mixed = judged_trials(4) + judged_trials(3, "baseline-tfidf@1", "baseline")
    result = compare_model_configs({"A": judged_trials(shift=2), "B": mixed, "C": judged_trials(shift=1)})
    rows = rows_of(result)
    for metric in JUDGED:
        judges = [BASELINE, GPT] if metric.startswith("GV") else [BASELINE_W2WR, GPT_W2WR]
        for pair in (("A", "B"), ("B", "C")):
            row = rows[(metric, *pair)]
            assert row["reasonCode"] == "mixed_judges"
            assert row["reasonParams"] == {"model": "B", "judges": judges}
            assert row["reason"] == (
                f"model B was judged by 2 judges ({judges[0]}, {judges[1]}); "
                "figures of different judges are not compared"
            )
            assert row["pValue"] is None and row["difference"] is None
            mixed_side = "valueA" if pair[0] == "B" else "valueB"
            assert row[mixed_side] is None  # never a blend of two judges
            assert row["judgeA" if pair[0] == "B" else "judgeB"] is None
        same = rows[metric, "A", "C"]  # both judged by gpt-4o alone
        assert same["reasonCode"] is None and same["pValue"] is not None
        assert same["judgeA"] == same["judgeB"] == judges[1]
    for metric in AUTOMATIC:
        assert rows[metric, "A", "B"]["reasonCode"] is None


def test_the_same_judge_is_compared_whatever_else_differs():
    result = compare_model_configs({"A": judged_trials(), "B": judged_trials(shift=1)})
    rows = rows_of(result)
    for metric in JUDGED:
        assert rows[metric, "A", "B"]["pValue"] is not None
    assert result["summary"]["performedTests"] == 11


def test_a_model_without_judged_data_is_an_empty_group_not_a_judge_conflict():
    unjudged = [layer3_trial(types=["flow", "meta"], widgets=["a"], graph=(3, 1)) for _ in range(4)]
    rows = rows_of(compare_model_configs({"A": judged_trials(), "B": unjudged}))
    row = rows["GV_UR", "A", "B"]
    assert row["reasonCode"] == "empty_group"
    assert (row["judgeA"], row["judgeB"]) == (GPT, None)
    assert rows["GV_CR", "A", "B"]["reasonParams"] == {"models": ["B"], "metric": "GV_CR", "unit": "trials"}


@pytest.mark.parametrize("legacy_side", ["A", "B"])
def test_unrecorded_judges_are_not_compared_with_recorded_ones(legacy_side):
    legacy = [layer3_trial(gv=[2, 1, i % 3], sc=[2, i % 3], legacy=True) for i in range(6)]
    configs = {"A": judged_trials(), "B": judged_trials(shift=1)}
    configs[legacy_side] = legacy
    row = rows_of(compare_model_configs(configs))["GV_UR", "A", "B"]
    assert row["reasonCode"] == "different_judges"
    assert UNRECORDED in (row["reasonParams"]["judgeA"], row["reasonParams"]["judgeB"])
