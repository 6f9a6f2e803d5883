"""Which trial of version A is which trial of version B (pure: no Django).

Two runs of one batch (``match_runs``): the same stored trial (database id) is its own counterpart; a trial in
one run's snapshot only (the runs targeted different model configs) is unmatched.

Two batches (``match_batches``), in two steps:

1. by trial id: a trial of A and the trial of B with the same external id and the same model config are a pair
   (an external id is unique within a batch);
2. among the trials left on both sides, by the key (input text, model config): a key held by exactly one
   trial of A and exactly one trial of B makes them a pair. A key held by more than one trial on either side
   names no single trial: all its trials stay unmatched, with the reason ``duplicate_key``.

Every other trial is unmatched with the reason ``no_counterpart``. Unmatched trials are counted and listed,
never tested paired.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from layer3.statistics.versions import ConfigVersions, TrialVersion

NO_COUNTERPART = "no_counterpart"
DUPLICATE_KEY = "duplicate_key"
UNMATCHED_REASONS = (NO_COUNTERPART, DUPLICATE_KEY)


@dataclass(frozen=True)
class Unmatched:
    side: str  # "A" | "B"
    trial: TrialVersion
    reason: str  # one of UNMATCHED_REASONS


@dataclass
class Matching:
    groups: dict[str, ConfigVersions]
    unmatched: list[Unmatched]
    by_id: int = 0  # pairs matched by trial id (or, for runs, by being the same trial)
    by_key: int = 0  # pairs matched by (input text, model config)

    @property
    def pairs(self) -> int:
        return self.by_id + self.by_key


def _group(groups: dict[str, ConfigVersions], config: str) -> ConfigVersions:
    if config not in groups:
        groups[config] = ConfigVersions()
    return groups[config]


def _finish(groups: dict, left_a: Iterable[tuple[TrialVersion, str]], left_b: Iterable[tuple[TrialVersion, str]]):
    unmatched = []
    for side, left in (("A", left_a), ("B", left_b)):
        for trial, reason in left:
            group = _group(groups, trial.model_config)
            (group.only_a if side == "A" else group.only_b).append(trial)
            unmatched.append(Unmatched(side, trial, reason))
    unmatched.sort(key=lambda row: (row.side, row.trial.trial_id))
    return unmatched


def match_runs(a: Iterable[TrialVersion], b: Iterable[TrialVersion]) -> Matching:
    """Pairs of the same trial (by database id) in two snapshots of one batch."""
    by_pk = {trial.pk: trial for trial in b}
    groups: dict[str, ConfigVersions] = {}
    left_a = []
    pairs = 0
    for trial in a:
        other = by_pk.pop(trial.pk, None)
        if other is None:
            left_a.append((trial, NO_COUNTERPART))
            continue
        _group(groups, trial.model_config).pairs.append((trial, other))
        pairs += 1
    left_b = [(trial, NO_COUNTERPART) for trial in by_pk.values()]
    return Matching(groups, _finish(groups, left_a, left_b), by_id=pairs)


def match_batches(a: Iterable[TrialVersion], b: Iterable[TrialVersion]) -> Matching:
    """Pairs of two batches: by trial id and model config first, then by a unique (input text, model config)."""
    groups: dict[str, ConfigVersions] = {}
    b_by_id = {trial.trial_id: trial for trial in b}
    rest_a = []
    by_id = 0
    for trial in a:
        other = b_by_id.get(trial.trial_id)
        if other is not None and other.model_config == trial.model_config:
            del b_by_id[trial.trial_id]
            _group(groups, trial.model_config).pairs.append((trial, other))
            by_id += 1
        else:
            rest_a.append(trial)
    rest_b = list(b_by_id.values())

    def key(trial: TrialVersion) -> tuple[str, str]:
        return (trial.input_text, trial.model_config)

    count_a = Counter(key(trial) for trial in rest_a)
    count_b = Counter(key(trial) for trial in rest_b)
    unique_b = {key(trial): trial for trial in rest_b if count_b[key(trial)] == 1}
    left_a, used_b = [], set()
    by_key = 0
    for trial in rest_a:
        k = key(trial)
        if count_a[k] == 1 and k in unique_b:
            other = unique_b[k]
            used_b.add(other.pk)
            _group(groups, trial.model_config).pairs.append((trial, other))
            by_key += 1
        else:
            left_a.append((trial, DUPLICATE_KEY if count_a[k] > 1 or count_b[k] > 1 else NO_COUNTERPART))
    left_b = [
        (trial, DUPLICATE_KEY if count_b[key(trial)] > 1 or count_a[key(trial)] > 1 else NO_COUNTERPART)
        for trial in rest_b
        if trial.pk not in used_b
    ]
    for group in groups.values():
        group.pairs.sort(key=lambda pair: pair[0].trial_id)
    return Matching(groups, _finish(groups, left_a, left_b), by_id=by_id, by_key=by_key)
