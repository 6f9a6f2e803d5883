"""Two versions of a batch's figures side by side: per model config × metric, A, B, Δ = B - A and its test.

A version is one run's snapshot of a batch or one batch; ``compare_versions`` takes, per model config, the
matched trial pairs and the trials of either side left unmatched (:mod:`layer3.compare.matching` says how they
are matched) and tests every metric of ``LAYER3_METRICS``:

- a config with matched pairs is tested paired, over its pairs only (unmatched trials are counted, not tested):

  - continuous metrics (GV_CR, W2WR_SC, WS_ENT, GC_NC, GC_EC, GC_DEN): Wilcoxon signed-rank over the pairs where
    both trials have the figure (:func:`layer3.statistics.paired.wilcoxon_signed_rank`);
  - proportions (GV_UR, W2WR_FR/MR/SYR, W2WR_CR): McNemar over the items found in both versions of a pair
    (:mod:`layer3.statistics.trial_values` keys them; :func:`layer3.statistics.paired.mcnemar`, exact below 25
    discordant pairs, chi-square with continuity correction otherwise). When the two versions share no item (their
    specs differ), the items cannot be paired and the §7 two-proportion z-test compares the pooled counts of the
    matched trials instead (``pairing`` "items_unpaired");

- a config without any matched pair is compared with the §7 unpaired tests over all its trials
  (:func:`layer3.statistics.comparisons.compare_metric`: Mann–Whitney U, two-proportion z; ``pairing``
  "unpaired").

A judged metric (GV_CR, GV_UR, W2WR_SC, W2WR_CR) is only compared when A and B were each judged by one judge and
it is the same one; otherwise its statistic and p-value are None with ``reasonCode`` "different_judges" or
"mixed_judges" (the codes of :mod:`layer3.statistics.outcome`), valueA/valueB still shown.

The family of the Bonferroni correction is every metric of every model config compared (11 × k, performed or
not, as seed 002 §7.2 counts its family): α' = alpha / (11·k); ``adjustedPValue`` = min(1, p·11·k).

``changed_trials`` lists, per matched pair and metric, where the trial's figure differs between A and B, or where
an item's verdict changed (``changedItems``: items found in both whose verdict differs).

Rows use camelCase keys (a public API contract), plain floats, never NaN.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from layer3.metrics.provenance import METRIC_JUDGE
from layer3.statistics.comparisons import NOT_COMPARED, compare_metric
from layer3.statistics.corrections import adjust_p_values, adjusted_alpha, significance_mark
from layer3.statistics.paired import EXACT_BELOW, PairedResult, mcnemar, wilcoxon_signed_rank
from layer3.statistics.proportions import two_proportion_z
from layer3.statistics.samples import LAYER3_METRICS, PROPORTION_METRICS, model_samples
from layer3.statistics.trial_values import CONTINUOUS, trial_items, trial_judges, trial_values

CORRECTION = "bonferroni"
FAMILY = "metrics × model configs"
SIDES = ("A", "B")


@dataclass(frozen=True)
class TrialVersion:
    """One trial as one version holds it: its external id, database id, model config and metrics."""

    trial_id: str
    pk: int
    model_config: str
    metrics: Mapping | None
    input_text: str = ""


@dataclass
class ConfigVersions:
    """One model config's trials: matched (A, B) pairs and those of A or of B without a counterpart."""

    pairs: list[tuple[TrialVersion, TrialVersion]] = field(default_factory=list)
    only_a: list[TrialVersion] = field(default_factory=list)
    only_b: list[TrialVersion] = field(default_factory=list)


class _Read:
    """Each trial's figures, items and judges, read once."""

    def __init__(self) -> None:
        self.cache: dict[int, tuple] = {}

    def __call__(self, trial: TrialVersion) -> tuple[dict, dict, dict]:
        key = id(trial)
        if key not in self.cache:
            self.cache[key] = (
                trial,
                trial_values(trial.metrics),
                trial_items(trial.metrics),
                trial_judges(trial.metrics),
            )
        return self.cache[key][1:]


def _judge_refusal(metric: str, judges_a: set, judges_b: set) -> dict | None:
    if metric not in METRIC_JUDGE:
        return None
    for side, own in zip(SIDES, (judges_a, judges_b), strict=True):
        if len(own) > 1:
            labels = sorted(own)
            return {
                "reason": f"{side} was judged by {len(labels)} judges ({', '.join(labels)}); {NOT_COMPARED}",
                "reasonCode": "mixed_judges",
                "reasonParams": {"model": side, "judges": labels},
            }
    if len(judges_a) == len(judges_b) == 1 and judges_a != judges_b:
        (judge_a,), (judge_b,) = judges_a, judges_b
        return {
            "reason": f"A was judged by {judge_a} and B by {judge_b}; {NOT_COMPARED}",
            "reasonCode": "different_judges",
            "reasonParams": {"modelA": "A", "modelB": "B", "judgeA": judge_a, "judgeB": judge_b},
        }
    return None


def _one(judges: set) -> str | None:
    return next(iter(judges)) if len(judges) == 1 else None


def _paired_row(metric: str, group: ConfigVersions, read: _Read) -> dict:
    judge_group = METRIC_JUDGE.get(metric)
    judges_a: set = set()
    judges_b: set = set()
    if metric in CONTINUOUS:
        a_values, b_values = [], []
        for a, b in group.pairs:
            (va, _ia, ja), (vb, _ib, jb) = read(a), read(b)
            if judge_group and va[metric] is not None:
                judges_a.add(ja[judge_group])
            if judge_group and vb[metric] is not None:
                judges_b.add(jb[judge_group])
            if va[metric] is not None and vb[metric] is not None:
                a_values.append(va[metric])
                b_values.append(vb[metric])
        result = wilcoxon_signed_rank(a_values, b_values)
        row = _row_of(result, pairing="paired")
    else:
        b_only = c_only = both = a_success = 0
        pooled = [0, 0, 0, 0]  # successes and items of A, of B (over the matched trials), for unpaired items
        for a, b in group.pairs:
            (_va, ia, ja), (_vb, ib, jb) = read(a), read(b)
            items_a, items_b = ia[metric], ib[metric]
            pooled[0] += sum(success for _verdict, success in items_a.values())
            pooled[1] += len(items_a)
            pooled[2] += sum(success for _verdict, success in items_b.values())
            pooled[3] += len(items_b)
            shared = items_a.keys() & items_b.keys()
            if judge_group and items_a:
                judges_a.add(ja[judge_group])
            if judge_group and items_b:
                judges_b.add(jb[judge_group])
            for key in shared:
                success_a, success_b = items_a[key][1], items_b[key][1]
                both += 1
                a_success += success_a
                b_only += success_a and not success_b
                c_only += success_b and not success_a
        if both or not (pooled[1] and pooled[3]):
            row = _row_of(mcnemar(b_only, c_only, n=both, successes_a=a_success), pairing="paired")
        else:
            z = two_proportion_z(pooled[0], pooled[1], pooled[2], pooled[3], unit="items")
            row = _unpaired_row(z, pairing="items_unpaired")
    row["pairs"] = len(group.pairs)
    refusal = _judge_refusal(metric, judges_a - {None}, judges_b - {None})
    row["judgeA"], row["judgeB"] = (_one(judges_a - {None}), _one(judges_b - {None})) if judge_group else (None, None)
    if refusal is not None:
        row.update(statistic=None, pValue=None, effectSize=None, **refusal)
    return row


def _row_of(result: PairedResult, *, pairing: str) -> dict:
    b, c = result.discordant if result.discordant else (None, None)
    return {
        "pairing": pairing,
        "test": result.test,
        "nA": result.n,
        "nB": result.n,
        "valueA": result.value_a,
        "valueB": result.value_b,
        "difference": result.difference,
        "statistic": result.statistic,
        "pValue": result.p_value,
        "effectSize": result.effect_size,
        "discordantAOnly": b,
        "discordantBOnly": c,
        "reason": result.reason,
        "reasonCode": result.reason_code,
        "reasonParams": result.reason_params,
    }


def _unpaired_row(result, *, pairing: str) -> dict:
    difference = None
    if result.value_a is not None and result.value_b is not None:
        difference = result.value_b - result.value_a
    return {
        "pairing": pairing,
        "test": result.test,
        "nA": result.n_a,
        "nB": result.n_b,
        "valueA": result.value_a,
        "valueB": result.value_b,
        "difference": difference,
        "statistic": result.statistic,
        "pValue": result.p_value,
        "effectSize": result.effect_size,
        "discordantAOnly": None,
        "discordantBOnly": None,
        "reason": result.reason,
        "reasonCode": result.reason_code,
        "reasonParams": result.reason_params,
    }


def _unpaired(metric: str, group: ConfigVersions, samples: dict) -> dict:
    a, b = samples
    result = compare_metric(metric, a, b, SIDES)
    row = _unpaired_row(result, pairing="unpaired")
    row["pairs"] = 0
    judged = METRIC_JUDGE.get(metric)
    row["judgeA"] = a.judge(judged) if judged else None
    row["judgeB"] = b.judge(judged) if judged else None
    return row


def compare_versions(groups: Mapping[str, ConfigVersions], *, alpha: float = 0.05) -> dict:
    """``{"rows": [...], "summary": {...}}``: every metric of every model config of ``groups`` (sorted), A vs B."""
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be between 0 and 1 (exclusive); got {alpha!r}")
    read = _Read()
    rows = []
    for config in sorted(groups):
        group = groups[config]
        samples = None
        if not group.pairs:
            samples = (
                model_samples(t.metrics for t in group.only_a if t.metrics is not None),
                model_samples(t.metrics for t in group.only_b if t.metrics is not None),
            )
        for metric in LAYER3_METRICS:
            row = _unpaired(metric, group, samples) if samples else _paired_row(metric, group, read)
            rows.append({"modelConfig": config, "metric": metric, **row})
    performed = [row["pValue"] for row in rows if row["pValue"] is not None]
    m = len(rows)
    adjusted = iter(adjust_p_values(performed, CORRECTION, m))
    for row in rows:
        row["adjustedPValue"] = next(adjusted) if row["pValue"] is not None else None
        row["significant"] = row["adjustedPValue"] is not None and row["adjustedPValue"] < alpha
        row["mark"] = significance_mark(row["adjustedPValue"], alpha)
    summary = {
        "correction": CORRECTION,
        "family": FAMILY,
        "familySize": m,
        "alpha": alpha,
        "adjustedAlpha": adjusted_alpha(alpha, m, CORRECTION),
        "performedTests": len(performed),
        "significantCount": sum(row["significant"] for row in rows),
        "modelConfigs": sorted(groups),
        "mcnemarExactBelow": EXACT_BELOW,
    }
    return {"rows": rows, "summary": summary}


def _differs(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return (a is None) != (b is None)
    return not math.isclose(a, b, rel_tol=0.0, abs_tol=1e-12)


def changed_trials(groups: Mapping[str, ConfigVersions]) -> list[dict]:
    """Per matched pair and metric whose figure or item verdicts differ: the pair, A, B, Δ and changed items.

    In model config, trial id and metric order (``LAYER3_METRICS``); callers sort as they are asked.
    """
    read = _Read()
    changed = []
    for config in sorted(groups):
        for a, b in sorted(groups[config].pairs, key=lambda pair: pair[0].trial_id):
            (va, ia, _ja), (vb, ib, _jb) = read(a), read(b)
            for metric in LAYER3_METRICS:
                items = 0
                if metric in PROPORTION_METRICS:
                    items_a, items_b = ia[metric], ib[metric]
                    items = sum(items_a[key][0] != items_b[key][0] for key in items_a.keys() & items_b.keys())
                value_a, value_b = va[metric], vb[metric]
                if not (_differs(value_a, value_b) or items):
                    continue
                difference = value_b - value_a if value_a is not None and value_b is not None else None
                changed.append(
                    {
                        "modelConfig": config,
                        "trialA": a.trial_id,
                        "trialB": b.trial_id,
                        "pkA": a.pk,
                        "pkB": b.pk,
                        "metric": metric,
                        "valueA": value_a,
                        "valueB": value_b,
                        "difference": difference,
                        "changedItems": items,
                    }
                )
    return changed


CHANGED_SORTS = ("delta", "metric", "trial")


def sort_changed(changed: Sequence[dict], sort: str) -> list[dict]:
    """``changed`` by |Δ| (largest first, those without Δ last), by metric (its §3.2 order) or by trial id."""
    if sort == "delta":
        return sorted(
            changed,
            key=lambda row: (row["difference"] is None, -abs(row["difference"] or 0.0), row["trialA"], row["metric"]),
        )
    if sort == "metric":
        return sorted(changed, key=lambda row: (LAYER3_METRICS.index(row["metric"]), row["trialA"]))
    if sort == "trial":
        return sorted(changed, key=lambda row: (row["trialA"], LAYER3_METRICS.index(row["metric"])))
    raise ValueError(f"sort must be one of {', '.join(CHANGED_SORTS)}; got {sort!r}")
