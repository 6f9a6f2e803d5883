"""Reads for the researcher agreement dashboard: the latest stored report of a batch as tables and figures.

Figures are drawn by the templates from what is computed here: colours, SVG coordinates (as strings, so
that no localisation touches them) and the values shown. Names and texts are left raw for the templates
to escape.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from urllib.parse import urlencode
from zoneinfo import ZoneInfo

import numpy as np
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.models import Count, Q
from django.urls import reverse

from annotation.aggregation.weekly import week_codes, weekly_kappa_vs_rest
from annotation.axes import AXES, MIN_KAPPA, TARGET_KAPPA
from annotation.dashboard.palette import line_style
from annotation.guidelines.scale import AXIS_NAMES
from annotation.job_handlers import AGREEMENT_REPORT
from annotation.models import AgreementReport, Annotation, Batch, QualityFlag
from annotation.review.flags import can_review_flags
from annotation.review.selectors import accepted_flag_exclusions, flag_batch_expression
from core.models import Job
from core.roles import ADMIN, has_role

AXIS_LABELS = AXIS_NAMES

# Heat map colour scale: kappa -> colour, linear between the stops (red below 0, amber at the minimum 0.60,
# green from the target 0.80 up).
_STOPS = [(-1.0, (122, 20, 14)), (0.0, (180, 35, 24)), (MIN_KAPPA, (245, 200, 106)), (TARGET_KAPPA, (143, 209, 158)),
          (1.0, (31, 122, 68))]  # fmt: skip


def number(value: float | None, digits: int = 3) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def percent(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.1f}%"


def batch_choices() -> list[Batch]:
    people = ~Q(dialogues__annotations__source=Annotation.Source.LLM)  # an LLM rater's ratings are not the batch's
    return list(Batch.objects.annotate(n_ratings=Count("dialogues__annotations", filter=people)).order_by("name"))


def default_batch(batches: list[Batch]) -> Batch | None:
    """The first batch with ratings (else the first batch, else None)."""
    return next((b for b in batches if b.n_ratings), batches[0] if batches else None)


def batch_has_ratings(batch: Batch) -> bool:
    return Annotation.objects.filter(dialogue__batch=batch).exists()


def latest_report(batch: Batch) -> AgreementReport | None:
    return AgreementReport.objects.filter(batch=batch).select_related("created_by").order_by("-created_at").first()


def running_job(batch: Batch) -> Job | None:
    """A recomputation of this batch that has not finished yet."""
    unfinished = Job.objects.filter(kind=AGREEMENT_REPORT, params__batch_id=batch.pk).exclude(status__in=Job.FINISHED)
    return unfinished.order_by("-created_at").first()


RECENT_FLAGS = 5


def open_flags(batch: Batch, user) -> dict:
    """This batch's quality flags for the dashboard's card: how many are open, by kind, the latest few, the
    review list showing exactly them (on the admin for admins, on the review site for reviewers, None for
    others), and the accepted flags that leave ratings out of the consensus."""
    flags = (
        QualityFlag.objects.annotate(flag_batch=flag_batch_expression())
        .filter(status=QualityFlag.Status.OPEN)
        .filter(Q(flag_batch=batch.pk) | Q(report__batch=batch))
    )
    kinds = list(flags.order_by().values_list("kind").annotate(n=Count("id")).order_by("-n", "kind"))
    recent = flags.select_related("annotator", "dialogue").order_by("-created_at", "-id")[:RECENT_FLAGS]
    query = urlencode({"status__exact": QualityFlag.Status.OPEN, "batch": batch.pk})
    site = "admin" if has_role(user, ADMIN) else "review" if can_review_flags(user) else None
    return {
        "count": sum(n for _kind, n in kinds),
        "kinds": [{"kind": kind, "n": n} for kind, n in kinds],
        "recent": list(recent),
        "review_url": f"{reverse(f'{site}:annotation_qualityflag_changelist')}?{query}" if site else None,
        "review_site": site,
        "accepted": accepted_flag_exclusions(batch),
    }


def report_bootstrap(report: AgreementReport) -> dict:
    """The bootstrap actually used for ``report``: replicates and seed from its parameters (else its body)."""
    stored = report.report.get("bootstrap") or {}
    replicates = report.parameters.get("n_boot", stored.get("replicates"))
    seed = report.parameters.get("seed", stored.get("seed"))
    return {"replicates": None if replicates is None else int(replicates), "seed": seed}


def ratings_changed_since(batch: Batch, report: AgreementReport) -> bool:
    """Whether the batch's ratings now differ from those the report was computed from (added, removed, edited)."""
    ratings = Annotation.objects.filter(dialogue__batch=batch)
    if not report.parameters.get("include_llm"):  # reports count people's ratings unless told otherwise
        ratings = ratings.exclude(source=Annotation.Source.LLM)
    if ratings.count() != report.report.get("n_ratings"):
        return True
    return ratings.filter(updated_at__gt=report.created_at).exists()


def axis_summaries(report: AgreementReport) -> list[dict]:
    rows = []
    accepted = (report.report.get("accepted_flags") or {}).get("kappa") or {}
    for axis in AXES:
        data = report.report.get("axes", {}).get(axis)
        if data is None:
            continue
        ci = data.get("ci95")
        rows.append(
            {
                "axis": axis,
                "label": AXIS_LABELS[axis],
                "kappa": data.get("kappa"),
                "kappa_text": number(data.get("kappa")),
                "kappa_accepted_text": number(accepted.get(axis)),
                "ci_text": f"[{ci[0]:.3f}, {ci[1]:.3f}]" if ci else "—",
                "alpha_text": number(data.get("alpha")),
                "ac2_text": number(data.get("ac2")),
                "exact_text": percent(data.get("agreement_exact")),
                "within_1_text": percent(data.get("agreement_within_1")),
                "n_items": data.get("n_items"),
                "passed": data.get("passed"),
                "target_reached": data.get("target_reached"),
                "paradox_note": data.get("paradox_note"),
                "reason": data.get("reason"),
            }
        )
    return rows


def kappa_colour(kappa: float | None) -> tuple[str, str]:
    """Background and text colour of a heat map cell."""
    if kappa is None:
        return "#eef0f3", "#5b6575"
    k = min(1.0, max(-1.0, kappa))
    for (k0, c0), (k1, c1) in itertools.pairwise(_STOPS):
        if k <= k1:
            t = (k - k0) / (k1 - k0)
            rgb = [round(a + (b - a) * t) for a, b in zip(c0, c1, strict=True)]
            break
    luminance = (0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2]) / 255
    return "#{:02x}{:02x}{:02x}".format(*rgb), "#1d2430" if luminance > 0.55 else "#ffffff"


def colour_legend() -> list[dict]:
    return [
        {"label": label, "background": kappa_colour(k)[0]}
        for k, label in [(-0.2, "< 0"), (0.3, "0.3"), (0.6, "0.6"), (0.8, "0.8"), (1.0, "1.0")]
    ]


@dataclass
class HeatCell:
    kappa: float | None
    n_items: int = 0
    reason: str | None = None
    other: str = ""
    diagonal: bool = False
    background: str = ""
    foreground: str = ""

    def __post_init__(self):
        if not self.diagonal:
            self.background, self.foreground = kappa_colour(self.kappa)

    @property
    def text(self) -> str:
        return number(self.kappa, 2)

    @property
    def tooltip_kappa(self) -> str:
        return number(self.kappa)


@dataclass
class HeatRow:
    annotator: str
    cells: list[HeatCell] = field(default_factory=list)
    vs_rest: HeatCell | None = None
    llm: bool = False  # an LLM rater: its "vs rest" is its kappa vs the humans only


def _pair_cell(pairs: dict, name: str, other: str) -> HeatCell:
    if name == other:
        return HeatCell(None, other=other, diagonal=True)
    pair = pairs.get((name, other))
    if pair is None:
        return HeatCell(None, 0, "no common items", other)
    return HeatCell(pair["kappa"], pair["n_items"], pair.get("reason"), other)


def _llm_pairs(report: AgreementReport, axis: str) -> tuple[list[dict], dict[tuple[str, str], dict]]:
    """The LLM raters' entries of one axis (from the report's ``llm_raters`` section) and their pairs, by name."""
    section = report.report.get("llm_raters") or {}
    labels = {str(r["annotator"]): r["label"] for r in section.get("raters", [])}
    data = section.get("axes", {}).get(axis) or {}
    entries = [{**entry, "label": labels.get(str(entry["annotator"]), str(entry["annotator"]))}
               for entry in data.get("raters", [])]  # fmt: skip
    pairs = {}
    for entry in entries:
        for pair in entry.get("pairs", []):
            pairs[(entry["label"], str(pair["annotator"]))] = pairs[(str(pair["annotator"]), entry["label"])] = pair
    for pair in data.get("pairs_between_llms", []):
        a, b = (labels.get(str(name), str(name)) for name in pair["annotators"])
        pairs[(a, b)] = pairs[(b, a)] = pair
    return entries, pairs


def heat_map(report: AgreementReport, axis: str) -> dict | None:
    """Pairwise kappa of one axis as an annotators x annotators matrix (symmetric; the diagonal left blank).

    The LLM raters of the report's ``llm_raters`` section come last, as rows and columns marked ``llm``; the
    humans' "vs rest" stays the human report's (human partners only), an LLM's is its kappa vs the humans.
    """
    data = report.report.get("axes", {}).get(axis)
    if not data:
        return None
    humans = [str(a["annotator"]) for a in data.get("annotators", [])]
    pairs = {}
    for pair in data.get("pairs", []):
        a, b = (str(name) for name in pair["annotators"])
        pairs[(a, b)] = pairs[(b, a)] = pair
    llm_entries, llm_pairs = _llm_pairs(report, axis)
    pairs |= llm_pairs
    names = humans + [entry["label"] for entry in llm_entries]
    rows = []
    for entry in data.get("annotators", []):
        name = str(entry["annotator"])
        row = HeatRow(name, vs_rest=HeatCell(entry.get("kappa_vs_rest"), entry.get("n_items", 0), entry.get("reason")))
        row.cells = [_pair_cell(pairs, name, other) for other in names]
        rows.append(row)
    for entry in llm_entries:
        vs_humans = HeatCell(entry.get("kappa_vs_humans"), entry.get("n_items", 0), entry.get("reason"))
        rows.append(HeatRow(entry["label"], [_pair_cell(pairs, entry["label"], o) for o in names], vs_humans, llm=True))
    columns = [{"name": name, "llm": i >= len(humans)} for i, name in enumerate(names)]
    return {"annotators": names, "columns": columns, "rows": rows, "legend": colour_legend(),
            "has_llm": bool(llm_entries)}  # fmt: skip


# --- the weekly plot ----------------------------------------------------------------------------------------

WIDTH, HEIGHT = 760, 320
LEFT, RIGHT, TOP, BOTTOM = 52, 40, 16, 60
MAX_X_LABELS = 10
X_PAD = 14  # keeps the first and last week's markers off the frame


def _fmt(value: float) -> str:
    return f"{value:.1f}"


def _axis_ratings(batch: Batch, axis: str) -> tuple[np.ndarray, np.ndarray, list[str]] | None:
    """One axis of the batch's stored ratings as (scores, epoch seconds, annotator names), items x annotators.

    Reads only the four columns needed: three times faster than building the full RatingSet.
    """
    rows = list(
        Annotation.objects.filter(dialogue__batch=batch)
        .exclude(source=Annotation.Source.LLM)  # agreement between people: the LLM has its own card
        .values_list("dialogue_id", "annotator_id", "created_at", f"{axis}_score")
        .iterator(chunk_size=5_000)
    )
    if not rows:
        return None
    items, raters, stamps, scores = zip(*rows, strict=True)
    item_pks, item_idx = np.unique(np.asarray(items), return_inverse=True)
    rater_pks, rater_idx = np.unique(np.asarray(raters), return_inverse=True)
    shape = (item_pks.size, rater_pks.size)
    matrix = np.zeros(shape, dtype=np.int8)
    matrix[item_idx, rater_idx] = scores
    epoch = np.full(shape, np.nan)
    epoch[item_idx, rater_idx] = np.fromiter((t.timestamp() for t in stamps), dtype=np.float64, count=len(stamps))
    names = dict(get_user_model().objects.filter(pk__in=rater_pks.tolist()).values_list("pk", "username"))
    return matrix, epoch, [names[int(pk)] for pk in rater_pks]


def weekly_plot(batch: Batch, axis: str) -> dict | None:
    """Each annotator's weekly kappa with the rest (B.3.2), from the ratings stored now, as SVG geometry."""
    loaded = _axis_ratings(batch, axis)
    if loaded is None:
        return None
    scores, epoch, names = loaded
    weeks = week_codes(epoch, tz=ZoneInfo(settings.TIME_ZONE))
    result = weekly_kappa_vs_rest(scores, weeks, names)
    codes = [int(c) for c in result.week_codes]
    labels = result.week_labels
    inner_w, inner_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    span = codes[-1] - codes[0]

    def x(code: int) -> float:
        return LEFT + (inner_w / 2 if span == 0 else X_PAD + (code - codes[0]) / span * (inner_w - 2 * X_PAD))

    finite = result.kappa[~np.isnan(result.kappa)]
    low = max(-1.0, min(0.0, math.floor(float(finite.min()) * 5) / 5)) if finite.size else 0.0

    def y(value: float) -> float:
        return TOP + (1.0 - value) / (1.0 - low) * inner_h

    step = max(1, math.ceil(len(codes) / MAX_X_LABELS))
    x_ticks = [
        {"x": _fmt(x(code)), "label": label if i % step == 0 else ""}
        for i, (code, label) in enumerate(zip(codes, labels, strict=True))
    ]
    y_ticks = [{"y": _fmt(y(v)), "label": f"{v:.1f}"} for v in _y_tick_values(low)]
    thresholds = [
        {"y": _fmt(y(MIN_KAPPA)), "value": f"{MIN_KAPPA:.2f}", "kind": "min"},
        {"y": _fmt(y(TARGET_KAPPA)), "value": f"{TARGET_KAPPA:.2f}", "kind": "target"},
    ]
    order = sorted(range(len(result.rater_ids)), key=lambda r: str(result.rater_ids[r]))
    series = []
    for n, r in enumerate(order):
        points, segments, run = [], [], []
        previous = None
        for w, code in enumerate(codes):
            value = result.value(r, w)
            if value is None:
                continue
            point = {"cx": _fmt(x(code)), "cy": _fmt(y(value)), "week": labels[w], "kappa": number(value),
                     "n_items": int(result.n_common[r, w])}  # fmt: skip
            points.append(point)
            # A line joins consecutive calendar weeks only: an undefined or empty week in between is a gap.
            if previous is not None and code - previous != 7:
                segments.append(run)
                run = []
            run.append(f"{point['cx']},{point['cy']}")
            previous = code
        if run:
            segments.append(run)
        colour, dash = line_style(n)
        series.append(
            {
                "name": str(result.rater_ids[r]),
                "colour": colour,
                "dash": dash,
                "points": points,
                "lines": [" ".join(s) for s in segments if len(s) > 1],
            }
        )
    table = [
        {
            "week": labels[w],
            "cells": [
                {
                    "kappa": number(result.value(r, w)),
                    "n_items": int(result.n_common[r, w]),
                    "reason": result.reasons[r][w],
                }
                for r in order
            ],
        }
        for w in range(len(codes))
    ]
    return {
        "width": WIDTH,
        "height": HEIGHT,
        "plot": {
            "left": LEFT,
            "right": WIDTH - RIGHT,
            "top": TOP,
            "bottom": HEIGHT - BOTTOM,
            "width": inner_w,
            "height": inner_h,
        },
        "y_label_x": LEFT - 8,
        "tick_end_y": HEIGHT - BOTTOM + 5,
        "x_label_y": HEIGHT - BOTTOM + 20,
        "x_title_y": HEIGHT - 8,
        "x_ticks": x_ticks,
        "y_ticks": y_ticks,
        "thresholds": thresholds,
        "series": series,
        "table": table,
        "first_week": labels[0],
        "last_week": labels[-1],
        "time_zone": settings.TIME_ZONE,
    }


def _y_tick_values(low: float) -> list[float]:
    count = round((1.0 - low) / 0.2)
    return [round(low + 0.2 * i, 1) for i in range(count + 1)]
