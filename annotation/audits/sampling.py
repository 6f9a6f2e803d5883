"""Stratified audit samples of judged Layer3 items, and batch estimates from them (pure: no Django).

A judge audit (issue 18) draws GV items or W2WR bindings from a judged batch, stratified by model
config and by the judge's score, so that rare labels are in the sample; the design is stored so that
what humans say about the sample can be reported for the whole batch.

Units. The caller passes ``(key, stratum)`` pairs: the key is a string naming one judged item,
unique in the batch (e.g. ``"<trial id>:<itemId>"`` from a trial's ``layer3_metrics``
``generatedValueRelevance.itemEvaluations``, ``"<trial id>:<bindingId>"`` from
``w2wrSemanticCorrectness.bindingEvaluations``); the stratum is a tuple of hashable values, e.g.
``(model_config, score)``. Strata are ordered by the smallest key they hold, so neither the input
order nor whether stratum values can be compared with each other matters; that order breaks ties.

Allocation. Every stratum gets at least ``min_per_stratum`` units (2 by default, so that its
variance can be estimated; a stratum holding fewer is taken whole), and the rest of ``size`` goes to
the other strata in proportion to their population: n_h = max(min_h, λ·N_h) with the λ that makes
the n_h sum to ``size``, rounded by largest remainder (exact fractions; equal remainders go to the
stratum that comes first). The sampling fraction n_h/N_h is thus the same in every stratum above its
minimum, so the weights vary as little as the minimum allows. λ < 1 whenever size < N, so no
stratum is allocated more than it holds. A ``size`` below what the minima need is refused, since a
stratum left out would make the batch estimate undefined; a ``size`` of the whole batch or more takes
everything (all weights 1).

Drawing. Units are sorted by key; one ``numpy.random.default_rng(seed)`` then draws without
replacement (``Generator.choice(N_h, n_h, replace=False)`` over the sorted keys) in each stratum in
stratum order; a stratum taken whole draws nothing. The same units and seed give the same sample.

Weights and estimates. A sampled unit's design weight is N_h/n_h, so the weights of a stratum sum to
N_h and those of the sample to N. ``stratified_mean`` / ``stratified_proportion`` estimate the batch
value from values on (some of) the sampled units as Σ_h (N_h/N)·ȳ_h, with the textbook unbiased
variance estimator with finite population correction (Cochran, *Sampling Techniques*, 5.A.1 and 5.48):

    v = Σ_h (N_h/N)² · (1 - m_h/N_h) · s_h² / m_h

where m_h is the number of sampled units of stratum h that have a value and s_h² their variance with
divisor m_h - 1 (for a proportion, m_h·p_h(1 - p_h)/(m_h - 1)). Units without a value (an audit item
not yet rated) are treated as missing at random within their stratum. The interval is the normal
(Wald) one, estimate ± z·√v, clipped to [0, 1] for a proportion.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from numbers import Integral, Real
from operator import attrgetter
from statistics import NormalDist

import numpy as np

DEFAULT_MIN_PER_STRATUM = 2  # a stratum's variance needs two units
SHOWN = 5  # how many offending keys an error message names


@dataclass(frozen=True, slots=True)
class SampledUnit:
    key: str
    stratum: tuple
    weight: float  # N_h / n_h


@dataclass(frozen=True, slots=True)
class StratumAllocation:
    stratum: tuple
    population: int  # N_h: units of the batch in this stratum
    sampled: int  # n_h

    @property
    def weight(self) -> float:
        return self.population / self.sampled


@dataclass(frozen=True, slots=True)
class Sample:
    units: tuple[SampledUnit, ...]  # sorted by key
    allocation: tuple[StratumAllocation, ...]  # in stratum order
    seed: int
    requested_size: int
    min_per_stratum: int

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(unit.key for unit in self.units)

    @property
    def population(self) -> int:
        return sum(stratum.population for stratum in self.allocation)

    def as_json(self) -> dict:
        """The design for storing (strata as lists; their values must be JSON values for ``json.dumps``)."""
        return {
            "seed": self.seed,
            "requestedSize": self.requested_size,
            "minPerStratum": self.min_per_stratum,
            "population": self.population,
            "sampled": len(self.units),
            "strata": [
                {"stratum": list(s.stratum), "population": s.population, "sampled": s.sampled, "weight": s.weight}
                for s in self.allocation
            ],
            "units": [{"key": u.key, "stratum": list(u.stratum), "weight": u.weight} for u in self.units],
        }

    @classmethod
    def from_json(cls, data: Mapping) -> Sample:
        """The sample that ``as_json`` stored (stratum lists back to tuples; weights recomputed)."""
        allocation = tuple(
            StratumAllocation(_stratum_from_json(s["stratum"]), s["population"], s["sampled"]) for s in data["strata"]
        )
        by_stratum = {s.stratum: s for s in allocation}
        units = []
        for index, unit in enumerate(data["units"]):
            stratum = _stratum_from_json(unit["stratum"])
            if stratum not in by_stratum:
                raise ValueError(f"units[{index}] ({unit['key']!r}): stratum {stratum!r} is not among the strata")
            units.append(SampledUnit(unit["key"], stratum, by_stratum[stratum].weight))
        return cls(tuple(units), allocation, data["seed"], data["requestedSize"], data["minPerStratum"])


def _stratum_from_json(value: list) -> tuple:
    return tuple(_stratum_from_json(part) if isinstance(part, list) else part for part in value)


def _check_integer(name: str, value: object, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, Integral) or value < minimum:
        raise ValueError(f"{name} must be an integer of at least {minimum}; got {value!r}")
    return int(value)


def _validated_units(units: Iterable) -> list[tuple[str, tuple]]:
    pairs, seen, duplicates = [], set(), []
    for index, unit in enumerate(units):
        try:
            key, stratum = unit
        except (TypeError, ValueError):
            raise ValueError(f"units[{index}] must be a (key, stratum) pair; got {unit!r}") from None
        if not isinstance(key, str):
            raise ValueError(f"units[{index}]: the key must be a string; got {key!r}")
        if not isinstance(stratum, tuple):
            raise ValueError(f"units[{index}] ({key!r}): the stratum must be a tuple such as (model_config, score)")
        try:
            hash(stratum)
        except TypeError:
            raise ValueError(
                f"units[{index}] ({key!r}): the stratum {stratum!r} is not hashable; use strings, numbers, "
                "None or tuples of them"
            ) from None
        if key in seen:
            duplicates.append(key)
        seen.add(key)
        pairs.append((key, stratum))
    if not pairs:
        raise ValueError("there are no units to sample from (no judged items in the batch)")
    if duplicates:
        shown = duplicates[:SHOWN]
        raise ValueError(f"{len(duplicates)} duplicate key(s), e.g. {shown!r}: every unit needs its own key")
    return pairs


def allocate(populations: Sequence[int], size: int, min_per_stratum: int) -> list[int]:
    """n_h per stratum (in the given order, which breaks ties) as the module docstring describes."""
    total = sum(populations)
    if size >= total:
        return list(populations)
    floors = [min(min_per_stratum, population) for population in populations]
    if size < sum(floors):
        raise ValueError(
            f"a sample of {size} cannot hold the {len(populations)} strata: they need at least {sum(floors)} units "
            f"({min_per_stratum} per stratum, or the whole stratum when smaller); ask for at least {sum(floors)} "
            "or merge strata"
        )
    fixed: dict[int, int] = {}
    free = list(range(len(populations)))
    while True:  # a stratum whose share falls below its floor stays there: fixing it only lowers λ
        left = size - sum(fixed.values())
        pool = sum(populations[h] for h in free)
        below = [h for h in free if left * populations[h] < floors[h] * pool]
        if not below:
            break
        fixed.update((h, floors[h]) for h in below)
        free = [h for h in free if h not in fixed]
    quotas = {h: Fraction(left * populations[h], pool) for h in free}
    counts = {h: math.floor(quota) for h, quota in quotas.items()}
    spare = left - sum(counts.values())
    for h in sorted(free, key=lambda h: (counts[h] - quotas[h], h))[:spare]:
        counts[h] += 1
    return [fixed[h] if h in fixed else counts[h] for h in range(len(populations))]


def stratified_sample(
    units: Iterable[tuple[str, tuple]], *, size: int, seed: int, min_per_stratum: int = DEFAULT_MIN_PER_STRATUM
) -> Sample:
    """A stratified sample of ``size`` units (all when ``size`` is at least their number); see the module docstring."""
    size = _check_integer("size", size, 1)
    seed = _check_integer("seed", seed, 0)
    min_per_stratum = _check_integer("min_per_stratum", min_per_stratum, 1)
    groups: dict[tuple, list[str]] = {}  # in the order of each stratum's smallest key
    for key, stratum in sorted(_validated_units(units), key=lambda pair: pair[0]):
        groups.setdefault(stratum, []).append(key)
    strata = list(groups)
    counts = allocate([len(groups[stratum]) for stratum in strata], size, min_per_stratum)

    rng = np.random.default_rng(seed)
    chosen: list[SampledUnit] = []
    for stratum, count in zip(strata, counts, strict=True):
        members = groups[stratum]
        if count < len(members):
            members = [members[i] for i in rng.choice(len(members), size=count, replace=False)]
        weight = len(groups[stratum]) / count
        chosen.extend(SampledUnit(key, stratum, weight) for key in members)
    chosen.sort(key=attrgetter("key"))
    allocation = tuple(
        StratumAllocation(stratum, len(groups[stratum]), count) for stratum, count in zip(strata, counts, strict=True)
    )
    return Sample(tuple(chosen), allocation, seed, size, min_per_stratum)


def _numbers(name: str, values: Sequence) -> np.ndarray:
    for index, value in enumerate(values):
        if not isinstance(value, Real) or not math.isfinite(value):
            raise ValueError(f"{name}[{index}] must be a finite number; got {value!r}")
    return np.asarray(values, dtype=float)


def _check_outcomes(name: str, outcomes: Iterable[tuple[object, object]]) -> None:
    for where, value in outcomes:
        if not isinstance(value, bool | np.bool_ | Integral) or value not in (0, 1):
            raise ValueError(f"{name}[{where!r}] must be True/False or 1/0; got {value!r}")


def weighted_mean(values: Sequence[float], weights: Sequence[float]) -> float:
    """Σ w·x / Σ w (the sample's design weights make it a batch-level mean)."""
    x, w = _numbers("values", values), _numbers("weights", weights)
    if len(x) != len(w):
        raise ValueError(f"{len(x)} values but {len(w)} weights; give one weight per value")
    if not len(x):
        raise ValueError("there are no values to average")
    if (w < 0).any():
        raise ValueError(f"weights must not be negative; got {float(w.min())}")
    total = float(w.sum())
    if total <= 0:
        raise ValueError("the weights sum to 0")
    return float(np.dot(w, x) / total)


def weighted_proportion(outcomes: Sequence[bool], weights: Sequence[float]) -> float:
    """The weighted share of True (or 1) outcomes: a rate such as GV useful, reweighted to the batch."""
    _check_outcomes("outcomes", enumerate(outcomes))
    return weighted_mean([int(value) for value in outcomes], weights)


@dataclass(frozen=True, slots=True)
class StratifiedEstimate:
    """A batch value estimated from a sample; ``None`` parts carry the reason."""

    value: float | None
    standard_error: float | None
    ci_low: float | None
    ci_high: float | None
    confidence: float
    observed: int  # sampled units with a value
    population: int  # N
    reason: str | None = None


def stratified_mean(sample: Sample, values: Mapping[str, float], *, confidence: float = 0.95) -> StratifiedEstimate:
    """The batch mean of a value known on (some of) the sample's units, with its standard error and interval."""
    return _estimate(sample, values, confidence, bounds=None)


def stratified_proportion(
    sample: Sample, outcomes: Mapping[str, bool], *, confidence: float = 0.95
) -> StratifiedEstimate:
    """The batch rate of an outcome (True/1) known on (some of) the sample's units; the interval clipped to [0, 1]."""
    _check_outcomes("outcomes", outcomes.items())
    return _estimate(sample, {key: int(value) for key, value in outcomes.items()}, confidence, bounds=(0.0, 1.0))


def _estimate(sample: Sample, values: Mapping[str, float], confidence: float, bounds) -> StratifiedEstimate:
    if not (isinstance(confidence, Real) and 0 < confidence < 1):
        raise ValueError(f"confidence must be between 0 and 1 (e.g. 0.95); got {confidence!r}")
    stratum_of = {unit.key: unit.stratum for unit in sample.units}
    unknown = [key for key in values if key not in stratum_of]
    if unknown:
        raise ValueError(f"{len(unknown)} key(s) are not in the sample, e.g. {unknown[:SHOWN]!r}")
    by_stratum: dict[tuple, list[float]] = {s.stratum: [] for s in sample.allocation}
    for key, value in values.items():
        if not isinstance(value, Real) or not math.isfinite(value):
            raise ValueError(f"values[{key!r}] must be a finite number; got {value!r}")
        by_stratum[stratum_of[key]].append(float(value))
    population = sample.population
    result = StratifiedEstimate(None, None, None, None, confidence, len(values), population)
    missing = [s for s in sample.allocation if not by_stratum[s.stratum]]
    if missing:
        reason = (
            f"{len(missing)} stratum/strata have no value, e.g. {missing[0].stratum!r} "
            f"({missing[0].population} units of the batch); the batch estimate needs every stratum"
        )
        return replace(result, reason=reason)

    value, variance, single = 0.0, 0.0, []
    for stratum in sample.allocation:
        y = np.asarray(by_stratum[stratum.stratum])
        share = stratum.population / population
        value += share * float(y.mean())
        if len(y) == stratum.population:  # the whole stratum is known: no sampling error
            continue
        if len(y) == 1:
            single.append(stratum)
            continue
        variance += share**2 * (1 - len(y) / stratum.population) * float(y.var(ddof=1)) / len(y)
    if single:
        reason = (
            f"{len(single)} stratum/strata have a single value, e.g. {single[0].stratum!r} (1 of "
            f"{single[0].population} units), so their variance and the standard error cannot be estimated"
        )
        return replace(result, value=value, reason=reason)
    error = math.sqrt(variance)
    half = NormalDist().inv_cdf(0.5 + confidence / 2) * error
    low, high = value - half, value + half
    if bounds is not None:
        low, high = max(low, bounds[0]), min(high, bounds[1])
    return replace(result, value=value, standard_error=error, ci_low=low, ci_high=high)
