"""The simulated coverage of an agreement report's interval, cached (Django's cache) and kept with new reports.

The simulation itself is pure (``annotation.aggregation.agreement.coverage``) and takes seconds, so its result
is cached under a key naming everything it depends on; ``agreement_report_create`` keeps it in each new
report's body (``ci_coverage``), and the pages (``annotation.dashboard.ci_method``) read it from there.
"""

from __future__ import annotations

from dataclasses import replace

from django.core.cache import cache

from annotation.aggregation.agreement.coverage import MAX_SIMULATED_ITEMS, SEED, Design, sets_for, simulate_coverage
from annotation.aggregation.reports import CI_METHOD, LEVEL, N_BOOT

PERCENTILE, BCA = "percentile", "bca"
CACHE_SECONDS = None  # a result never goes stale: the key names everything it depends on


def report_design(body: dict, *, method: str | None = None) -> Design | None:
    """The simulation design of a stored report body; None when it has no interval or no two raters per item."""
    boot = body.get("bootstrap") or {}
    replicates = boot.get("replicates", N_BOOT)
    axes = body.get("axes") or {}
    n_items = max((int(a.get("n_items") or 0) for a in axes.values()), default=0)
    n_raters = int(body.get("n_annotators") or 0)
    all_items = int(body.get("n_items") or 0)
    if not replicates or n_items < 2 or n_raters < 2 or not all_items:
        return None
    per_item = min(n_raters, max(2, round(int(body.get("n_ratings") or 0) / all_items)))
    return Design(
        n_items=n_items,
        n_raters=n_raters,
        raters_per_item=per_item,
        n_boot=int(replicates),
        method=method or boot.get("method", CI_METHOD),
        level=float(boot.get("level", LEVEL)),
    )


def _key(design: Design) -> str:
    return design.key(sets_for(design.n_items), SEED)


def coverage_known(design: Design) -> bool:
    """Whether ``design``'s coverage is in the cache already (reading it then costs nothing)."""
    return cache.get(_key(design)) is not None


def coverage_cached(design: Design) -> dict | None:
    """Simulated coverage of ``design`` (``Coverage.as_json()``), from the cache when computed before.

    None for a batch too large to simulate (more than ``MAX_SIMULATED_ITEMS`` items).
    """
    if design.n_items > MAX_SIMULATED_ITEMS:
        return None
    found = cache.get(key := _key(design))
    if found is None:
        found = simulate_coverage(design, n_sets=sets_for(design.n_items), seed=SEED).as_json()
        cache.set(key, found, CACHE_SECONDS)
    return found


def design_coverage(design: Design) -> dict:
    """The simulated coverage of ``design``'s interval and, when that is too low and the interval is not BCa
    already, of BCa at the same design (``{"method": ..., "bca": ...}``; cached)."""
    coverage = coverage_cached(design)
    out = {"method": coverage}
    if coverage is not None and coverage["too_low"] and design.method != BCA:
        out[BCA] = coverage_cached(replace(design, method=BCA))
    return out


def report_ci_coverage(body: dict) -> dict | None:
    """What ``agreement_report_create`` keeps in a new report: ``design_coverage`` of the report's design."""
    design = report_design(body)
    return None if design is None else design_coverage(design)
