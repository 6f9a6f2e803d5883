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

- per trial, the same counts (``trial_counts``: for each proportion metric, successes and n of every trial
  read, in order, 0 and 0 where the trial has no such block), for the trial-level cluster bootstrap;
- the judges of the judged metrics (GV_CR and GV_UR read the ``gv`` judge, W2WR_SC and W2WR_CR the ``w2wr``
  judge, ``layer3.metrics.provenance.METRIC_JUDGE``): ``block_judge`` of each judged block with at least one
  judged item (binding), as ``judges`` (the sorted distinct labels) and ``judge_trials`` (trials per label).
  A judged block with no judged item gives no data and no judge, and its ``avgScore`` (null, or the 0 of old
  trials) is not read.

A trial dict with an ``"error"`` key has no metrics and is skipped. A block that is absent (or null) adds
nothing; a block that is present must hold the fields above, or a ValueError names the trial and JSON path.
The counts and judges of a model judged by several judges are kept together here; the comparisons refuse
to test them (:mod:`layer3.statistics.comparisons`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from numbers import Real
from types import MappingProxyType

import numpy as np

from layer3.metrics.provenance import JUDGED_BLOCKS, METRIC_JUDGE, block_judge

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
# The same unit as a code, for translation (``reason_params["unit"]`` of an empty group).
SAMPLE_UNIT_CODES = {
    **dict.fromkeys(MANN_WHITNEY_METRICS, "trials"),
    "GV_UR": "judged_items",
    "W2WR_FR": "bindings",
    "W2WR_MR": "bindings",
    "W2WR_SYR": "bindings",
    "W2WR_CR": "judged_bindings",
}
JUDGE_GROUPS = tuple(JUDGED_BLOCKS)  # ("gv", "w2wr")
# The columns of the per-trial count matrix, and which (successes, n) columns each proportion metric reads.
_COLUMNS = ("gvUseful", "gvItems", "flow", "meta", "sync", "bindings", "correct", "judgedBindings")
_METRIC_COLUMNS = {"GV_UR": (0, 1), "W2WR_FR": (2, 5), "W2WR_MR": (3, 5), "W2WR_SYR": (4, 5), "W2WR_CR": (6, 7)}


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
    which ``error_trials`` were skipped for their ``"error"`` key.

    ``trial_counts[metric]`` is ``(successes, n)`` of each proportion metric per trial read without error
    (read-only int64 arrays of equal length, in the order read; their sums are ``counts``). ``judges["gv"]``
    and ``judges["w2wr"]`` are the sorted distinct judge labels of the trials with judged data,
    ``judge_trials[group][label]`` how many trials each judge scored.
    """

    values: Mapping[str, np.ndarray]
    counts: Mapping[str, ProportionCount]
    trials: int
    error_trials: int
    judges: Mapping[str, tuple[str, ...]]
    judge_trials: Mapping[str, Mapping[str, int]]
    trial_counts: Mapping[str, tuple[np.ndarray, np.ndarray]]

    def judge(self, group: str) -> str | None:
        """The one judge of ``group`` ("gv" or "w2wr"); None when no trial has judged data or several judges do."""
        labels = self.judges[group]
        return labels[0] if len(labels) == 1 else None

    def metric_judges(self, metric: str) -> tuple[str, ...]:
        """The judges of a judged metric (``METRIC_JUDGE``); () for the automatic metrics."""
        group = METRIC_JUDGE.get(metric)
        return self.judges[group] if group else ()


class _Paths:
    """Builds the 'trial 3: graphComplexity.density' part of error messages, only when there is an error."""

    def __init__(self, index: int) -> None:
        self.index = index

    def fail(self, path: str, problem: str, value: object) -> ValueError:
        return ValueError(f"trial {self.index}: {path} {problem}; got {value!r}")


def _block(parent: Mapping, key: str, paths: _Paths, path: str) -> Mapping | None:
    block = parent.get(key)
    if block is None or type(block) is dict or isinstance(block, Mapping):  # dict first: ABC checks are slow
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
    rows: list[int] = []  # len(_COLUMNS) counts per trial read without error, flattened
    judge_trials: dict[str, dict[str, int]] = {group: {} for group in JUDGE_GROUPS}
    gv_judges, w2wr_judges = judge_trials["gv"], judge_trials["w2wr"]
    n_trials = n_errors = 0

    for index, trial in enumerate(trials):
        n_trials += 1
        if type(trial) is not dict and not isinstance(trial, Mapping):
            raise ValueError(f"trial {index}: expected a Layer3MetricsV1 object; got {type(trial).__name__}")
        if "error" in trial:
            n_errors += 1
            continue
        paths = _Paths(index)

        useful = items = flow = meta = sync = total = correct = evaluated = 0
        gv = _block(trial, "generatedValueRelevance", paths, "generatedValueRelevance")
        if gv is not None:
            items = _count(gv, "evaluatedItems", paths, "generatedValueRelevance.evaluatedItems")
            dist = _block(gv, "distribution", paths, "generatedValueRelevance.distribution")
            if dist is None:
                raise ValueError(f"trial {index}: generatedValueRelevance.distribution is missing")
            useful = _part(dist, "useful", items, paths, "generatedValueRelevance.distribution.useful")
            if items > 0:
                gv_cr.append(_number(gv, "avgScore", paths, "generatedValueRelevance.avgScore"))
                label = block_judge(gv)
                gv_judges[label] = gv_judges.get(label, 0) + 1

        types = _block(trial, "w2wrTypeDistribution", paths, "w2wrTypeDistribution")
        if types is not None:
            total = _count(types, "totalBindings", paths, "w2wrTypeDistribution.totalBindings")
            dist = _block(types, "distribution", paths, "w2wrTypeDistribution.distribution")
            if dist is None:
                raise ValueError(f"trial {index}: w2wrTypeDistribution.distribution is missing")
            flow = _part(dist, "flow", total, paths, "w2wrTypeDistribution.distribution.flow")
            meta = _part(dist, "meta", total, paths, "w2wrTypeDistribution.distribution.meta")
            sync = _part(dist, "sync", total, paths, "w2wrTypeDistribution.distribution.sync")

        sc = _block(trial, "w2wrSemanticCorrectness", paths, "w2wrSemanticCorrectness")
        if sc is not None:
            evaluated = _count(sc, "evaluatedBindings", paths, "w2wrSemanticCorrectness.evaluatedBindings")
            dist = _block(sc, "distribution", paths, "w2wrSemanticCorrectness.distribution")
            if dist is None:
                raise ValueError(f"trial {index}: w2wrSemanticCorrectness.distribution is missing")
            correct = _part(dist, "correct", evaluated, paths, "w2wrSemanticCorrectness.distribution.correct")
            if evaluated > 0:
                w2wr_sc.append(_number(sc, "avgScore", paths, "w2wrSemanticCorrectness.avgScore"))
                label = block_judge(sc)
                w2wr_judges[label] = w2wr_judges.get(label, 0) + 1
        rows += (useful, items, flow, meta, sync, total, correct, evaluated)

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
    # One column per count, each contiguous: the bootstrap reads them as rows of a matrix.
    columns = np.array(rows, dtype=np.int64).reshape(-1, len(_COLUMNS)).T.copy()
    columns.flags.writeable = False
    totals = [int(total) for total in columns.sum(axis=1)]
    counts, trial_counts = {}, {}
    for metric, (successes, n) in _METRIC_COLUMNS.items():
        counts[metric] = ProportionCount(totals[successes], totals[n])
        trial_counts[metric] = (columns[successes], columns[n])
    judges = {group: tuple(sorted(judge_trials[group])) for group in JUDGE_GROUPS}
    return ModelSamples(
        values=MappingProxyType(values),
        counts=MappingProxyType(counts),
        trials=n_trials,
        error_trials=n_errors,
        judges=MappingProxyType(judges),
        judge_trials=MappingProxyType({group: MappingProxyType(judge_trials[group]) for group in JUDGE_GROUPS}),
        trial_counts=MappingProxyType(trial_counts),
    )
