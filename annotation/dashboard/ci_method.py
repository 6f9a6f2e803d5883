"""How an agreement report's confidence intervals were computed, and how often such an interval covers (reads).

:func:`report_ci_method` gives what ``annotation/dashboard/_ci_method.html`` shows: the method (percentile or
BCa bootstrap), the replicates, the resampling unit (items), the level, and the simulated coverage of that
interval at the report's size and rater design (``annotation.aggregation.agreement.coverage``). The simulation
takes seconds, so its result is cached (Django's cache, keyed by everything it depends on) and, for reports
stored since, kept in the report body (``ci_coverage``, written by ``agreement_report_create``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.urls import reverse
from django.utils.translation import gettext as _

from annotation.aggregation.agreement.coverage import MAX_SIMULATED_ITEMS, MIN_COVERAGE, Design
from annotation.aggregation.coverage_cache import (
    BCA,
    PERCENTILE,
    coverage_known,
    design_coverage,
    report_design,
)
from annotation.aggregation.reports import CI_METHOD, LEVEL
from annotation.aggregation.reports import SEED as BOOT_SEED
from annotation.axes import AXES

#: An older report (stored without ``ci_coverage``) is simulated while its page is shown only up to this size
#: (a few seconds, once: then cached); a larger one says to recompute (the worker simulates then).
INLINE_MAX_ITEMS = 200


def _sep(text: str) -> str:
    """Between two sentences: a space in English, none after a Japanese full stop."""
    return "" if text.endswith("。") else " "


def _percent(rate: float | None) -> str:
    return "—" if rate is None else f"{100 * rate:.1f}%"


@dataclass
class CiMethod:
    """The context of ``_ci_method.html`` (see its header): one report's interval method and its coverage."""

    method: str  # "percentile" or "bca"
    replicates: int | None
    seed: int | None
    level: float
    unit: str = "items"
    n_items: int | None = None
    n_raters: int | None = None
    raters_per_item: int | None = None
    coverage: dict | None = None  # Coverage.as_json() of this method, None when not simulated
    bca_coverage: dict | None = None  # of BCa, offered when ``too_low``
    coverage_pending: bool = False  # an older report too large to simulate while its page is shown
    switch_batch: int | None = None  # a batch id: show the form switching the method (researchers' dashboard)
    downloads: list[dict] = field(default_factory=list)  # {"label", "url", "kind"} of the report with its method

    @property
    def method_label(self) -> str:
        return _("BCa bootstrap (bias-corrected and accelerated)") if self.method == BCA else _("percentile bootstrap")

    @property
    def level_text(self) -> str:
        return f"{100 * self.level:g}%"

    @property
    def unit_label(self) -> str:
        return _("items (each drawn with all its ratings)")

    @property
    def coverage_text(self) -> str:
        return _percent(self.coverage["rate"] if self.coverage else None)

    @property
    def bca_coverage_text(self) -> str:
        return _percent(self.bca_coverage["rate"] if self.bca_coverage else None)

    @property
    def too_low(self) -> bool:
        return bool(self.coverage and self.coverage["too_low"])

    @property
    def min_coverage_text(self) -> str:
        return _percent(MIN_COVERAGE)

    @property
    def other_method(self) -> str:
        return PERCENTILE if self.method == BCA else BCA

    @property
    def statement(self) -> str:
        """The whole statement as one sentence in the active language (for exports and plain text)."""
        if not self.replicates:
            return _("No bootstrap: this report has no confidence interval.")
        text = _(
            "%(level)s CI of κ: %(method)s, %(replicates)s replicates, resampling unit: %(unit)s, seed %(seed)s."
        ) % {"level": self.level_text, "method": self.method_label, "replicates": self.replicates,
             "unit": self.unit_label, "seed": self.seed}  # fmt: skip
        if self.coverage:
            text += _sep(text) + _(
                "Simulated coverage at %(items)s items, %(per_item)s of %(raters)s raters per item: %(coverage)s "
                "(%(sets)s simulated batches, true κ %(kappa)s)."
            ) % {"items": self.n_items, "per_item": self.raters_per_item, "raters": self.n_raters,
                 "coverage": self.coverage_text, "sets": self.coverage["n_sets"],
                 "kappa": f"{self.coverage['true_kappa']:.3f}"}  # fmt: skip
            if self.too_low:
                text += _sep(text) + _("Under %(minimum)s: the interval is too narrow for a %(level)s CI.") % {
                    "minimum": self.min_coverage_text, "level": self.level_text}  # fmt: skip
        elif self.coverage_pending:
            text += _sep(text) + _("Coverage not simulated for this report yet: recompute it to add the simulation.")
        elif self.n_items:
            text += _sep(text) + _("Coverage not simulated (more than %(n)s items).") % {"n": MAX_SIMULATED_ITEMS}
        return text


def report_ci_method(report, *, switch_batch: int | None = None, downloads: list[dict] | None = None) -> CiMethod:
    """The interval method of a stored ``AgreementReport`` and its coverage (kept in the body, else simulated and
    cached). ``switch_batch`` shows the form switching the method; ``downloads`` lists the report's files."""
    body = report.report
    boot = body.get("bootstrap") or {}
    replicates = report.parameters.get("n_boot", boot.get("replicates"))
    ci = CiMethod(
        method=boot.get("method", CI_METHOD),
        replicates=None if replicates is None else int(replicates),
        seed=report.parameters.get("seed", boot.get("seed", BOOT_SEED)),
        level=float(boot.get("level", LEVEL)),
        switch_batch=switch_batch,
        downloads=downloads or [],
    )
    design = report_design(body)
    if design is None:
        return ci
    ci.n_items, ci.n_raters, ci.raters_per_item = design.n_items, design.n_raters, design.raters_per_item
    kept = body.get("ci_coverage")
    large = kept is None and design.n_items > INLINE_MAX_ITEMS
    if large and not coverage_known(design):
        ci.coverage_pending = design.n_items <= MAX_SIMULATED_ITEMS
        return ci
    kept = kept if kept is not None else design_coverage(design)
    ci.coverage, ci.bca_coverage = kept.get("method"), kept.get(BCA)
    return ci


def design_ci_method(design: Design, *, seed: int = BOOT_SEED) -> CiMethod:
    """The statement for intervals computed elsewhere than in a stored report (e.g. a monthly page): the engine's
    bootstrap as ``design`` describes it (items, raters, raters per item, replicates, method, level), with its
    cached coverage and, when that is too low, BCa's."""
    ci = CiMethod(
        method=design.method,
        replicates=design.n_boot,
        seed=seed,
        level=design.level,
        n_items=design.n_items,
        n_raters=design.n_raters,
        raters_per_item=design.raters_per_item,
    )
    found = design_coverage(design)
    ci.coverage, ci.bca_coverage = found["method"], found.get(BCA)
    return ci


REPORT_COLUMNS = (
    "axis", "kappa", "ci_low", "ci_high", "ci_method", "ci_replicates", "ci_unit", "ci_level", "ci_seed",
    "ci_coverage", "ci_coverage_sets", "ci_coverage_true_kappa", "alpha", "ac2", "agreement_exact",
    "agreement_within_1", "n_items", "passed", "ci_statement",
)  # fmt: skip


def report_sheet_rows(report, ci: CiMethod) -> list[list]:
    """One row per axis of a stored report, in ``REPORT_COLUMNS`` order: the figures and how the CI was computed."""
    coverage = ci.coverage or {}
    rows = []
    stored = report.report.get("axes") or {}
    # the axes in their fixed order (PostgreSQL's jsonb keeps no key order)
    for axis, data in ((axis, stored[axis]) for axis in [*AXES, *sorted(set(stored) - set(AXES))] if axis in stored):
        low, high = data.get("ci95") or (None, None)
        rows.append([
            axis, data.get("kappa"), low, high, ci.method, ci.replicates, ci.unit, ci.level, ci.seed,
            coverage.get("rate"), coverage.get("n_sets"), coverage.get("true_kappa"), data.get("alpha"),
            data.get("ac2"), data.get("agreement_exact"), data.get("agreement_within_1"), data.get("n_items"),
            data.get("passed"), ci.statement,
        ])  # fmt: skip
    return rows


def dashboard_ci_method(report, batch) -> CiMethod:
    """The dashboard's statement: with the forms switching the method and the report's CSV and Excel files."""
    downloads = [
        {"kind": "report-csv", "label": _("CSV"), "url": reverse("annotation:download-report-csv", args=[batch.pk])},
        {
            "kind": "report-xlsx",
            "label": _("Excel"),
            "url": reverse("annotation:download-report-xlsx", args=[batch.pk]),
        },
    ]
    return report_ci_method(report, switch_batch=batch.pk, downloads=downloads)
