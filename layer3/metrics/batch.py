"""Batch aggregation of per-trial Layer3 metrics (seed 002 §6.1 ``aggregateBatchMetrics``, §3.2 ``BatchLayer3Results``).

The seed leaves the body out ("each metric's mean or sum"). Each metric has one unit of averaging,
the unit its §7 test compares, and it is the same wherever the metric is shown (cards, per-model
table, statistics, exports, figures):

- GV_CR and W2WR_SC (``avgScore``): the mean over trials of each trial's mean judge score, over the
  trials with at least one judged item (binding); ``trialCount`` counts them. Mann–Whitney compares
  these per-trial values.
- GV_UR and W2WR_CR (``usefulRate`` / ``correctnessRate``): items (bindings) pooled over the trials:
  score-2 items over judged items; ``sampleSize`` the judged items. The two-proportion z-test
  compares these counts.
- W2WR type rates: bindings pooled: flow / meta / sync over all bindings (``unknown`` included in the
  denominator, as each trial's ratios do); ``totalBindings`` their sum.
- Widget diversity and graph complexity: trial means of the per-trial values. Every trial of a batch
  is normalised by the batch's one ``|W|`` (``layer3.metrics.widget_types``), which
  ``availableWidgetCount`` reports (None if the trials' figures were computed with different ones).

A judged figure is only ever made from one judge's verdicts (``layer3.metrics.provenance``): each judged
block names its ``judge`` (label), lists ``judges`` and gives the figures ``byJudge``; when the trials
were judged by more than one judge, the pooled figures are ``None`` with a ``reason`` (see ``byJudge``),
never a blend. Items whose judge call failed are not in the sample.

A figure with no data (no judged item, no trial with that block) is ``None`` (JSON null), never 0 and
never NaN: "not measured" must not read as "measured zero". Counts are 0. Trials whose metrics hold an
``error`` (generated data that is not a UISpec) are skipped. Nothing is rounded. One pass over the
trials, so that 10,000 trials aggregate in milliseconds.
"""

from __future__ import annotations

from collections.abc import Iterable

from layer3.metrics.provenance import JUDGED_BLOCKS, block_judge

# The definition of the stored batch figures: a batch whose figures an older definition wrote is
# recomputed on its next read. 2: judged figures per judge, GV_CR/W2WR_SC as trial means, catalogue.
# 3: widget diversity over the batch's one |W| (availableWidgetCount in place of catalogueSize).
RESULTS_VERSION = 3

_RATES = {"gv": "usefulRate", "w2wr": "correctnessRate"}
_COUNTS = {"gv": "evaluatedItems", "w2wr": "evaluatedBindings"}
_SUCCESS = {"gv": "useful", "w2wr": "correct"}
_RESULT_BLOCKS = {"gv": "gvContentRelevance", "w2wr": "w2wrSemanticCorrectness"}


class _Judged:
    """One judge's figures for one judged block: trial means of the scores, pooled successes."""

    __slots__ = ("items", "score_sum", "successes", "trials")

    def __init__(self) -> None:
        self.trials = self.items = self.successes = 0
        self.score_sum = 0.0

    def add(self, items: int, score_sum: float, successes: int) -> None:
        self.trials += 1
        self.items += items
        self.successes += successes
        self.score_sum += score_sum

    def figures(self, key: str) -> dict:
        return {
            "avgScore": _ratio(self.score_sum, self.trials),
            _RATES[key]: _ratio(self.successes, self.items),
            "sampleSize": self.items,
            "trialCount": self.trials,
        }


class _Totals:
    __slots__ = (
        "available_counts",
        "bindings",
        "degree",
        "density",
        "div_trials",
        "edges",
        "entropy",
        "flow",
        "graph_trials",
        "judged",
        "meta",
        "nodes",
        "normalized",
        "outside",
        "outside_trials",
        "sync",
        "trials",
        "unique",
    )

    def __init__(self) -> None:
        for name in self.__slots__:
            setattr(self, name, 0)
        self.judged: dict[str, dict[str, _Judged]] = {"gv": {}, "w2wr": {}}
        self.outside: dict[str, int] = {}
        self.available_counts: set[int] = set()

    def add(self, metrics: dict) -> None:
        self.trials += 1
        for key, block_name in JUDGED_BLOCKS.items():
            block = metrics.get(block_name)
            if block is None:
                continue
            items = block[_COUNTS[key]]
            if not items:  # no judged item: no score, whoever the judge (avgScore is null, or an old 0)
                continue
            label = block_judge(block)
            totals = self.judged[key].get(label)
            if totals is None:
                totals = self.judged[key][label] = _Judged()
            totals.add(items, block["avgScore"], block["distribution"][_SUCCESS[key]])
        types = metrics.get("w2wrTypeDistribution")
        if types is not None:
            distribution = types["distribution"]
            self.bindings += types["totalBindings"]
            self.flow += distribution["flow"]
            self.meta += distribution["meta"]
            self.sync += distribution["sync"]
        diversity = metrics.get("widgetDiversity")
        if diversity is not None:
            self.div_trials += 1
            self.entropy += diversity["entropy"]
            self.normalized += diversity["normalizedEntropy"]
            self.unique += diversity["uniqueWidgetCount"]
            size = diversity.get("availableWidgetCount")
            if size is not None:
                self.available_counts.add(size)
            outside = diversity.get("outOfCatalogue")
            if outside:
                self.outside_trials += 1
                counts = diversity["widgetCounts"]
                for name in outside:
                    self.outside[name] = self.outside.get(name, 0) + counts.get(name, 0)
        graph = metrics.get("graphComplexity")
        if graph is not None:
            self.graph_trials += 1
            self.nodes += graph["nodeCount"]
            self.edges += graph["edgeCount"]
            self.density += graph["density"]
            self.degree += graph["avgDegree"]

    def results(self) -> dict:
        return {
            "gvContentRelevance": self._judged_block("gv"),
            "w2wrTypeDistribution": {
                "flowRate": _ratio(self.flow, self.bindings),
                "metaRate": _ratio(self.meta, self.bindings),
                "syncRate": _ratio(self.sync, self.bindings),
                "totalBindings": self.bindings,
            },
            "w2wrSemanticCorrectness": self._judged_block("w2wr"),
            "widgetDiversity": {
                "avgEntropy": _ratio(self.entropy, self.div_trials),
                "avgNormalizedEntropy": _ratio(self.normalized, self.div_trials),
                "avgUniqueWidgets": _ratio(self.unique, self.div_trials),
                "availableWidgetCount": (
                    next(iter(self.available_counts)) if len(self.available_counts) == 1 else None
                ),
                "outOfCatalogue": {"trials": self.outside_trials, "types": dict(sorted(self.outside.items()))},
            },
            "graphComplexity": {
                "avgNodeCount": _ratio(self.nodes, self.graph_trials),
                "avgEdgeCount": _ratio(self.edges, self.graph_trials),
                "avgDensity": _ratio(self.density, self.graph_trials),
                "avgDegree": _ratio(self.degree, self.graph_trials),
            },
        }

    def _judged_block(self, key: str) -> dict:
        by_judge = self.judged[key]
        labels = sorted(by_judge)
        per_judge = [{"judge": label, **by_judge[label].figures(key)} for label in labels]
        if len(labels) == 1:
            return {**by_judge[labels[0]].figures(key), "judge": labels[0], "judges": labels, "byJudge": per_judge,
                    "reason": None}  # fmt: skip
        figures = {
            "avgScore": None,
            _RATES[key]: None,
            "sampleSize": sum(part.items for part in by_judge.values()),
            "trialCount": sum(part.trials for part in by_judge.values()),
        }
        reason = None
        if labels:
            parts = "; ".join(f"{entry['judge']}: {entry['trialCount']} trials" for entry in per_judge)
            reason = f"judged by {len(labels)} judges ({parts}); figures of different judges are not pooled"
        return {**figures, "judge": None, "judges": labels, "byJudge": per_judge, "reason": reason}


def _ratio(total: float, count: int) -> float | None:
    return total / count if count else None


def judge_of(layer3: dict | None, key: str) -> str | None:
    """The one judge of a judged block ("gv" / "w2wr") of batch results, or None (not judged, or mixed)."""
    block = (layer3 or {}).get(_RESULT_BLOCKS[key]) or {}
    return block.get("judge")


def aggregate_by_model(trials: Iterable[tuple[str, dict | None]]) -> tuple[dict, list[dict]]:
    """``(overall, byModel)`` from ``(modelConfig, Layer3MetricsV1 or None)`` pairs.

    ``byModel`` is sorted by model config: ``{"modelConfig", "trialCount", "evaluatedCount",
    "errorCount", "judge": {"gv", "w2wr"}, "layer3"}``, where ``trialCount`` counts every trial given
    (evaluated or not), ``evaluatedCount`` those with metrics, ``errorCount`` those whose data could not
    be evaluated, and ``judge`` names the one judge of each judged block (None: not judged, or several).
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
    by_model = []
    for model_config in sorted(per_model):
        layer3 = per_model[model_config].results()
        by_model.append(
            {
                "modelConfig": model_config,
                "trialCount": counts[model_config][0],
                "evaluatedCount": counts[model_config][1],
                "errorCount": counts[model_config][2],
                "judge": {key: judge_of(layer3, key) for key in JUDGED_BLOCKS},
                "layer3": layer3,
            }
        )
    return overall.results(), by_model
