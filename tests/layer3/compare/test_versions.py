"""compare_versions: paired tests per model config × metric, judges respected, the family stated."""

import math

from layer3.statistics.versions import ConfigVersions, TrialVersion, changed_trials, compare_versions, sort_changed

BASELINE = {"kind": "baseline", "model": "baseline-tfidf@1", "prompt": "layer3.gv_relevance@1"}
GPT = {"kind": "llm", "model": "gpt-4o", "prompt": "layer3.gv_relevance@1"}


def metrics(nodes, scores, judge=BASELINE, flows=("flow", "meta")):
    items = [{"widgetId": "w1", "portId": "p", "itemId": f"i{k}", "text": f"t{k}", "score": s,
              "label": ["notRelevant", "generic", "useful"][s]} for k, s in enumerate(scores)]  # fmt: skip
    classes = [{"bindingId": f"b{k}", "source": "w1.a", "target": f"w{k}.b", "type": t} for k, t in enumerate(flows)]
    dist = {kind: sum(t == kind for t in flows) for kind in ("flow", "meta", "sync")}
    return {
        "graphComplexity": {"nodeCount": nodes, "edgeCount": 1, "density": 0.5},
        "widgetDiversity": {"entropy": 1.0},
        "w2wrTypeDistribution": {"totalBindings": len(flows), "distribution": {**dist, "unknown": 0},
                                 "bindingClassifications": classes},
        "generatedValueRelevance": {
            "totalItems": len(scores), "evaluatedItems": len(scores),
            "distribution": {"useful": scores.count(2), "generic": scores.count(1), "notRelevant": scores.count(0)},
            "avgScore": sum(scores) / len(scores), "judge": judge, "itemEvaluations": items,
        },
    }  # fmt: skip


def pair(k, a, b):
    return (TrialVersion(f"t{k}", k, "A", a), TrialVersion(f"t{k}", k, "A", b))


def rows_of(result):
    return {row["metric"]: row for row in result["rows"]}


def test_a_judged_metric_of_two_different_judges_is_null_with_the_reason():
    group = ConfigVersions(pairs=[pair(k, metrics(3, [2, 1]), metrics(4, [2, 2], judge=GPT)) for k in range(4)])
    rows = rows_of(compare_versions({"A": group}))
    for metric in ("GV_CR", "GV_UR"):
        row = rows[metric]
        assert (row["statistic"], row["pValue"], row["adjustedPValue"], row["significant"]) == (None, None, None, False)
        assert row["reasonCode"] == "different_judges"
        assert row["reasonParams"]["judgeB"] == "llm:gpt-4o:layer3.gv_relevance@1"
        assert "figures of different judges are not compared" in row["reason"]
        assert row["valueA"] is not None and row["valueB"] is not None
    assert rows["GC_NC"]["test"] == "wilcoxon_signed_rank" and rows["GC_NC"]["pValue"] is not None


def test_mixed_judges_on_one_side_are_refused():
    group = ConfigVersions(pairs=[pair(0, metrics(3, [2]), metrics(3, [2])),
                                  pair(1, metrics(3, [1]), metrics(3, [2], judge=GPT))])  # fmt: skip
    row = rows_of(compare_versions({"A": group}))["GV_UR"]
    assert row["reasonCode"] == "mixed_judges" and row["reasonParams"]["model"] == "B"


def test_items_found_in_both_versions_are_tested_with_mcnemar():
    group = ConfigVersions(pairs=[pair(k, metrics(3, [1, 1, 2]), metrics(3, [2, 2, 2])) for k in range(5)])
    row = rows_of(compare_versions({"A": group}))["GV_UR"]
    assert (row["test"], row["discordantAOnly"], row["discordantBOnly"], row["nA"]) == ("mcnemar_exact", 0, 10, 15)
    assert math.isclose(row["valueA"], 5 / 15) and math.isclose(row["difference"], 10 / 15)
    assert math.isclose(row["pValue"], 2 * 0.5**10)
    assert math.isclose(row["adjustedPValue"], min(1.0, row["pValue"] * 11))


def test_a_config_without_pairs_is_compared_unpaired_with_the_section_7_tests():
    a = [TrialVersion(f"a{k}", k, "A", metrics(3 + k, [2])) for k in range(4)]
    b = [TrialVersion(f"b{k}", 10 + k, "A", metrics(6 + k, [1])) for k in range(4)]
    rows = rows_of(compare_versions({"A": ConfigVersions(only_a=a, only_b=b)}))
    assert (rows["GC_NC"]["pairing"], rows["GC_NC"]["test"]) == ("unpaired", "mann_whitney_u")
    assert (rows["GV_UR"]["pairing"], rows["GV_UR"]["test"]) == ("unpaired", "two_proportion_z")
    assert rows["GC_NC"]["difference"] == 3.0


def test_the_family_is_every_metric_of_every_config_and_bonferroni_states_alpha_prime():
    groups = {c: ConfigVersions(pairs=[pair(k, metrics(3, [2]), metrics(3 + k, [2])) for k in range(3)]) for c in "AB"}
    summary = compare_versions(groups)["summary"]
    assert (summary["familySize"], summary["correction"]) == (22, "bonferroni")
    assert summary["adjustedAlpha"] == 0.05 / 22 and summary["mcnemarExactBelow"] == 25


def test_changed_trials_list_figures_and_verdicts_that_moved_and_sort():
    group = ConfigVersions(
        pairs=[pair(0, metrics(3, [2, 1]), metrics(5, [1, 2])), pair(1, metrics(3, [2]), metrics(3, [2]))]
    )
    changed = changed_trials({"A": group})
    assert {(row["trialA"], row["metric"]) for row in changed} == {("t0", "GC_NC"), ("t0", "GV_UR")}
    gv = next(row for row in changed if row["metric"] == "GV_UR")
    assert (gv["difference"], gv["changedItems"]) == (0.0, 2)  # same rate, two verdicts swapped
    assert [row["metric"] for row in sort_changed(changed, "delta")] == ["GC_NC", "GV_UR"]
    assert [row["metric"] for row in sort_changed(changed, "metric")] == ["GV_UR", "GC_NC"]
