"""The judge calibration report (issue 18) against direct computations: scikit-learn, krippendorff, the engine's
loop reference for Gwet's AC2, and hand-written sums. Pure tests: no database.
"""

import json
import math
import statistics
import subprocess
import sys
import warnings
from pathlib import Path

import krippendorff
import numpy as np
import pytest
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.metrics import cohen_kappa_score, confusion_matrix

from annotation.aggregation.agreement import (
    JUDGE_MISSING,
    JUDGE_SCALE,
    axis_kappa,
    gwet_ac2,
    krippendorff_alpha,
    leave_one_out_kappa,
    pairwise_quadratic_kappa,
)
from annotation.aggregation.agreement.gwet import gwet_weights
from annotation.aggregation.calibration import (
    CONSENSUS_RULE,
    DEFAULT_BASELINE_MODEL,
    calibration_report,
    consensus,
)
from annotation.aggregation.calibration_bootstrap import (
    Resampler,
    ac2_replicates,
    alpha_replicates,
    kappa_replicates,
    pair_terms,
    percentile_interval,
)
from tests.annotation.aggregation.test_agreement import gwet_loop_reference, json_strict

TOL = 1e-9
LABELS = [0, 1, 2]
SCALE = {"categories": JUDGE_SCALE, "missing": JUDGE_MISSING}
ROOT = Path(__file__).resolve().parents[3]
JUDGE_X = ("gpt-x", "layer3.gv_relevance@1")
JUDGE_Y = ("gpt-y", "layer3.gv_relevance@2")
PEOPLE = ["ann_a", "ann_b", "ann_c", "ann_d"]


# ---------------------------------------------------------------- data and references -------------------------


def item(key, score, *, config="cfgA", judge=JUDGE_X, baseline=None, weight=1.0, stratum=None, reasoning="why"):
    return {
        "key": key,
        "trialId": key.split(":")[0],
        "modelConfig": config,
        "judgeModel": judge[0],
        "judgePrompt": judge[1],
        "judgeScore": score,
        "judgeLabel": ["not_relevant", "generic", "useful"][score],
        "judgeReasoning": reasoning,
        "baselineScore": baseline,
        "stratum": list(stratum) if stratum is not None else [config, score],
        "weight": weight,
        "context": {"concern": f"concern of {key}", "text": "<b>generated</b>"},
    }


def audit_facts(kind="gv", design=None, per_item=3):
    return {
        "id": 7,
        "name": "audit",
        "kind": kind,
        "batch": "batch-1",
        "createdAt": "2026-01-02T03:04:05+00:00",
        "perItem": per_item,
        "seed": 11,
        "requestedSize": 48,
        "design": design or {},
    }


def synthetic(seed: int = 0, n_items: int = 48):
    """A partly finished GV audit: two judges, two model configs, 0-4 ratings per item, ties, weights per stratum."""
    rng = np.random.default_rng(seed)
    items, ratings, per_stratum = [], {}, {}
    for i in range(n_items):
        config = "cfgA" if i % 3 else "cfgB"
        judge = JUDGE_Y if i % 6 == 5 else JUDGE_X
        truth = int(rng.choice(3, p=[0.5, 0.3, 0.2]))
        score = truth if rng.random() < 0.75 else int(np.clip(truth + rng.choice([-1, 1]), 0, 2))
        baseline = None if i % 11 == 4 else int(rng.integers(0, 3))
        key = f"t{i:03d}:g{i % 4}"
        items.append(item(key, score, config=config, judge=judge, baseline=baseline))
        per_stratum.setdefault((config, score), []).append(items[-1])
        count = int(rng.choice([0, 1, 2, 3, 4], p=[0.06, 0.08, 0.16, 0.55, 0.15]))
        people = rng.permutation(PEOPLE)[:count]
        ratings[key] = {
            str(p): truth if rng.random() < 0.8 else int(np.clip(truth + rng.choice([-1, 1]), 0, 2)) for p in people
        }
        if i % 10 == 7:  # two people who disagree: no consensus
            ratings[key] = {"ann_b": truth, "ann_d": (truth + 1) % 3}
    strata = []
    for (config, score), members in sorted(per_stratum.items()):
        population = len(members) * (9 if config == "cfgA" else 4) + score
        for member in members:
            member["weight"] = population / len(members)
        strata.append({"stratum": [config, score], "population": population, "sampled": len(members)})
    design = {"strata": strata, "minPerStratum": 2, "judgeRates": {"gpt-x@layer3.gv_relevance@1": 0.21}}
    return audit_facts(design=design), items, {k: v for k, v in ratings.items() if v}


def reference_consensus(scores):
    """The rule written with the statistics module: odd -> median; even -> median only if both middles agree."""
    if not scores:
        return None
    low, high = statistics.median_low(scores), statistics.median_high(scores)
    return low if low == high else None


def sklearn_kappa(a, b) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return float(cohen_kappa_score(a, b, weights="quadratic", labels=LABELS))


def weighted_mean_kappa(pairs) -> float | None:
    """n-weighted mean of the defined sklearn kappas of ``pairs`` [(a, b)] with at least two common items."""
    num = den = 0.0
    for a, b in pairs:
        if len(a) >= 2 and not math.isnan(k := sklearn_kappa(a, b)):
            num, den = num + len(a) * k, den + len(a)
    return num / den if den else None


def human_matrix(items, ratings):
    keys = sorted(i["key"] for i in items)
    people = sorted({p for r in ratings.values() for p in r})
    h = np.full((len(keys), len(people)), JUDGE_MISSING, dtype=np.int64)
    for r, key in enumerate(keys):
        for p, score in ratings.get(key, {}).items():
            h[r, people.index(p)] = score
    return keys, people, h


def close(ours, reference, tol=TOL):
    if reference is None:
        return ours is None
    return ours is not None and abs(ours - reference) <= tol


@pytest.fixture(scope="module")
def data():
    return synthetic()


@pytest.fixture(scope="module")
def report(data):
    return calibration_report(*data, n_boot=200, seed=3)


# ---------------------------------------------------------------- consensus -----------------------------------


@pytest.mark.parametrize(
    ("scores", "expected"),
    [
        ([], None),
        ([1], 1),
        ([0], 0),
        ([1, 1], 1),
        ([0, 2], None),
        ([2, 1], None),
        ([0, 1, 2], 1),
        ([2, 0, 0], 0),
        ([2, 0, 1, 1], 1),
        ([0, 0, 2, 2], None),
        ([0, 1, 2, 2], None),
        ([2, 2, 2, 0], 2),
        ([0, 0, 1, 2, 2], 1),
    ],
)
def test_consensus_is_the_median_and_an_even_count_needs_agreeing_middles(scores, expected):
    assert consensus(scores) == expected == reference_consensus(scores)


def test_items_without_consensus_are_left_out_of_the_consensus_figures_and_counted():
    items = [item(f"t{i}:g", s) for i, s in enumerate([0, 1, 2, 2, 1, 0])]
    ratings = {
        "t0:g": {"a": 0, "b": 0},  # consensus 0
        "t1:g": {"a": 0, "b": 2},  # tie: none
        "t2:g": {"a": 2, "b": 2, "c": 1},  # 2
        "t3:g": {"a": 1, "b": 2},  # tie: none
        "t4:g": {"a": 1},  # 1 (a single rating is its own consensus)
    }  # t5 unrated: no consensus, but not a tie
    result = calibration_report(audit_facts(per_item=2), items, ratings, n_boot=0)
    assert result["audit"]["ratedItems"] == 5 and result["audit"]["noConsensusItems"] == 2
    assert result["audit"]["completeItems"] == 4 and result["audit"]["ratings"] == 10
    judge = result["judges"][0]
    assert judge["n"] == 3
    assert judge["confusion"]["matrix"] == [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
    assert judge["vsConsensus"]["exact"]["value"] == 1.0
    assert result["consensusRule"] == CONSENSUS_RULE and "median" in CONSENSUS_RULE


# ---------------------------------------------------------------- every figure against a direct computation ---


def test_audit_facts_and_scale(data, report):
    audit, items, ratings = data
    facts = report["audit"]
    assert {k: facts[k] for k in audit if k != "design"} == {k: v for k, v in audit.items() if k != "design"}
    counts = [len(ratings.get(i["key"], {})) for i in items]
    assert facts["items"] == len(items)
    assert facts["ratedItems"] == sum(1 for n in counts if n)
    assert facts["completeItems"] == sum(1 for n in counts if n >= 3)
    assert facts["ratings"] == sum(counts)
    assert facts["annotators"] == sorted({p for r in ratings.values() for p in r})
    rated = [i["key"] for i in items if ratings.get(i["key"])]
    assert facts["noConsensusItems"] >= 4
    assert facts["noConsensusItems"] == sum(reference_consensus(list(ratings[k].values())) is None for k in rated)
    assert report["scale"] == [
        {"value": 0, "label": "not_relevant"},
        {"value": 1, "label": "generic"},
        {"value": 2, "label": "useful"},
    ]


def test_human_figures_equal_sklearn_krippendorff_and_gwet(data, report):
    _, items, ratings = data
    _, people, h = human_matrix(items, ratings)
    humans = report["humans"]
    assert humans["n"] == int(((h >= 0).sum(axis=1) >= 2).sum())
    pairs = []
    for a in range(len(people)):
        for b in range(a + 1, len(people)):
            common = (h[:, a] >= 0) & (h[:, b] >= 0)
            pairs.append((h[common, a], h[common, b]))
    assert close(humans["kappa"]["value"], weighted_mean_kappa(pairs))
    data_t = h.T.astype(float)
    data_t[data_t == JUDGE_MISSING] = np.nan
    alpha = krippendorff.alpha(reliability_data=data_t, level_of_measurement="ordinal", value_domain=LABELS)
    assert close(humans["alpha"]["value"], alpha)
    assert close(humans["ac2"]["value"], gwet_loop_reference(h, categories=LABELS, weights="quadratic"))
    agree = total = 0
    for row in h.tolist():
        given = [v for v in row if v >= 0]
        for i in range(len(given)):
            for j in range(i + 1, len(given)):
                agree, total = agree + (given[i] == given[j]), total + 1
    assert close(humans["exact"]["value"], agree / total)
    reported = {tuple(p["annotators"]): p for p in humans["pairs"]}
    for a in range(len(people)):
        for b in range(a + 1, len(people)):
            common = (h[:, a] >= 0) & (h[:, b] >= 0)
            pair = reported[(people[a], people[b])]
            assert pair["n"] == int(common.sum())
            assert close(pair["kappa"]["value"], sklearn_kappa(h[common, a], h[common, b]))
    for stat in [humans[k] for k in ("kappa", "alpha", "ac2", "exact")] + [p["kappa"] for p in humans["pairs"]]:
        low, high = stat["ci"]
        assert low <= stat["value"] <= high


def judge_rows(items, ratings, judge):
    keys, people, h = human_matrix(items, ratings)
    by_key = {i["key"]: i for i in items}
    rows = [r for r, k in enumerate(keys) if (by_key[k]["judgeModel"], by_key[k]["judgePrompt"]) == judge]
    scores = np.array([by_key[keys[r]]["judgeScore"] for r in rows])
    return [by_key[keys[r]] for r in rows], people, h[rows], scores


@pytest.mark.parametrize("judge", [JUDGE_X, JUDGE_Y])
def test_judge_figures_equal_sklearn_and_gwet(data, report, judge):
    _, items, ratings = data
    chosen, people, h, j = judge_rows(items, ratings, judge)
    entry = next(e for e in report["judges"] if (e["model"], e["prompt"]) == judge)
    assert entry["baseline"] is False
    defined = [entry["vsHumans"]["kappa"], *entry["vsConsensus"].values(), *(a["kappa"] for a in entry["vsAnnotators"])]
    assert all(stat["value"] is not None and stat["ci"] is not None for stat in defined)  # nothing compared vacuously

    # vs each human, pooled like the engine's kappa_vs_rest; exact over (judge, rating) pairs
    pairs = [(j[h[:, c] >= 0], h[h[:, c] >= 0, c]) for c in range(len(people))]
    assert close(entry["vsHumans"]["kappa"]["value"], weighted_mean_kappa(pairs))
    equal = sum(int((a == b).sum()) for a, b in pairs)
    assert close(entry["vsHumans"]["exact"]["value"], equal / sum(len(a) for a, _ in pairs))

    # vs the consensus
    agreed = [reference_consensus([v for v in row if v >= 0]) for row in h.tolist()]
    has = np.array([c is not None for c in agreed])
    c = np.array([x for x in agreed if x is not None])
    assert entry["n"] == int(has.sum())
    vs = entry["vsConsensus"]
    assert close(vs["kappa"]["value"], sklearn_kappa(j[has], c))
    assert close(vs["ac2"]["value"], gwet_loop_reference(np.column_stack([j[has], c]), categories=LABELS))
    assert close(vs["exact"]["value"], float(np.mean(j[has] == c)))
    w = np.array([i["weight"] for i in chosen])[has]
    assert close(vs["exactReweighted"]["value"], float(np.sum(w * (j[has] == c)) / np.sum(w)))
    expected = confusion_matrix(j[has], c, labels=LABELS).tolist()
    assert entry["confusion"] == {"rows": "judge", "columns": "consensus", "matrix": expected}

    # vs each annotator who rated one of its items
    listed = {a["annotator"]: a for a in entry["vsAnnotators"]}
    assert sorted(listed) == [p for col, p in enumerate(people) if (h[:, col] >= 0).any()]
    for col, person in enumerate(people):
        common = h[:, col] >= 0
        if not common.any():
            continue
        row = listed[person]
        assert row["n"] == int(common.sum())
        assert close(row["kappa"]["value"], sklearn_kappa(j[common], h[common, col]) if common.sum() >= 2 else None)
        reference_ac2 = gwet_loop_reference(np.column_stack([j[common], h[common, col]]), categories=LABELS)
        assert close(row["ac2"]["value"], reference_ac2)
        assert close(row["exact"]["value"], float(np.mean(j[common] == h[common, col])))


def test_judges_are_listed_most_items_first(data, report):
    _, items, _ = data
    counts = [
        sum((i["judgeModel"], i["judgePrompt"]) == (e["model"], e["prompt"]) for i in items) for e in report["judges"]
    ]
    assert [(e["model"], e["prompt"]) for e in report["judges"]] == [JUDGE_X, JUDGE_Y]
    assert counts == sorted(counts, reverse=True) and sum(counts) == len(items)


def test_baseline_is_the_offline_judge_on_the_items_that_have_its_score(data, report):
    _, items, ratings = data
    keys, _, h = human_matrix(items, ratings)
    by_key = {i["key"]: i for i in items}
    rows = [r for r, k in enumerate(keys) if by_key[k]["baselineScore"] is not None]
    b = np.array([by_key[keys[r]]["baselineScore"] for r in rows])
    agreed = [reference_consensus([v for v in h[r].tolist() if v >= 0]) for r in rows]
    has = np.array([c is not None for c in agreed])
    baseline = report["baseline"]
    assert baseline["model"] == DEFAULT_BASELINE_MODEL and baseline["baseline"] is True
    assert baseline["prompt"] == JUDGE_X[1]  # the question the most of those items were judged on
    assert baseline["n"] == int(has.sum())
    c = np.array([x for x in agreed if x is not None])
    assert close(baseline["vsConsensus"]["kappa"]["value"], sklearn_kappa(b[has], c))
    for d in baseline["disagreements"]:
        assert d["judgeLabel"] == ["not_relevant", "generic", "useful"][d["judgeScore"]] and d["reasoning"] == ""


def test_the_default_baseline_model_is_the_gateways():
    from llm.baseline import BASELINE_MODEL

    assert DEFAULT_BASELINE_MODEL == BASELINE_MODEL


def test_baseline_is_null_when_the_only_judge_is_the_baseline_or_nobody_has_its_score():
    ratings = {"t0:g": {"a": 0, "b": 0}, "t1:g": {"a": 2, "b": 1}, "t2:g": {"a": 2, "b": 2}}
    baseline_judge = (DEFAULT_BASELINE_MODEL, "layer3.gv_relevance@1")
    judged_by_baseline = [item(f"t{i}:g", s, judge=baseline_judge, baseline=s) for i, s in enumerate([0, 2, 2])]
    result = calibration_report(audit_facts(), judged_by_baseline, ratings, n_boot=0)
    assert result["baseline"] is None and result["judges"][0]["baseline"] is True
    without_scores = [item(f"t{i}:g", s) for i, s in enumerate([0, 2, 2])]
    assert calibration_report(audit_facts(), without_scores, ratings, n_boot=0)["baseline"] is None
    with_scores = [item(f"t{i}:g", s, baseline=1) for i, s in enumerate([0, 2, 2])]
    baseline = calibration_report(audit_facts(), with_scores, ratings, n_boot=0)["baseline"]
    assert baseline["confusion"]["matrix"] == [[0, 0, 0], [1, 0, 1], [0, 0, 0]]  # t1 (2, 1) has no consensus


def test_bias_per_model_config_is_judge_minus_consensus():
    items = [
        item("a1:g", 2, config="A"),
        item("a2:g", 1, config="A"),
        item("a3:g", 0, config="A"),
        item("b1:g", 2, config="B"),
        item("b2:g", 2, config="B"),
        item("b3:g", 0, config="B"),  # a tie: no consensus, left out
        item("c1:g", 1, config="C"),  # unrated
    ]
    ratings = {
        "a1:g": {"x": 1, "y": 1, "z": 2},
        "a2:g": {"x": 1},
        "a3:g": {"x": 1, "y": 1},
        "b1:g": {"x": 0, "y": 0, "z": 1},
        "b2:g": {"x": 2, "y": 2},
        "b3:g": {"x": 0, "y": 2},
    }
    result = calibration_report(audit_facts(), items, ratings, n_boot=300, seed=1)
    bias = {row["modelConfig"]: row for row in result["judges"][0]["biasByModelConfig"]}
    assert list(bias) == ["A", "B", "C"]
    assert bias["A"]["n"] == 3 and bias["A"]["meanDifference"] == pytest.approx((1 + 0 - 1) / 3, abs=TOL)
    assert bias["B"]["n"] == 2 and bias["B"]["meanDifference"] == pytest.approx((2 + 0) / 2, abs=TOL)
    assert bias["C"] == {"modelConfig": "C", "n": 0, "meanDifference": None, "ci": None}
    assert bias["A"]["ci"][0] <= 0 <= bias["A"]["ci"][1] and bias["B"]["ci"] == [0.0, 2.0]


def test_disagreements_are_the_items_where_the_judge_differs_from_every_human():
    items = [
        item("t3:g", 2, config="B", reasoning="looks <useful>"),
        item("t1:g", 0),
        item("t2:g", 1),
        item("t0:g", 2),
        item("t4:g", 0),
    ]
    ratings = {
        "t0:g": {"a": 0, "b": 1},  # differs from both
        "t1:g": {"a": 0, "b": 2},  # one agrees
        "t2:g": {"a": 1},  # agrees
        "t3:g": {"b": 0, "a": 1, "c": 0},  # differs from all three
    }  # t4 has no rating: never a disagreement
    result = calibration_report(audit_facts(), items, ratings, n_boot=0)
    listed = result["judges"][0]["disagreements"]
    assert [d["key"] for d in listed] == ["t0:g", "t3:g"]
    assert listed[1] == {
        "key": "t3:g",
        "trialId": "t3",
        "modelConfig": "B",
        "judgeScore": 2,
        "judgeLabel": "useful",
        "reasoning": "looks <useful>",
        "humanScores": [0, 0, 1],
        "context": {"concern": "concern of t3:g", "text": "<b>generated</b>"},
    }


# ---------------------------------------------------------------- the batch rate ------------------------------


def test_the_human_rate_is_the_stratified_mean_of_the_share_of_2s_by_hand():
    strata = [("A", 0, 10, ["a1", "a2"]), ("A", 2, 4, ["b1", "b2"]), ("B", 1, 6, ["c1", "c2", "c3"])]
    items = [
        item(f"{key}:g", score, config=config, weight=population / len(keys), stratum=(config, score))
        for config, score, population, keys in strata
        for key in keys
    ]
    design = {
        "strata": [{"stratum": [c, s], "population": n, "sampled": len(k)} for c, s, n, k in strata],
        "minPerStratum": 2,
        "judgeRates": {"gpt-x@layer3.gv_relevance@1": 0.25},
    }
    ratings = {
        "a1:g": {"x": 0, "y": 2},  # share of 2s: 1/2
        "a2:g": {"x": 0},  # 0
        "b1:g": {"x": 2, "y": 2},  # 1
        "b2:g": {"x": 2, "y": 1, "z": 2},  # 2/3
        "c1:g": {"x": 2},  # 1
        "c2:g": {"x": 1},  # 0; c3 unrated: missing at random in its stratum
    }
    rate = calibration_report(audit_facts(design=design), items, ratings, n_boot=0)["rate"]
    assert rate["name"] == "usefulRate" and rate["value"] == 2
    assert rate["judgeBatch"] == {"gpt-x@layer3.gv_relevance@1": 0.25}
    # Σ_h (N_h/N)·ȳ_h and Σ_h (N_h/N)²(1 - m_h/N_h) s_h²/m_h, N = 20
    value = 10 / 20 * (0.5 + 0) / 2 + 4 / 20 * (1 + 2 / 3) / 2 + 6 / 20 * (1 + 0) / 2
    variance = (
        (10 / 20) ** 2 * (1 - 2 / 10) * statistics.variance([0.5, 0]) / 2
        + (4 / 20) ** 2 * (1 - 2 / 4) * statistics.variance([1, 2 / 3]) / 2
        + (6 / 20) ** 2 * (1 - 2 / 6) * statistics.variance([1, 0]) / 2
    )
    human = rate["human"]
    assert human["n"] == 6 and human["reason"] is None
    assert human["value"] == pytest.approx(value, abs=TOL)
    assert human["se"] == pytest.approx(math.sqrt(variance), abs=TOL)
    half = statistics.NormalDist().inv_cdf(0.975) * math.sqrt(variance)
    assert human["ci"] == pytest.approx([max(0, value - half), min(1, value + half)], abs=TOL)
    # the judge's score is constant in a stratum stratified by it: no sampling error
    assert rate["judgeSample"] == {"value": pytest.approx(4 / 20), "se": 0.0, "ci": [0.2, 0.2], "n": 7, "reason": None}


def test_the_rate_without_a_stored_design_uses_the_items_strata_and_weights():
    items = [
        item(f"t{i}:g", s, weight=w, stratum=("A", s)) for i, (s, w) in enumerate([(0, 3), (0, 3), (2, 1), (2, 1)])
    ]
    ratings = {"t0:g": {"x": 2}, "t1:g": {"x": 0}, "t2:g": {"x": 2}, "t3:g": {"x": 2}}
    rate = calibration_report(audit_facts(kind="w2wr"), items, ratings, n_boot=0)["rate"]
    assert rate["name"] == "correctnessRate" and rate["judgeBatch"] == {}
    assert rate["human"]["value"] == pytest.approx(6 / 8 * 0.5 + 2 / 8 * 1.0)  # populations 6 and 2
    assert rate["judgeSample"]["value"] == pytest.approx(2 / 8)


def test_a_stratum_without_any_rating_leaves_the_human_rate_undefined_with_the_reason():
    items = [item(f"t{i}:g", s, stratum=("A", s), weight=2.0) for i, s in enumerate([0, 0, 2, 2])]
    rate = calibration_report(audit_facts(), items, {"t0:g": {"x": 1}, "t1:g": {"x": 2}}, n_boot=0)["rate"]
    assert rate["human"]["value"] is None and "have no value" in rate["human"]["reason"]
    assert rate["human"]["n"] == 2 and rate["judgeSample"]["value"] == pytest.approx(0.5)


# ---------------------------------------------------------------- intervals and undefined figures -------------


def test_intervals_are_percentiles_of_the_engine_on_the_resampled_items(data):
    """The fast bootstrap equals the engine run on every replicate's items (counts from the same seed)."""
    audit, items, ratings = data
    n_boot, seed = 60, 5
    report = calibration_report(audit, items, ratings, n_boot=n_boot, seed=seed)
    _, _, h = human_matrix(items, ratings)
    several = h[(h >= 0).sum(axis=1) >= 2]
    direct = {"kappa": [], "alpha": []}
    for row in Resampler(n_boot, seed).counts(len(several)).astype(int):
        resampled = np.repeat(several, row, axis=0)
        direct["kappa"].append(axis_kappa(pairwise_quadratic_kappa(resampled, **SCALE))[0])
        direct["alpha"].append(krippendorff_alpha(resampled, level="ordinal", **SCALE)[0])
    _, _, judged_h, j = judge_rows(items, ratings, JUDGE_X)
    columns = np.column_stack([judged_h, j])[(judged_h >= 0).any(axis=1)]
    direct["judge"] = []
    for row in Resampler(n_boot, seed).counts(len(columns)).astype(int):
        resampled = np.repeat(columns, row, axis=0)
        pairwise = pairwise_quadratic_kappa(resampled, **SCALE)
        direct["judge"].append(leave_one_out_kappa(pairwise, resampled.shape[1])[-1][0])
    reported = {
        "kappa": report["humans"]["kappa"],
        "alpha": report["humans"]["alpha"],
        "judge": report["judges"][0]["vsHumans"]["kappa"],
    }
    for name, stat in reported.items():
        values = np.array([np.nan if v is None else v for v in direct[name]])
        expected, _ = percentile_interval(values)
        assert stat["ci"] == pytest.approx(expected, abs=TOL), name


def test_undefined_figures_carry_a_reason_and_no_interval():
    items = [item(f"t{i}:g", 2) for i in range(4)]
    ratings = {f"t{i}:g": {"a": 2, "b": 2} for i in range(4)}  # everyone always says 2
    result = calibration_report(audit_facts(), items, ratings, n_boot=50)
    kappa = result["humans"]["kappa"]
    assert kappa["value"] is None and kappa["ci"] is None and "expected disagreement 0" in kappa["reason"]
    assert result["humans"]["alpha"]["value"] is None and result["humans"]["alpha"]["reason"]
    assert result["humans"]["ac2"]["value"] == 1.0  # AC2 stays defined when everyone agrees
    judge = result["judges"][0]
    assert judge["vsConsensus"]["kappa"]["value"] is None and judge["vsConsensus"]["kappa"]["reason"]
    assert judge["vsConsensus"]["exact"]["value"] == 1.0
    empty = calibration_report(audit_facts(), items, {}, n_boot=50)
    assert empty["humans"]["n"] == 0 and empty["humans"]["kappa"]["reason"]
    vs = empty["judges"][0]["vsConsensus"]
    assert all(vs[k]["value"] is None and vs[k]["reason"] for k in vs)
    assert empty["judges"][0]["vsHumans"]["kappa"]["reason"] == "no item of this judge has a human rating"
    assert empty["rate"]["human"]["value"] is None and empty["rate"]["human"]["n"] == 0
    json_strict(empty)


def test_percentile_interval_drops_undefined_replicates_and_gives_up_past_half():
    values = np.array([0.1, 0.2, np.nan, 0.3, 0.4])
    ci, note = percentile_interval(values)
    assert ci == pytest.approx(np.quantile([0.1, 0.2, 0.3, 0.4], [0.025, 0.975]).tolist())
    assert note == "1 of 5 bootstrap replicates were undefined and dropped"
    ci, reason = percentile_interval(np.array([0.1, np.nan, np.nan]))
    assert ci is None and "more than half" in reason


def test_the_same_seed_gives_the_same_report_and_another_seed_other_intervals(data):
    first = calibration_report(*data, n_boot=100, seed=9)
    assert first == calibration_report(*data, n_boot=100, seed=9)
    other = calibration_report(*data, n_boot=100, seed=10)
    assert other["humans"]["kappa"]["value"] == first["humans"]["kappa"]["value"]
    assert other["humans"]["kappa"]["ci"] != first["humans"]["kappa"]["ci"]
    shuffled = (data[0], list(reversed(data[1])), dict(reversed(list(data[2].items()))))
    assert calibration_report(*shuffled, n_boot=100, seed=9) == first


def test_no_bootstrap_gives_values_without_intervals(data):
    result = calibration_report(*data, n_boot=0)
    assert result["humans"]["kappa"]["value"] is not None and result["humans"]["kappa"]["ci"] is None
    assert all(row["ci"] is None for row in result["judges"][0]["biasByModelConfig"])


def test_the_report_is_strict_json(report):
    json.loads(json_strict(report))
    assert set(report) == {"audit", "scale", "consensusRule", "humans", "judges", "baseline", "rate"}
    judge = report["judges"][0]
    assert set(judge) == {
        "model", "prompt", "baseline", "n", "vsHumans", "vsConsensus", "vsAnnotators", "confusion",
        "biasByModelConfig", "disagreements",
    }  # fmt: skip
    assert set(judge["vsConsensus"]) == {"kappa", "ac2", "exact", "exactReweighted"}
    assert set(report["rate"]) == {"name", "value", "judgeBatch", "judgeSample", "human"}
    assert set(report["rate"]["human"]) == {"value", "se", "ci", "n", "reason"}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda a, i, r: a.update(kind="other"), "audit kind 'other': accepted gv, w2wr"),
        (lambda a, i, r: i[0].update(judgeScore=3), r"judgeScore must be 0, 1 or 2; got 3"),
        (lambda a, i, r: i[0].update(baselineScore=-1), r"baselineScore must be 0, 1 or 2; got -1"),
        (lambda a, i, r: r.update({"nope:g": {"x": 1}}), r"ratings of 1 item\(s\) not in the audit, e.g. \['nope:g'\]"),
        (lambda a, i, r: r["t0:g"].update(x=True), r"ratings\['t0:g'\]\['x'\] must be 0, 1 or 2; got True"),
        (lambda a, i, r: i.append(dict(i[0])), r"1 duplicate item key\(s\), e.g. \['t0:g'\]"),
    ],
)
def test_bad_input_is_refused_with_what_was_given(change, message):
    audit, items, ratings = audit_facts(), [item("t0:g", 1), item("t1:g", 2)], {"t0:g": {"x": 1}}
    change(audit, items, ratings)
    with pytest.raises(ValueError, match=message):
        calibration_report(audit, items, ratings, n_boot=0)


# ---------------------------------------------------------------- the vectorised bootstrap ---------------------


@pytest.mark.parametrize("seed", range(4))
def test_replicate_formulas_equal_the_engine_on_the_repeated_items(seed):
    rng = np.random.default_rng(seed)
    _, items, ratings = synthetic(seed=seed, n_items=30)
    _, _, h = human_matrix(items, ratings)
    judge = np.array([i["judgeScore"] for i in sorted(items, key=lambda i: i["key"])])
    counts = np.vstack([np.ones(len(h)), rng.integers(0, 3, size=(5, len(h)))]).astype(float)
    pairs = [(a, b) for a in range(h.shape[1]) for b in range(a + 1, h.shape[1])]
    terms = np.stack([pair_terms(h[:, a], h[:, b]) for a, b in pairs])
    kappas = kappa_replicates(counts, terms)
    alphas = alpha_replicates(counts, h, 3)
    ac2s = ac2_replicates(counts, h, gwet_weights(JUDGE_SCALE, "quadratic"))
    judge_terms = pair_terms(judge, h[:, 0])[None]
    judge_kappas = kappa_replicates(counts, judge_terms)
    for r, row in enumerate(counts.astype(int)):
        repeated = np.repeat(h, row, axis=0)
        for ours, (reference, _) in (
            (kappas[r], axis_kappa(pairwise_quadratic_kappa(repeated, **SCALE))),
            (alphas[r], krippendorff_alpha(repeated, level="ordinal", **SCALE)),
            (ac2s[r], gwet_ac2(repeated, **SCALE, weights="quadratic")),
        ):
            assert close(None if np.isnan(ours) else float(ours), reference)
        both = np.repeat(np.column_stack([judge, h[:, 0]]), row, axis=0)
        reference = pairwise_quadratic_kappa(both, **SCALE).kappa
        assert close(None if np.isnan(judge_kappas[r]) else float(judge_kappas[r]), float(reference[0]))


def test_the_resampler_draws_n_items_per_replicate_reproducibly():
    counts = Resampler(30, seed=4).counts(17)
    assert counts.shape == (30, 17) and (counts.sum(axis=1) == 17).all()
    np.testing.assert_array_equal(counts, Resampler(30, seed=4).counts(17))
    assert not np.array_equal(counts, Resampler(30, seed=5).counts(17))
    with pytest.raises(ValueError, match="n_boot must be a non-negative integer"):
        Resampler(-1, seed=0)


def test_the_calibration_modules_load_no_framework():
    check = (
        "import sys\nfrom annotation.aggregation.calibration import calibration_report\n"
        "calibration_report({'kind': 'gv'}, [], {}, n_boot=5)\n"
        "print(','.join(sorted(n for n in sys.modules if n.split('.')[0] in ('django', 'rest_framework', 'celery', "
        "'sklearn'))))\n"
    )
    result = subprocess.run([sys.executable, "-c", check], cwd=ROOT, capture_output=True, text=True, check=True)
    assert result.stdout.strip() == ""
