"""Per-model samples of the eleven Layer3 metrics (seed 002 §3.2 ``LAYER3_METRICS``, §7.1), from stored trials.

``model_samples`` reads the stored ``Layer3MetricsV1`` dicts of one model configuration in one pass and keeps:

- for the Mann–Whitney metrics, one value per trial (a float64 array per metric, built once at the end):

  - ``GV_CR``: ``generatedValueRelevance.avgScore`` of the trials whose ``evaluatedItems > 0``;
  - ``W2WR_SC``: ``w2wrSemanticCorrectness.avgScore`` of the trials whose ``evaluatedBindings > 0``;
  - ``WS_ENT``: ``widgetDiversity.entropy``;
  - ``GC_NC`` / ``GC_EC`` / ``GC_DEN``: ``graphComplexity.nodeCount`` / ``.edgeCount`` / ``.density``;

- for the two-proportion metrics, counts summed over the trials:

  - ``GV_UR``: ``generatedValueRelevance.distribution.useful`` out of ``evaluatedItems``;
  - ``W2WR_FR`` / ``W2WR_MR`` / ``W2WR_SYR``: ``w2wrTypeDistribution.distribution.flow`` / ``.meta`` /
    ``.sync`` out of ``totalBindings`` (which includes ``unknown``);
  - ``W2WR_CR``: ``w2wrSemanticCorrectness.distribution.correct`` out of ``evaluatedBindings``.

A trial dict with an ``"error"`` key has no metrics and is skipped. A block that is absent (or null) adds
nothing; a block that is present must hold the fields above, or a ValueError names the trial and JSON path.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from numbers import Real
from types import MappingProxyType

import numpy as np

LAYER3_METRICS = (
    "GV_CR",
    "GV_UR",
    "W2WR_FR",
    "W2WR_MR",
    "W2WR_SYR",
    "W2WR_SC",
    "W2WR_CR",
    "WS_ENT",
    "GC_NC",
    "GC_EC",
    "GC_DEN",
)
MANN_WHITNEY_METRICS = ("GV_CR", "W2WR_SC", "WS_ENT", "GC_NC", "GC_EC", "GC_DEN")
PROPORTION_METRICS = ("GV_UR", "W2WR_FR", "W2WR_MR", "W2WR_SYR", "W2WR_CR")

# What one metric's sample counts, for the reason of a test with an empty group: "no {unit} in model B".
SAMPLE_UNITS = {
    "GV_CR": "trials with GV_CR",
    "W2WR_SC": "trials with W2WR_SC",
    "WS_ENT": "trials with WS_ENT",
    "GC_NC": "trials with GC_NC",
    "GC_EC": "trials with GC_EC",
    "GC_DEN": "trials with GC_DEN",
    "GV_UR": "evaluated generatedValue items for GV_UR",
    "W2WR_FR": "W2WR bindings for W2WR_FR",
    "W2WR_MR": "W2WR bindings for W2WR_MR",
    "W2WR_SYR": "W2WR bindings for W2WR_SYR",
    "W2WR_CR": "semantically evaluated W2WR bindings for W2WR_CR",
}


@dataclass(frozen=True)
class ProportionCount:
    """Successes out of ``n`` items or bindings, summed over the trials of one model configuration."""

    successes: int
    n: int

    @property
    def proportion(self) -> float | None:
        """``successes / n``, None when ``n`` is 0."""
        return self.successes / self.n if self.n else None


@dataclass(frozen=True, eq=False)
class ModelSamples:
    """The samples of one model configuration: ``values`` for the Mann–Whitney metrics (read-only float64
    arrays, one value per trial), ``counts`` for the two-proportion metrics; ``trials`` dicts were read, of
    which ``error_trials`` were skipped for their ``"error"`` key."""

    values: Mapping[str, np.ndarray]
    counts: Mapping[str, ProportionCount]
    trials: int
    error_trials: int


class _Paths:
    """Builds the 'trial 3: graphComplexity.density' part of error messages, only when there is an error."""

    def __init__(self, index: int) -> None:
        self.index = index

    def fail(self, path: str, problem: str, value: object) -> ValueError:
        return ValueError(f"trial {self.index}: {path} {problem}; got {value!r}")


def _block(parent: Mapping, key: str, paths: _Paths, path: str) -> Mapping | None:
    block = parent.get(key)
    if block is None or isinstance(block, Mapping):
        return block
    raise paths.fail(path, "must be an object", block)


def _field(block: Mapping, key: str, paths: _Paths, path: str) -> object:
    try:
        return block[key]
    except KeyError:
        raise ValueError(f"trial {paths.index}: {path} is missing") from None


def _number(block: Mapping, key: str, paths: _Paths, path: str) -> float:
    value = _field(block, key, paths, path)
    if type(value) is float or type(value) is int or (isinstance(value, Real) and not isinstance(value, bool)):
        number = float(value)
        if math.isfinite(number):
            return number
    raise paths.fail(path, "must be a finite number", value)


def _count(block: Mapping, key: str, paths: _Paths, path: str) -> int:
    value = _field(block, key, paths, path)
    if type(value) is int and value >= 0:
        return value
    if isinstance(value, Real) and not isinstance(value, bool) and value >= 0 and float(value).is_integer():
        return int(value)
    raise paths.fail(path, "must be a non-negative integer", value)


def _part(block: Mapping, key: str, total: int, paths: _Paths, path: str) -> int:
    count = _count(block, key, paths, path)
    if count > total:
        raise paths.fail(path, f"exceeds its total {total}", count)
    return count


def model_samples(trials: Iterable[Mapping]) -> ModelSamples:
    """The samples of every Layer3 metric for one model configuration, read in one pass over ``trials``.

    ``trials`` holds stored ``Layer3MetricsV1`` dicts (camelCase keys as in seed 002 §3.1); any iterable works,
    a generator is consumed once. Raises ValueError naming the trial index and JSON path of a bad field.
    """
    gv_cr: list[float] = []
    w2wr_sc: list[float] = []
    ws_ent: list[float] = []
    gc_nc: list[float] = []
    gc_ec: list[float] = []
    gc_den: list[float] = []
    gv_useful = gv_items = 0
    flow = meta = sync = bindings = 0
    correct = judged = 0
    n_trials = n_errors = 0

    for index, trial in enumerate(trials):
        n_trials += 1
        if not isinstance(trial, Mapping):
            raise ValueError(f"trial {index}: expected a Layer3MetricsV1 object; got {type(trial).__name__}")
        if "error" in trial:
            n_errors += 1
            continue
        paths = _Paths(index)

        gv = _block(trial, "generatedValueRelevance", paths, "generatedValueRelevance")
        if gv is not None:
            items = _count(gv, "evaluatedItems", paths, "generatedValueRelevance.evaluatedItems")
            dist = _block(gv, "distribution", paths, "generatedValueRelevance.distribution")
            if dist is None:
                raise ValueError(f"trial {index}: generatedValueRelevance.distribution is missing")
            gv_useful += _part(dist, "useful", items, paths, "generatedValueRelevance.distribution.useful")
            gv_items += items
            if items > 0:
                gv_cr.append(_number(gv, "avgScore", paths, "generatedValueRelevance.avgScore"))

        types = _block(trial, "w2wrTypeDistribution", paths, "w2wrTypeDistribution")
        if types is not None:
            total = _count(types, "totalBindings", paths, "w2wrTypeDistribution.totalBindings")
            dist = _block(types, "distribution", paths, "w2wrTypeDistribution.distribution")
            if dist is None:
                raise ValueError(f"trial {index}: w2wrTypeDistribution.distribution is missing")
            flow += _part(dist, "flow", total, paths, "w2wrTypeDistribution.distribution.flow")
            meta += _part(dist, "meta", total, paths, "w2wrTypeDistribution.distribution.meta")
            sync += _part(dist, "sync", total, paths, "w2wrTypeDistribution.distribution.sync")
            bindings += total

        sc = _block(trial, "w2wrSemanticCorrectness", paths, "w2wrSemanticCorrectness")
        if sc is not None:
            evaluated = _count(sc, "evaluatedBindings", paths, "w2wrSemanticCorrectness.evaluatedBindings")
            dist = _block(sc, "distribution", paths, "w2wrSemanticCorrectness.distribution")
            if dist is None:
                raise ValueError(f"trial {index}: w2wrSemanticCorrectness.distribution is missing")
            correct += _part(dist, "correct", evaluated, paths, "w2wrSemanticCorrectness.distribution.correct")
            judged += evaluated
            if evaluated > 0:
                w2wr_sc.append(_number(sc, "avgScore", paths, "w2wrSemanticCorrectness.avgScore"))

        diversity = _block(trial, "widgetDiversity", paths, "widgetDiversity")
        if diversity is not None:
            ws_ent.append(_number(diversity, "entropy", paths, "widgetDiversity.entropy"))

        graph = _block(trial, "graphComplexity", paths, "graphComplexity")
        if graph is not None:
            gc_nc.append(_number(graph, "nodeCount", paths, "graphComplexity.nodeCount"))
            gc_ec.append(_number(graph, "edgeCount", paths, "graphComplexity.edgeCount"))
            gc_den.append(_number(graph, "density", paths, "graphComplexity.density"))

    values = {}
    for metric, sample in zip(MANN_WHITNEY_METRICS, (gv_cr, w2wr_sc, ws_ent, gc_nc, gc_ec, gc_den), strict=True):
        array = np.array(sample, dtype=np.float64)
        array.flags.writeable = False
        values[metric] = array
    counts = {
        "GV_UR": ProportionCount(gv_useful, gv_items),
        "W2WR_FR": ProportionCount(flow, bindings),
        "W2WR_MR": ProportionCount(meta, bindings),
        "W2WR_SYR": ProportionCount(sync, bindings),
        "W2WR_CR": ProportionCount(correct, judged),
    }
    return ModelSamples(MappingProxyType(values), MappingProxyType(counts), n_trials, n_errors)
