"""The calibration report of a judge audit (issue 18): does the LLM judge agree with people as well as people agree
with each other? Pure: no Django; the selector ``annotation.audits.calibration`` feeds it from the database.

An audit is a stratified sample of a Layer3 batch's judged units (GV items or W2WR bindings), each rated 0..2
by a few people (``categories=JUDGE_SCALE, missing=JUDGE_MISSING`` for the agreement engine). The report puts
beside each other, with 95% intervals:

* **humans**: the people among themselves: quadratic weighted kappa (the engine's n-weighted mean of the
  pair kappas, each equal to ``sklearn.metrics.cohen_kappa_score(a, b, weights="quadratic",
  labels=[0, 1, 2])``), ordinal Krippendorff alpha (``krippendorff.alpha(..., level_of_measurement="ordinal",
  value_domain=[0, 1, 2])``), quadratic Gwet AC2, exact agreement over all pairs of ratings of an item, and
  the kappa of every pair of people;
* **judges**, one per (judge model, prompt version) in the items, most items first: the judge as one more
  rater beside the people (``vsHumans``: its kappa with each person, n-weighted like the engine's
  ``kappa_vs_rest``, the like-for-like figure for ``humans.kappa``; exact = the share of (judge, human
  rating) pairs that are equal), the judge against the human consensus (kappa, AC2, exact, and exact
  agreement weighted by the design weights, i.e. for the batch), against each person, the 3x3 confusion
  matrix (rows judge, columns consensus), its bias (judge minus consensus) per model config and the items
  where it differs from every person (with its reasoning, for prompt revision);
* **baseline**: the offline baseline judge's scores on the same items, as a floor (null when no item has
  one, or when the only judge is the baseline itself);
* **rate**: the batch's GV useful rate or W2WR correctness rate (score 2) as the judge measured it on the
  whole batch, beside its stratified re-estimates from the sample, from the judge's scores and from the
  people's (:mod:`annotation.aggregation.calibration_rate`).

Consensus (:func:`consensus`, :data:`CONSENSUS_RULE`): the median of an item's ratings when their number is
odd (one rating is its own consensus); when it is even, the median only if the two middle ratings are equal
(3 people: 0, 1, 1 -> 1; 2 people: 1, 1 -> 1 but 1, 2 -> none; 4 people: 0, 1, 1, 2 -> 1 but 0, 0, 2, 2 ->
none). An item without consensus is left out of every vs-consensus figure and counted in
``audit.noConsensusItems``. No half scores: the consensus stays on the 0..2 scale that kappa needs.

Values come from the agreement engine (its reference tests hold them to scikit-learn and krippendorff).
Intervals: a percentile bootstrap over the items each statistic is computed on (``n_boot`` replicates from
``numpy.random.default_rng(seed)``, see :mod:`annotation.aggregation.calibration_bootstrap`); undefined
replicates are dropped, and more than half undefined leaves ``ci`` null with the reason. ``n_boot=0``
skips the intervals. A statistic that is undefined has ``value`` null and says why in ``reason``; a
bias has an interval from two items on.

The report is strict JSON (no NaN, no numpy types), camelCase, in this shape (``core.judge_audits`` hands it
to Layer3, whose batch page, exports and API render it; a change here is a change of a public interface)::

    {"audit": {"id", "name", "kind", "batch", "createdAt", "perItem", "seed", "requestedSize", "items",
               "ratedItems", "completeItems", "noConsensusItems", "ratings", "annotators": [...]},
     "scale": [{"value": 0, "label": ...}, ...], "consensusRule": str,
     "humans": {"n", "kappa": STAT, "alpha": STAT, "ac2": STAT, "exact": STAT,
                "pairs": [{"annotators": [a, b], "n", "kappa": STAT}]},
     "judges": [JUDGE, ...], "baseline": JUDGE | None,
     "rate": {"name", "value": 2, "judgeBatch": {"<model>@<prompt>": float}, "judgeSample": EST, "human": EST}}
    JUDGE = {"model", "prompt", "baseline": bool, "n",
             "vsHumans": {"kappa", "exact"}, "vsConsensus": {"kappa", "ac2", "exact", "exactReweighted"},
             "vsAnnotators": [{"annotator", "n", "kappa", "ac2", "exact"}],
             "confusion": {"rows": "judge", "columns": "consensus", "matrix": 3x3 ints},
             "biasByModelConfig": [{"modelConfig", "n", "meanDifference", "ci"}],
             "disagreements": [{"key", "trialId", "modelConfig", "judgeScore", "judgeLabel", "reasoning",
                                "humanScores", "context"}]}
    STAT = {"value": float | None, "ci": [low, high] | None, "reason": str | None}
    EST = {"value": float | None, "se": float | None, "ci": [low, high] | None, "n": int, "reason": str | None}
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from numbers import Integral
from typing import Any

import numpy as np

from annotation.aggregation.agreement import (
    JUDGE_MISSING,
    JUDGE_SCALE,
    Result,
    axis_kappa,
    gwet_ac2,
    krippendorff_alpha,
    leave_one_out_kappa,
    pairwise_agreement,
    pairwise_quadratic_kappa,
)
from annotation.aggregation.agreement.gwet import gwet_weights
from annotation.aggregation.calibration_bootstrap import (
    Resampler,
    ac2_replicates,
    alpha_replicates,
    kappa_replicates,
    pair_terms,
    percentile_interval,
    ratio_replicates,
)
from annotation.aggregation.calibration_rate import rate_section
from annotation.audits.sampling import weighted_proportion

SCALE = {"categories": JUDGE_SCALE, "missing": JUDGE_MISSING}
K = len(JUDGE_SCALE)
AC2_WEIGHTS = gwet_weights(JUDGE_SCALE, "quadratic")
SCALE_LABELS = {"gv": ("not_relevant", "generic", "useful"), "w2wr": ("wrong", "redundant", "correct")}
# llm.baseline.BASELINE_MODEL (a test keeps them equal): importing it here would load scikit-learn.
DEFAULT_BASELINE_MODEL = "baseline-tfidf@1"
CONSENSUS_RULE = (
    "An item's human consensus is the median of its ratings when their number is odd (a single rating is its "
    "own consensus) and, when it is even, the median only if the two middle ratings are equal; otherwise (two "
    "middle ratings that differ, or no rating at all) the item has no consensus and is left out of every "
    "comparison with the consensus."
)
NO_CONSENSUS = -1

Replicates = Callable[[np.ndarray], np.ndarray]


def consensus(scores: Sequence[int]) -> int | None:
    """The human consensus of one item's ratings, or None (see :data:`CONSENSUS_RULE`)."""
    ordered = sorted(scores)
    middle = len(ordered) // 2
    if not ordered:
        return None
    if len(ordered) % 2:
        return ordered[middle]
    return ordered[middle] if ordered[middle - 1] == ordered[middle] else None


def _score(where: str, value: object, *, optional: bool = False) -> int | None:
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, Integral) or value not in JUDGE_SCALE:
        raise ValueError(f"{where} must be 0, 1 or 2; got {value!r}")
    return int(value)


def _checked(audit: Mapping, items: Sequence[Mapping], ratings: Mapping[str, Mapping[str, int]]) -> list[Mapping]:
    """The items sorted by key, after checking the kind, the scores and that every rating is of an item."""
    if audit.get("kind") not in SCALE_LABELS:
        raise ValueError(f"audit kind {audit.get('kind')!r}: accepted {', '.join(SCALE_LABELS)}")
    keys = Counter(item["key"] for item in items)
    duplicates = sorted(key for key, count in keys.items() if count > 1)
    if duplicates:
        raise ValueError(f"{len(duplicates)} duplicate item key(s), e.g. {duplicates[:5]!r}")
    for item in items:
        _score(f"items[{item['key']!r}].judgeScore", item["judgeScore"])
        _score(f"items[{item['key']!r}].baselineScore", item.get("baselineScore"), optional=True)
    unknown = sorted(key for key in ratings if key not in keys)
    if unknown:
        raise ValueError(f"ratings of {len(unknown)} item(s) not in the audit, e.g. {unknown[:5]!r}")
    for key, by_annotator in ratings.items():
        for annotator, value in by_annotator.items():
            _score(f"ratings[{key!r}][{annotator!r}]", value)
    return sorted(items, key=lambda item: item["key"])


# ---------------------------------------------------------------- statistics with intervals -------------------


def _stat(point: Result, n_items: int, replicates: Replicates, resampler: Resampler) -> dict:
    """STAT: the engine's value (or None and why), and the percentile interval of ``replicates`` over ``n_items``."""
    value, reason = point
    if value is None:
        return {"value": None, "ci": None, "reason": reason}
    ci = None
    if resampler.n_boot and n_items:
        ci, note = percentile_interval(replicates(resampler.counts(n_items)))
        reason = "; ".join(part for part in (reason, note) if part) or None
    return {"value": float(value), "ci": ci, "reason": reason}


def _pair_kappa(pairwise, position: int, empty_reason: str) -> Result:
    if len(pairwise) <= position:
        return None, empty_reason
    value = float(pairwise.kappa[position])
    return (None, pairwise.reason[position]) if np.isnan(value) else (value, None)


def _exact(equal: np.ndarray, empty_reason: str) -> Result:
    return (float(equal.mean()), None) if equal.size else (None, empty_reason)


def _two_raters(a: np.ndarray, b: np.ndarray, resampler: Resampler, empty: str) -> dict[str, dict]:
    """Kappa, AC2 and exact agreement of two complete columns of scores (the judge and one other)."""
    pair = np.column_stack([a, b]).astype(np.int64)
    n = len(a)
    kappa = _pair_kappa(pairwise_quadratic_kappa(pair, **SCALE), 0, empty)
    ac2 = gwet_ac2(pair, **SCALE, weights="quadratic") if n else (None, empty)
    equal = (a == b).astype(np.float64)
    return {
        "kappa": _stat(kappa, n, lambda c: kappa_replicates(c, pair_terms(a, b)[None]), resampler),
        "ac2": _stat(ac2, n, lambda c: ac2_replicates(c, pair, AC2_WEIGHTS), resampler),
        "exact": _stat(_exact(equal, empty), n, lambda c: ratio_replicates(c, equal, np.ones(n)), resampler),
    }


def _humans(h: np.ndarray, annotators: Sequence[str], resampler: Resampler) -> dict:
    sizes = (h >= 0).sum(axis=1)
    several, rated = sizes >= 2, sizes >= 1
    pairwise = pairwise_quadratic_kappa(h, **SCALE)
    multi = h[several]
    terms = np.zeros((0, 5, len(multi)))
    if len(pairwise):
        columns = zip(pairwise.rater_a, pairwise.rater_b, strict=True)
        terms = np.stack([pair_terms(multi[:, a], multi[:, b]) for a, b in columns])
    tallies = np.stack([(multi == k).sum(axis=1) for k in range(K)], axis=1).astype(np.float64)
    agreeing = (tallies * (tallies - 1.0)).sum(axis=1)
    m = int(several.sum())
    pairs = []
    for p, (a, b) in enumerate(zip(pairwise.rater_a.tolist(), pairwise.rater_b.tolist(), strict=True)):
        both = (h[:, a] >= 0) & (h[:, b] >= 0)
        x, y = h[both, a], h[both, b]
        point = _pair_kappa(pairwise, p, "")
        stat = _stat(point, int(both.sum()), lambda c, x=x, y=y: kappa_replicates(c, pair_terms(x, y)[None]), resampler)
        pairs.append({"annotators": [annotators[a], annotators[b]], "n": int(pairwise.n_common[p]), "kappa": stat})
    return {
        "n": m,
        "kappa": _stat(axis_kappa(pairwise), m, lambda c: kappa_replicates(c, terms), resampler),
        "alpha": _stat(
            krippendorff_alpha(h, level="ordinal", **SCALE), m, lambda c: alpha_replicates(c, multi, K), resampler
        ),
        "ac2": _stat(
            gwet_ac2(h, **SCALE, weights="quadratic"),
            int(rated.sum()),
            lambda c: ac2_replicates(c, h[rated], AC2_WEIGHTS),
            resampler,
        ),
        "exact": _stat(
            pairwise_agreement(h, tolerance=0, **SCALE),
            m,
            lambda c: ratio_replicates(c, agreeing, sizes[several] * (sizes[several] - 1.0)),
            resampler,
        ),
        "pairs": pairs,
    }


# ---------------------------------------------------------------- one judge -----------------------------------


def _vs_humans(judge: np.ndarray, h: np.ndarray, resampler: Resampler) -> dict:
    rated = (h >= 0).any(axis=1)
    j, people = judge[rated], h[rated]
    columns = np.column_stack([h, judge])
    pairwise = pairwise_quadratic_kappa(columns, **SCALE)
    kappa = leave_one_out_kappa(pairwise, columns.shape[1])[-1]
    if not rated.any():
        kappa = (None, "no item of this judge has a human rating")
    terms = np.stack([pair_terms(j, people[:, c]) for c in range(people.shape[1])] or [np.zeros((5, len(j)))])
    given = (people >= 0).sum(axis=1).astype(np.float64)
    equal = (people == j[:, None]).sum(axis=1).astype(np.float64)
    exact = (float(equal.sum() / given.sum()), None) if given.sum() else (None, "no human rating to compare with")
    n = int(rated.sum())
    return {
        "kappa": _stat(kappa, n, lambda c: kappa_replicates(c, terms), resampler),
        "exact": _stat(exact, n, lambda c: ratio_replicates(c, equal, given), resampler),
    }


def _bias(configs: np.ndarray, difference: np.ndarray, has: np.ndarray, resampler: Resampler) -> list[dict[str, Any]]:
    rows = []
    for config in sorted(set(configs.tolist())):
        d = difference[has & (configs == config)].astype(np.float64)
        entry: dict[str, Any] = {"modelConfig": config, "n": int(d.size), "meanDifference": None, "ci": None}
        if d.size:
            entry["meanDifference"] = float(d.mean())
        if d.size >= 2 and resampler.n_boot:
            entry["ci"] = percentile_interval(ratio_replicates(resampler.counts(d.size), d, np.ones(d.size)))[0]
        rows.append(entry)
    return rows


def _judge(
    model: str,
    prompt: str,
    *,
    is_baseline: bool,
    items: Sequence[Mapping],
    judge: np.ndarray,
    labels: Sequence[str],
    reasoning: Sequence[str],
    h: np.ndarray,
    agreed: np.ndarray,
    annotators: Sequence[str],
    resampler: Resampler,
) -> dict:
    """JUDGE for the scores ``judge`` of ``items``; ``h`` holds their people's ratings, ``agreed`` their consensus."""
    has = agreed >= 0
    j, c = judge[has], agreed[has]
    weights = np.asarray([float(item["weight"]) for item in items])[has]
    equal = (j == c).astype(np.float64)
    no_consensus = "no item of this judge has a human consensus"
    vs_consensus = _two_raters(j, c, resampler, no_consensus)
    reweighted = (weighted_proportion((j == c).tolist(), weights.tolist()), None) if has.any() else (None, no_consensus)
    vs_consensus["exactReweighted"] = _stat(
        reweighted, int(has.sum()), lambda counts: ratio_replicates(counts, weights * equal, weights), resampler
    )
    vs_annotators = []
    for column, annotator in enumerate(annotators):
        common = h[:, column] >= 0
        if common.any():
            entry = _two_raters(judge[common], h[common, column], resampler, "")
            vs_annotators.append({"annotator": annotator, "n": int(common.sum()), **entry})
    confusion = np.zeros((K, K), dtype=np.int64)
    np.add.at(confusion, (j, c), 1)
    configs = np.asarray([item["modelConfig"] for item in items], dtype=object)
    disagreements = []
    for row, item in enumerate(items):
        given = h[row][h[row] >= 0]
        if given.size and not (given == judge[row]).any():
            disagreements.append(
                {
                    "key": item["key"],
                    "trialId": item["trialId"],
                    "modelConfig": item["modelConfig"],
                    "judgeScore": int(judge[row]),
                    "judgeLabel": labels[row],
                    "reasoning": reasoning[row],
                    "humanScores": sorted(int(v) for v in given),
                    "context": item.get("context") or {},
                }
            )
    return {
        "model": model,
        "prompt": prompt,
        "baseline": is_baseline,
        "n": int(has.sum()),
        "vsHumans": _vs_humans(judge, h, resampler),
        "vsConsensus": vs_consensus,
        "vsAnnotators": vs_annotators,
        "confusion": {"rows": "judge", "columns": "consensus", "matrix": confusion.tolist()},
        "biasByModelConfig": _bias(configs, judge - agreed, has, resampler),
        "disagreements": disagreements,
    }


# ---------------------------------------------------------------- the report ----------------------------------


def calibration_report(
    audit: Mapping[str, Any],
    items: Sequence[Mapping[str, Any]],
    ratings: Mapping[str, Mapping[str, int]],
    *,
    n_boot: int = 1000,
    seed: int = 0,
    baseline_model: str = DEFAULT_BASELINE_MODEL,
) -> dict[str, Any]:
    """The calibration report of one audit (shape in the module docstring).

    ``audit``: id, name, kind ("gv" / "w2wr"), batch, createdAt, perItem, seed, requestedSize, design (with
    "strata" and "judgeRates"); ``items``: key, trialId, modelConfig, judgeModel, judgePrompt, judgeScore,
    judgeLabel, judgeReasoning, baselineScore, stratum, weight, context; ``ratings``: {item key: {annotator:
    score}}. Bad input (unknown kind, a score outside 0..2, a rating of an unknown item) raises ValueError.
    """
    resampler = Resampler(n_boot, seed)
    items = _checked(audit, items, ratings)
    annotators = sorted({name for by_annotator in ratings.values() for name in by_annotator})
    column = {name: c for c, name in enumerate(annotators)}
    h = np.full((len(items), len(annotators)), JUDGE_MISSING, dtype=np.int64)
    for row, item in enumerate(items):
        for name, score in (ratings.get(item["key"]) or {}).items():
            h[row, column[name]] = score
    per_item = [sorted(int(v) for v in row[row >= 0]) for row in h]
    agreed = np.asarray([NO_CONSENSUS if (c := consensus(s)) is None else c for s in per_item], dtype=np.int64)
    labels = SCALE_LABELS[audit["kind"]]
    per_item_wanted = int(audit.get("perItem") or 0)

    def judge_of(model: str, prompt: str, rows: list[int], scores: list[int], baseline: bool, **texts) -> dict:
        chosen = [items[r] for r in rows]
        scored = np.asarray(scores, dtype=np.int64)
        context = {"h": h[rows], "agreed": agreed[rows], "annotators": annotators, "resampler": resampler}
        return _judge(model, prompt, is_baseline=baseline, items=chosen, judge=scored, **context, **texts)

    groups: dict[tuple[str, str], list[int]] = {}
    for row, item in enumerate(items):
        groups.setdefault((item["judgeModel"], item["judgePrompt"]), []).append(row)
    judges = []
    for (model, prompt), rows in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        chosen = [items[r] for r in rows]
        scores = [int(item["judgeScore"]) for item in chosen]
        labels_given = [item.get("judgeLabel") or labels[score] for item, score in zip(chosen, scores, strict=True)]
        reasoning = [item.get("judgeReasoning") or "" for item in chosen]
        is_baseline = model == baseline_model
        judges.append(judge_of(model, prompt, rows, scores, is_baseline, labels=labels_given, reasoning=reasoning))

    # The offline baseline on the items it scored, as a floor; pointless when it is the only judge.
    baseline = None
    rows = [r for r, item in enumerate(items) if item.get("baselineScore") is not None]
    only_the_baseline = len(groups) == 1 and next(iter(groups))[0] == baseline_model
    if rows and not only_the_baseline:
        scores = [int(items[r]["baselineScore"]) for r in rows]
        prompt = Counter(items[r]["judgePrompt"] for r in rows).most_common(1)[0][0]  # the question it answered
        texts = {"labels": [labels[score] for score in scores], "reasoning": [""] * len(rows)}
        baseline = judge_of(baseline_model, prompt, rows, scores, True, **texts)

    counts = [len(s) for s in per_item]
    return {
        "audit": {
            "id": audit.get("id"),
            "name": audit.get("name"),
            "kind": audit["kind"],
            "batch": audit.get("batch"),
            "createdAt": audit.get("createdAt"),
            "perItem": audit.get("perItem"),
            "seed": audit.get("seed"),
            "requestedSize": audit.get("requestedSize"),
            "items": len(items),
            "ratedItems": sum(1 for n in counts if n),
            "completeItems": sum(1 for n in counts if n and n >= per_item_wanted),
            "noConsensusItems": int(sum(1 for n, c in zip(counts, agreed, strict=True) if n and c < 0)),
            "ratings": sum(counts),
            "annotators": annotators,
        },
        "scale": [{"value": value, "label": label} for value, label in zip(JUDGE_SCALE, labels, strict=True)],
        "consensusRule": CONSENSUS_RULE,
        "humans": _humans(h, annotators, resampler),
        "judges": judges,
        "baseline": baseline,
        "rate": rate_section(audit, items, ratings),
    }
