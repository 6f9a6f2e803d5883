"""Small Layer3 results documents and trials, shaped as the API writes them (seed 002 §3, §5)."""

from __future__ import annotations


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
    }
    return {**result, **changes}


def summary(**changes):
    result = {
        "totalTests": 2,
        "performedTests": 2,
        "significantCount": 1,
        "correction": "bonferroni",
        "alpha": 0.05,
        "adjustedAlpha": 0.05 / 110,
        "comparisons": 110,
        "modelConfigs": ["A", "B"],
        "effectSizeThresholds": {"rank_biserial": [0.1, 0.3, 0.5], "cohens_h": [0.2, 0.5, 0.8]},
    }
    return {**result, **changes}


def document(models=("A", "B"), comparisons=None, **changes):
    """A results document with one ``byModel`` entry per label (20 trials each)."""
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
            ),
        ]
    result = {
        "batchId": "pilot-2026-11",
        "experimentId": "exp-1",
        "evaluatedAt": "2026-11-26T10:00:00.000Z",
        "overall": batch_results(),
        "byModel": [
            {"modelConfig": label, "trialCount": 20, "layer3": batch_results(gv=1.0 + i / 3)}
            for i, label in enumerate(models)
        ],
        "statistics": {"layer3Comparisons": comparisons, "summary": summary()},
    }
    return {**result, **changes}


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
            "bindingEvaluations": [],
        },
        "widgetDiversity": {
            "selectedWidgets": ["emotion_palette", "timeline"],
            "widgetCounts": {"emotion_palette": 1, "timeline": 1},
            "uniqueWidgetCount": 2,
            "entropy": 1.0,
            "normalizedEntropy": 0.30000000000000004,
            "maxEntropy": 3.321928094887362,
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
