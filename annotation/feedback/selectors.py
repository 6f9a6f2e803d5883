"""Reads of the monthly feedback: one month's ratings, the prepared month or its figures computed now, flags.

A month is a calendar month in the site time zone (``settings.TIME_ZONE``), named by its first day. Its ratings
are the people's ratings (not an LLM rater's) created from its first midnight up to the next month's, whatever
the batch.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time

import numpy as np
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db.models import Count, Max, Min, Prefetch, Sum
from django.utils import timezone

from annotation.aggregation.agreement.coverage import Design
from annotation.aggregation.coverage_cache import BCA, design_coverage
from annotation.axes import AXES
from annotation.dashboard.ci_method import CiMethod
from annotation.feedback.compute import month_feedback, trend_point
from annotation.io.dataset import RatingSet
from annotation.models import Annotation, Dialogue, MonthlyFeedback, QualityFlag, QualityFlagReview
from core.roles import ANNOTATOR

TREND_MONTHS = 6  # the month shown and the five before it
COMPUTED_SECONDS = 600  # how long figures computed on demand (a month not prepared) are reused


def first_of(day: date) -> date:
    return day.replace(day=1)


def shift_month(month: date, months: int) -> date:
    index = month.year * 12 + month.month - 1 + months
    return date(index // 12, index % 12 + 1, 1)


def month_bounds(month: date) -> tuple[datetime, datetime]:
    """The first midnight of ``month`` and of the next month, in the site time zone."""
    zone = timezone.get_default_timezone()
    return (
        datetime.combine(first_of(month), time.min, tzinfo=zone),
        datetime.combine(shift_month(first_of(month), 1), time.min, tzinfo=zone),
    )


def this_month(now: datetime | None = None) -> date:
    return first_of(timezone.localtime(now or timezone.now()).date())


def human_ratings():
    return Annotation.objects.exclude(source=Annotation.Source.LLM)


def default_month(user=None, *, now: datetime | None = None) -> date:
    """The month a feedback page opens on: the month just ended if it has ratings (of ``user``, when given),
    else the month of the latest rating, else this month."""
    ratings = human_ratings() if user is None else human_ratings().filter(annotator=user)
    previous = shift_month(this_month(now), -1)
    start, end = month_bounds(previous)
    if ratings.filter(created_at__gte=start, created_at__lt=end).exists():
        return previous
    latest = ratings.aggregate(latest=Max("created_at"))["latest"]
    return first_of(timezone.localtime(latest).date()) if latest else this_month(now)


def month_ratings(month: date) -> RatingSet | None:
    """The month's ratings by people, items (dialogue ids) x annotators (usernames); None when there are none."""
    start, end = month_bounds(month)
    columns = ["dialogue__external_id", "annotator__username", "seconds_spent", "created_at"]
    columns += [f"{axis}_score" for axis in AXES] + [f"{axis}_confidence" for axis in AXES]
    rows = list(
        human_ratings()
        .filter(created_at__gte=start, created_at__lt=end)
        .order_by("dialogue__external_id", "annotator__username")
        .values_list(*columns)
    )
    if not rows:
        return None
    items = sorted({row[0] for row in rows})
    raters = sorted({row[1] for row in rows})
    item_at = {item: i for i, item in enumerate(items)}
    rater_at = {rater: r for r, rater in enumerate(raters)}
    shape = (len(items), len(raters))
    scores = {axis: np.zeros(shape, dtype=np.int8) for axis in AXES}
    confidence = {axis: np.full(shape, np.nan) for axis in AXES}
    seconds, epoch = np.full(shape, np.nan), np.full(shape, np.nan)
    for item, rater, spent, created, *values in rows:
        i, r = item_at[item], rater_at[rater]
        for k, axis in enumerate(AXES):
            scores[axis][i, r] = values[k]
            confidence[axis][i, r] = values[len(AXES) + k]
        seconds[i, r] = np.nan if spent is None else spent
        epoch[i, r] = created.timestamp()
    return RatingSet(items, raters, scores, confidence, seconds, epoch)


def compute_month(month: date, *, n_boot: int, details: bool = True) -> dict | None:
    ratings = month_ratings(month)
    if ratings is None:
        return None
    content = month_feedback(ratings, n_boot=n_boot, details=details)
    content["month"] = f"{month:%Y-%m}"
    return content


def ci_design(content: dict) -> Design | None:
    """The design the month's intervals are simulated at: two columns (an annotator and the consensus, or two
    annotators) over the median number of items such a κ is computed on; None without a bootstrap."""
    boot = (content.get("bootstrap") or {}).get("replicates") or 0
    sizes = [
        figures["vs_consensus"]["n_items"]
        for person in content.get("people", {}).values()
        for figures in person["axes"].values()
        if figures["vs_consensus"].get("n_items")
    ]
    if not boot or not sizes or int(np.median(sizes)) < 2:
        return None
    return Design(n_items=int(np.median(sizes)), n_raters=2, raters_per_item=2, n_boot=int(boot))


def month_ci_coverage(content: dict) -> dict | None:
    """What a month keeps of its intervals' simulated coverage: that of the percentile interval the pages show
    and, when it is too low, BCa's (``annotation.dashboard.ci_method``)."""
    design = ci_design(content)
    if design is None:
        return None
    found = design_coverage(design)
    kept = {"design": {"n_items": design.n_items, "n_raters": 2, "raters_per_item": 2}, "percentile": found["method"]}
    return kept | ({BCA: found[BCA]} if BCA in found else {})


def month_ci_method(content: dict | None) -> CiMethod | None:
    """The statement of how the month's intervals were computed, with their simulated coverage."""
    if not content or not (content.get("bootstrap") or {}).get("replicates"):
        return None
    coverage = content.get("ci_coverage") or month_ci_coverage(content) or {}
    design = coverage.get("design") or {}
    boot = content["bootstrap"]
    return CiMethod(
        method="percentile",
        replicates=int(boot["replicates"]),
        seed=boot.get("seed"),
        level=boot.get("level", 0.95),
        n_items=design.get("n_items"),
        n_raters=design.get("n_raters"),
        raters_per_item=design.get("raters_per_item"),
        coverage=coverage.get("percentile"),
        bca_coverage=coverage.get(BCA),
    )


def compute_month_with_trend(month: date, *, n_boot: int) -> dict | None:
    """The month's figures, and each of its annotators' trend over the months before it (point values)."""
    content = compute_month(month, n_boot=n_boot)
    if content is None:
        return None
    content["ci_coverage"] = month_ci_coverage(content)
    earlier = []
    for back in range(TREND_MONTHS - 1, 0, -1):
        previous = shift_month(month, -back)
        stored = MonthlyFeedback.objects.filter(month=previous).values_list("content", flat=True).first()
        earlier.append((f"{previous:%Y-%m}", stored or compute_month(previous, n_boot=0, details=False)))
    earlier.append((content["month"], content))
    content["trend"] = {
        name: [trend_point(label, data, name) for label, data in earlier if data is not None]
        for name in content["people"]
    }
    return content


@dataclass(frozen=True)
class Month:
    """A month's figures for a page: stored (``prepared`` is the row) or computed now (``prepared`` None)."""

    month: date
    content: dict | None
    prepared: MonthlyFeedback | None

    @property
    def label(self) -> str:
        return f"{self.month:%Y-%m}"


def _ratings_signature(month: date) -> str:
    """Changes whenever a rating of the month is added, removed or edited: the count, the latest change (an edit
    stamps ``updated_at``), and the sums of the ids and of every score column."""
    start, end = month_bounds(month)
    sums = {f"s{k}": Sum(f"{axis}_score") for k, axis in enumerate(AXES)}
    seen = (
        human_ratings()
        .filter(created_at__gte=start, created_at__lt=end)
        .aggregate(n=Count("id"), changed=Max("updated_at"), ids=Sum("id"), **sums)
    )
    seen["changed"] = seen["changed"].timestamp() if seen["changed"] else 0
    return ":".join(str(seen[key]) for key in sorted(seen))


def month_figures(month: date) -> Month:
    """The prepared month if there is one, else its figures computed from the ratings stored now (not stored).

    Computed figures are cached for a few minutes, keyed by the month's ratings as they are (a new or edited
    rating computes them again): the overview and each annotator's page then share one computation.
    """
    row = MonthlyFeedback.objects.filter(month=month).select_related("prepared_by").first()
    if row is not None:
        return Month(month, row.content, row)
    n_boot = settings.AGREEMENT_MONITOR_N_BOOT
    key = f"feedback-month:{month:%Y-%m}:{n_boot}:{_ratings_signature(month)}"
    content = cache.get(key)
    if content is None:
        content = compute_month_with_trend(month, n_boot=n_boot)
        cache.set(key, content, COMPUTED_SECONDS)
    return Month(month, content, None)


def flags_received(month: date, usernames=None) -> dict[str, list[QualityFlag]]:
    """Quality flags on each annotator raised during the month, with their reviews, as they stand now."""
    start, end = month_bounds(month)
    flags = (
        QualityFlag.objects.filter(annotator__isnull=False, created_at__gte=start, created_at__lt=end)
        .select_related("annotator", "reviewer", "dialogue")
        .prefetch_related(
            Prefetch("reviews", queryset=QualityFlagReview.objects.select_related("reviewer").order_by("reviewed_at"))
        )
        .order_by("created_at", "pk")
    )
    if usernames is not None:
        flags = flags.filter(annotator__username__in=list(usernames))
    out: dict[str, list[QualityFlag]] = {}
    for flag in flags:
        out.setdefault(flag.annotator.get_username(), []).append(flag)
    return out


def item_texts(external_ids) -> dict[str, Dialogue]:
    return {d.external_id: d for d in Dialogue.objects.filter(external_id__in=list(external_ids)).only(
        "external_id", "user_text", "response_text")}  # fmt: skip


def feedback_person(username: str):
    """The account a feedback page names: an annotator, or an account with ratings of its own (a former
    annotator, a researcher who rated); None for a name of no account or of an account that never rates."""
    if "\x00" in username:  # no account's name (and PostgreSQL refuses it in a query)
        return None
    user = get_user_model().objects.filter(username=username).first()
    if user is None:
        return None
    if user.groups.filter(name=ANNOTATOR).exists() or human_ratings().filter(annotator=user).exists():
        return user
    return None


def first_rating_month() -> date | None:
    """The month of the first rating by a person (site time), None before any."""
    first = human_ratings().aggregate(first=Min("created_at"))["first"]
    return None if first is None else first_of(timezone.localtime(first).date())


def preparable_months(now: datetime | None = None) -> tuple[date, date] | None:
    """The months whose figures may be stored: from the first month with people's ratings to the month just
    ended. None when no month with ratings has ended yet (a month still running would be stored incomplete,
    and the schedule would then leave it so)."""
    start, last = first_rating_month(), shift_month(this_month(now), -1)
    return (start, last) if start is not None and start <= last else None
