"""The batch's GV useful rate or W2WR correctness rate, re-estimated from a judge audit (issue 18, pure: no Django).

The judge measured the rate (share of units scored 2: useful / correct) on the whole batch; the audit
stored that figure per judge in its design (``judgeRates``). This section of the calibration report puts
beside it two estimates of the same rate from the audit's stratified sample, with the sampling module's
estimator (``stratified_proportion`` / ``stratified_mean``: Σ_h (N_h/N)·ȳ_h, Cochran's variance with finite
population correction, a normal interval clipped to [0, 1]):

* ``judgeSample``: the judge's score == 2 on every sampled unit. With strata by the judge's score it is
  the batch rate again with no sampling error; it shows the sample is the batch's.
* ``human``: per unit, the share of its people's ratings equal to 2; units nobody has rated yet are
  missing at random within their stratum. This is the correction researchers should look at.

The sample is rebuilt with ``Sample.from_json`` from the stored strata (populations N_h and sample sizes
n_h) and the audit items' keys and strata. An audit stored without strata falls back on the items: each
stratum's population is the sum of its items' design weights (N_h/n_h each).

EST = {"value": float | None, "se": float | None, "ci": [low, high] | None, "n": units with a value,
"reason": why a part is None, or None}.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from annotation.audits.sampling import (
    DEFAULT_MIN_PER_STRATUM,
    Sample,
    StratifiedEstimate,
    stratified_mean,
    stratified_proportion,
)

RATE_NAMES = {"gv": "usefulRate", "w2wr": "correctnessRate"}
RATE_VALUE = 2  # useful (GV) / correct (W2WR)


def audit_sample(audit: Mapping[str, Any], items: Sequence[Mapping[str, Any]]) -> Sample:
    """The audit's sample: strata from the stored design (or, without one, from the items' strata and weights)."""
    design = audit.get("design") or {}
    strata = design.get("strata")
    if not strata:
        grouped: dict[tuple, list[float]] = {}
        for item in items:
            grouped.setdefault(tuple(item["stratum"]), []).append(float(item["weight"]))
        strata = [
            {"stratum": list(stratum), "population": round(sum(weights)), "sampled": len(weights)}
            for stratum, weights in grouped.items()
        ]
    return Sample.from_json(
        {
            "strata": strata,
            "units": [{"key": item["key"], "stratum": list(item["stratum"])} for item in items],
            "seed": audit.get("seed"),
            "requestedSize": audit.get("requestedSize"),
            "minPerStratum": design.get("minPerStratum", DEFAULT_MIN_PER_STRATUM),
        }
    )


def _estimate(estimate: StratifiedEstimate | None, reason: str | None = None, observed: int = 0) -> dict:
    if estimate is None:
        return {"value": None, "se": None, "ci": None, "n": observed, "reason": reason}
    ci = None
    if estimate.ci_low is not None and estimate.ci_high is not None:
        ci = [max(0.0, float(estimate.ci_low)), min(1.0, float(estimate.ci_high))]
    return {
        "value": None if estimate.value is None else float(estimate.value),
        "se": None if estimate.standard_error is None else float(estimate.standard_error),
        "ci": ci,
        "n": int(estimate.observed),
        "reason": estimate.reason,
    }


def rate_section(
    audit: Mapping[str, Any], items: Sequence[Mapping[str, Any]], ratings: Mapping[str, Mapping[str, int]]
) -> dict[str, Any]:
    """The report's ``rate``: {"name", "value": 2, "judgeBatch": {"<model>@<prompt>": rate}, "judgeSample", "human"}."""
    judge_rates = (audit.get("design") or {}).get("judgeRates") or {}
    section: dict[str, Any] = {
        "name": RATE_NAMES[audit["kind"]],
        "value": RATE_VALUE,
        "judgeBatch": {str(key): None if rate is None else float(rate) for key, rate in judge_rates.items()},
    }
    shares = {}
    for item in items:
        given = list((ratings.get(item["key"]) or {}).values())
        if given:
            shares[item["key"]] = sum(score == RATE_VALUE for score in given) / len(given)
    if not items:
        reason = "the audit has no items"
        return section | {"judgeSample": _estimate(None, reason), "human": _estimate(None, reason)}
    try:
        sample = audit_sample(audit, items)
    except (KeyError, TypeError, ValueError) as error:
        reason = f"the stored sampling design does not fit the items: {error}"
        return section | {"judgeSample": _estimate(None, reason), "human": _estimate(None, reason, len(shares))}
    judged = {item["key"]: item["judgeScore"] == RATE_VALUE for item in items}
    section["judgeSample"] = _estimate(stratified_proportion(sample, judged))
    section["human"] = _estimate(stratified_mean(sample, shares))
    return section
