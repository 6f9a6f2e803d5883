"""Batch aggregation of per-trial Layer3 metrics (seed 002 §6.1 ``aggregateBatchMetrics``, §3.2 ``BatchLayer3Results``).

The seed leaves the body out ("each metric's mean or sum"); the rules chosen here, so that the
batch figures agree with the statistics of §7 that test them:

- generatedValue and W2WR semantic figures are item-weighted: ``avgScore`` is the mean score of all
  judged items (bindings) of the batch, ``usefulRate`` / ``correctnessRate`` the share of score 2
  among them, ``sampleSize`` the number of judged items (bindings); the proportion tests of §7
  compare exactly these counts. Items whose judge call failed are not in the sample.
- W2WR type rates are binding-weighted: flow / meta / sync bindings over all bindings of the batch
  (``unknown`` included in the denominator, as each trial's ratios do); ``totalBindings`` their sum.
- Widget diversity and graph complexity are trial means of the per-trial values.
- A figure with no data (no judged item, no trial with that block) is ``None`` (JSON null), never
  0 and never NaN: "not measured" must not read as "measured zero". Counts are 0.

Trials whose metrics hold an ``error`` (generated data that is not a UISpec) are skipped. Nothing is
rounded: the stored per-trial values are already rounded where the seed rounds them, and the
exports format the figures. One pass over the trials, so that 10,000 trials aggregate in
milliseconds.
"""

from __future__ import annotations

from collections.abc import Iterable


class _Totals:
    __slots__ = (
        "bindings",
        "degree",
        "density",
        "div_trials",
        "edges",
        "entropy",
        "flow",
        "graph_trials",
        "gv_items",
        "gv_score",
        "gv_useful",
        "meta",
        "nodes",
        "normalized",
        "sc_correct",
        "sc_items",
        "sc_score",
        "sync",
        "trials",
        "unique",
    )

    def __init__(self) -> None:
        for name in self.__slots__:
            setattr(self, name, 0)

    def add(self, metrics: dict) -> None:
        self.trials += 1
        gv = metrics.get("generatedValueRelevance")
        if gv is not None:
            distribution = gv["distribution"]
            self.gv_items += gv["evaluatedItems"]
            self.gv_score += distribution["generic"] + 2 * distribution["useful"]
            self.gv_useful += distribution["useful"]
        types = metrics.get("w2wrTypeDistribution")
        if types is not None:
            distribution = types["distribution"]
            self.bindings += types["totalBindings"]
            self.flow += distribution["flow"]
            self.meta += distribution["meta"]
            self.sync += distribution["sync"]
        semantic = metrics.get("w2wrSemanticCorrectness")
        if semantic is not None:
            distribution = semantic["distribution"]
            self.sc_items += semantic["evaluatedBindings"]
            self.sc_score += distribution["redundant"] + 2 * distribution["correct"]
            self.sc_correct += distribution["correct"]
        diversity = metrics.get("widgetDiversity")
        if diversity is not None:
            self.div_trials += 1
            self.entropy += diversity["entropy"]
            self.normalized += diversity["normalizedEntropy"]
            self.unique += diversity["uniqueWidgetCount"]
        graph = metrics.get("graphComplexity")
        if graph is not None:
            self.graph_trials += 1
            self.nodes += graph["nodeCount"]
            self.edges += graph["edgeCount"]
            self.density += graph["density"]
            self.degree += graph["avgDegree"]

    def results(self) -> dict:
        return {
            "gvContentRelevance": {
                "avgScore": _ratio(self.gv_score, self.gv_items),
                "usefulRate": _ratio(self.gv_useful, self.gv_items),
                "sampleSize": self.gv_items,
            },
            "w2wrTypeDistribution": {
                "flowRate": _ratio(self.flow, self.bindings),
                "metaRate": _ratio(self.meta, self.bindings),
                "syncRate": _ratio(self.sync, self.bindings),
                "totalBindings": self.bindings,
            },
            "w2wrSemanticCorrectness": {
                "avgScore": _ratio(self.sc_score, self.sc_items),
                "correctnessRate": _ratio(self.sc_correct, self.sc_items),
                "sampleSize": self.sc_items,
            },
            "widgetDiversity": {
                "avgEntropy": _ratio(self.entropy, self.div_trials),
                "avgNormalizedEntropy": _ratio(self.normalized, self.div_trials),
                "avgUniqueWidgets": _ratio(self.unique, self.div_trials),
            },
            "graphComplexity": {
                "avgNodeCount": _ratio(self.nodes, self.graph_trials),
                "avgEdgeCount": _ratio(self.edges, self.graph_trials),
                "avgDensity": _ratio(self.density, self.graph_trials),
                "avgDegree": _ratio(self.degree, self.graph_trials),
            },
        }


def _ratio(total: float, count: int) -> float | None:
    return total / count if count else None


def aggregate_by_model(trials: Iterable[tuple[str, dict | None]]) -> tuple[dict, list[dict]]:
    """``(overall, byModel)`` from ``(modelConfig, Layer3MetricsV1 or None)`` pairs.

    ``byModel`` is sorted by model config: ``{"modelConfig", "trialCount", "evaluatedCount",
    "errorCount", "layer3"}``, where ``trialCount`` counts every trial given (evaluated or not),
    ``evaluatedCount`` those with metrics and ``errorCount`` those whose data could not be evaluated.
    """
    overall = _Totals()
    per_model: dict[str, _Totals] = {}
    counts: dict[str, list[int]] = {}  # model config -> [trials, evaluated, errors]
    for model_config, value in trials:
        totals = per_model.get(model_config)
        if totals is None:
            totals = per_model[model_config] = _Totals()
            counts[model_config] = [0, 0, 0]
        tally = counts[model_config]
        tally[0] += 1
        if value is None:
            continue
        if "error" in value:
            tally[2] += 1
            continue
        tally[1] += 1
        totals.add(value)
        overall.add(value)
    by_model = [
        {
            "modelConfig": model_config,
            "trialCount": counts[model_config][0],
            "evaluatedCount": counts[model_config][1],
            "errorCount": counts[model_config][2],
            "layer3": per_model[model_config].results(),
        }
        for model_config in sorted(per_model)
    ]
    return overall.results(), by_model
