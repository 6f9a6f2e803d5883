"""Small Layer3 results documents and trials, shaped as the API writes them (seed 002 §3, §5)."""

from __future__ import annotations

GPT_GV = {"kind": "llm", "model": "gpt-4o", "prompt": "layer3.gv_relevance@1"}
GPT_SC = {"kind": "llm", "model": "gpt-4o", "prompt": "layer3.w2wr_semantic@1"}
GPT = "llm:gpt-4o:layer3.gv_relevance@1"
GPT_W2WR = "llm:gpt-4o:layer3.w2wr_semantic@1"
BASELINE = "baseline:baseline-tfidf@1:layer3.gv_relevance@1"
BASELINE_W2WR = "baseline:baseline-tfidf@1:layer3.w2wr_semantic@1"
SEED_BOOTSTRAP = {"replicates": 2000, "seed": 20260, "level": 0.95, "unit": "trial"}


def judged(results, group="gv", judges=(GPT,), reason=None):
    """``results`` (a ``BatchLayer3Results``) with the judges of its ``gv`` or ``w2wr`` block, as the
    aggregation writes them: with several judges the figures are null and ``reason`` says why."""
    block = {"gv": "gvContentRelevance", "w2wr": "w2wrSemanticCorrectness"}[group]
    part = dict(results[block])
    judges = sorted(judges)
    part.update(judge=judges[0] if len(judges) == 1 else None, judges=judges, reason=None)
    if len(judges) > 1:
        rate = "usefulRate" if group == "gv" else "correctnessRate"
        part.update(avgScore=None, **{rate: None})
        part["reason"] = reason or f"judged by {len(judges)} judges ({'; '.join(judges)}): see byJudge"
    return {**results, block: part}


def batch_results(*, gv=1.2345, useful=0.5, flow=0.6, meta=None, sync=0.1, sc=None, cr=None, entropy=2.3):
    """A ``BatchLayer3Results``; None stands for a metric that was not evaluated."""
    return {
        "gvContentRelevance": {"avgScore": gv, "usefulRate": useful, "sampleSize": 10},
        "w2wrTypeDistribution": {"flowRate": flow, "metaRate": meta, "syncRate": sync, "totalBindings": 12},
        "w2wrSemanticCorrectness": {"avgScore": sc, "correctnessRate": cr, "sampleSize": 0},
        "widgetDiversity": {"avgEntropy": entropy, "avgNormalizedEntropy": 0.8, "avgUniqueWidgets": 4.0},
        "graphComplexity": {"avgNodeCount": 5.25, "avgEdgeCount": 4.0, "avgDensity": 0.2, "avgDegree": 1.5},
    }


def comparison(metric="GV_CR", a="A", b="B", **changes):
    result = {
        "metric": metric,
        "modelA": a,
        "modelB": b,
        "test": "mann_whitney_u",
        "statistic": 123.5,
        "pValue": 0.0123,
        "adjustedPValue": 0.0246,
        "significant": True,
        "mark": "*",
        "effectSize": 0.42,
        "effectSizeType": "rank_biserial",
        "effectMagnitude": "medium",
        "nA": 20,
        "nB": 20,
        "valueA": 1.1,
        "valueB": 1.4,
        "reason": None,
        "reasonCode": None,
        "reasonParams": None,
        "judgeA": GPT if metric in ("GV_CR", "GV_UR") else None,
        "judgeB": GPT if metric in ("GV_CR", "GV_UR") else None,
        "difference": None,
        "zCi": None,
        "clusterBootstrapCi": None,
        "designEffect": None,
    }
    return {**result, **changes}


def different_judges(metric="GV_UR", a="A", b="B", judge_a=GPT, judge_b=BASELINE, **changes):
    """A test the engine refused: the two configs' items were judged by different judges."""
    reason = (
        f"model {a} was judged by {judge_a} and model {b} by {judge_b}; figures of different judges are not compared"
    )
    test = "two_proportion_z" if metric in ("GV_UR", "W2WR_CR") else "mann_whitney_u"
    return comparison(
        metric, a, b, test=test, statistic=None, pValue=None, adjustedPValue=None, significant=False, mark="",
        effectSize=None, effectMagnitude=None, reason=reason, reasonCode="different_judges",
        reasonParams={"modelA": a, "modelB": b, "judgeA": judge_a, "judgeB": judge_b}, judgeA=judge_a,
        judgeB=judge_b, **changes,
    )  # fmt: skip


def summary(**changes):
    result = {
        "totalTests": 2,
        "performedTests": 2,
        "significantCount": 1,
        "correction": "bonferroni",
        "alpha": 0.05,
        "family": "seed",
        "familySize": 110,
        "adjustedAlpha": 0.05 / 110,
        "comparisons": 110,
        "bootstrap": dict(SEED_BOOTSTRAP),
        "modelConfigs": ["A", "B"],
        "effectSizeThresholds": {"rank_biserial": [0.1, 0.3, 0.5], "cohens_h": [0.2, 0.5, 0.8]},
    }
    return {**result, **changes}


def document(models=("A", "B"), comparisons=None, gv_judges=None, **changes):
    """A results document with one ``byModel`` entry per label (20 trials each), GV judged by ``gv_judges``
    (``{label: judges}``; by default every config by GPT-4o) and W2WR semantic correctness not evaluated."""
    if comparisons is None:
        comparisons = [
            comparison(),
            comparison(
                "GV_UR",
                test="two_proportion_z",
                statistic=-2.345,
                pValue=0.0000004,
                adjustedPValue=0.000044,
                mark="***",
                effectSize=-0.61,
                effectSizeType="cohens_h",
                effectMagnitude="medium",
                difference=-0.1234,
                zCi=[-0.19, -0.0568],
                clusterBootstrapCi=[-0.2512, 0.0049],
                designEffect=3.5921,
            ),
        ]
    gv_judges = gv_judges if gv_judges is not None else {label: (GPT,) for label in models}
    overall = sorted({judge for judges in gv_judges.values() for judge in judges})
    result = {
        "batchId": "pilot-2026-11",
        "experimentId": "exp-1",
        "evaluatedAt": "2026-11-26T10:00:00.000Z",
        "overall": judged(batch_results(), "gv", overall) if overall else batch_results(),
        "byModel": [
            model_entry(label, batch_results(gv=1.0 + i / 3), gv_judges.get(label, ()))
            for i, label in enumerate(models)
        ],
        "statistics": {"layer3Comparisons": comparisons, "summary": summary()},
    }
    return {**result, **changes}


def model_entry(label, results, gv_judges=(), w2wr_judges=()):
    """A ``byModel`` entry of 20 trials; its judged blocks name their judges."""
    judge = {"gv": None, "w2wr": None}
    for group, judges in (("gv", gv_judges), ("w2wr", w2wr_judges)):
        if judges:
            results = judged(results, group, judges)
            judge[group] = judges[0] if len(judges) == 1 else None
    return {"modelConfig": label, "trialCount": 20, "evaluatedCount": 20, "errorCount": 0, "judge": judge,
            "layer3": results}  # fmt: skip


def full_metrics():
    """A ``Layer3MetricsV1`` with every block, judge fields and detail lists included."""
    return {
        "version": "1.0",
        "evaluatedAt": "2026-11-26T09:59:59.123Z",
        "evaluatorModel": "gpt-4o",
        "generatedValueRelevance": {
            "totalItems": 7,
            "evaluatedItems": 6,
            "distribution": {"notRelevant": 1, "generic": 2, "useful": 3},
            "avgScore": 1.3333333333333333,
            "usefulRate": 0.42857142857142855,
            "judge": dict(GPT_GV),
            "itemEvaluations": [
                {"widgetId": "w1", "itemId": "i1", "text": "アイデア", "score": 2, "label": "useful"},
            ],
        },
        "w2wrTypeDistribution": {
            "totalBindings": 3,
            "distribution": {"flow": 1, "meta": 1, "sync": 0, "unknown": 1},
            "ratios": {"flow": 0.3333333333333333, "meta": 0.3333333333333333, "sync": 0.0},
            "bindingClassifications": [
                {"bindingId": "b1", "source": "w1.out", "target": "w2.in", "type": "flow", "reason": "r"},
            ],
        },
        "w2wrSemanticCorrectness": {
            "evaluatedBindings": 3,
            "distribution": {"correct": 2, "redundant": 0, "wrong": 1},
            "avgScore": 1.3333333333333333,
            "correctnessRate": 0.6666666666666666,
            "judge": dict(GPT_SC),
            "bindingEvaluations": [],
        },
        "widgetDiversity": {
            "selectedWidgets": ["emotion_palette", "timeline"],
            "widgetCounts": {"emotion_palette": 1, "timeline": 1},
            "uniqueWidgetCount": 2,
            "entropy": 1.0,
            "normalizedEntropy": 0.30000000000000004,
            "maxEntropy": 3.321928094887362,
            "availableWidgetCount": 10,
            "outOfCatalogue": [],
        },
        "graphComplexity": {
            "nodeCount": 3,
            "edgeCount": 3,
            "density": 0.5,
            "avgDegree": 2.0,
            "maxDegree": 3,
            "sectionNodeCounts": {"diverge": 1, "organize": 1, "converge": 1},
            "crossSectionEdges": 2,
        },
    }


def without_items(metrics=None, *, stored=0):
    """``metrics`` whose trial had no generated value and no binding to judge: both judged blocks have 0 judged
    items, with ``stored`` in their averages and rates (0 in trials stored under the seed's ``|| 1`` guard)."""
    metrics = metrics or full_metrics()
    metrics["generatedValueRelevance"].update(
        totalItems=0, evaluatedItems=0, distribution={"notRelevant": 0, "generic": 0, "useful": 0},
        avgScore=stored, usefulRate=stored, itemEvaluations=[],
    )  # fmt: skip
    metrics["w2wrSemanticCorrectness"].update(
        evaluatedBindings=0, distribution={"correct": 0, "redundant": 0, "wrong": 0}, avgScore=stored,
        correctnessRate=stored,
    )  # fmt: skip
    return metrics


def error_metrics(message="Expected an object at generatedData.widgets[2]", path="generatedData.widgets[2].id"):
    return {"version": "1.0", "evaluatedAt": "2026-11-26T09:59:59.123Z", "error": message, "path": path}


def trial(trial_id="t-0001", model_config="A", metrics=None):
    return {"id": trial_id, "modelConfig": model_config, "layer3Metrics": metrics}


class ReadOnce:
    """Trials that can be iterated once only, and that count how many were read so far."""

    def __init__(self, trials):
        self._trials = trials
        self.read = 0
        self._iterated = False

    def __iter__(self):
        if self._iterated:
            raise AssertionError("the trials were iterated twice")
        self._iterated = True
        for item in self._trials:
            self.read += 1
            yield item
