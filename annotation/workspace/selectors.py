"""Reads of the researchers' workspace: the batch list, a batch's counts, the items table.

Everything is counted by the database in a fixed number of queries, whatever the number of
batches or items (a batch of 10,000 items must not cost 10,000 queries): counts grouped per batch,
and per item the number of ratings and each axis's spread (highest minus lowest score) as
aggregates of one join.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count, Exists, F, Max, Min, OuterRef, Q, QuerySet, Subquery, Value
from django.db.models.functions import Coalesce, Greatest

from annotation.axes import AXES
from annotation.guidelines.scale import AXIS_NAMES
from annotation.io.rating_uploads import RATINGS_UPLOAD
from annotation.models import Adjudication, AgreementReport, Annotation, Batch, Dialogue, ItemComment, QualityFlag
from annotation.review.selectors import flag_batch_expression
from annotation.workspace.status import STATUS_LABELS
from annotation.workspace.upload_jobs import DIALOGUES_UPLOAD
from core.models import Job

PAGE_SIZE = 50
RATINGS_FILTERS = ("none", "under", "complete")
SORTS = ("id", "spread", "ratings")


def _grouped(queryset, key: str, **aggregates) -> dict:
    """``{key value: {name: aggregate}}``; ``order_by()`` first, so no default ordering joins the GROUP BY."""
    rows = queryset.order_by().values(key).annotate(**aggregates)
    return {row[key]: row for row in rows}


def open_flags_q() -> Q:
    return Q(status=QualityFlag.Status.OPEN)


def _kappa_fields() -> dict[str, F]:
    return {f"kappa_{axis}": F(f"report__axes__{axis}__kappa") for axis in AXES}


def batch_rows() -> list[dict]:
    """The batch list: each batch with its counts, progress, latest agreement verdict and open flags."""
    batches = list(
        Batch.objects.order_by("-created_at", "-pk").annotate(
            latest_report=Subquery(
                AgreementReport.objects.filter(batch=OuterRef("pk")).order_by("-created_at", "-pk").values("pk")[:1]
            )
        )
    )
    items = _grouped(Dialogue.objects.all(), "batch_id", n=Count("pk"))
    ratings = _grouped(_people_ratings(), "dialogue__batch_id", n=Count("pk"), last=Max("updated_at"))
    flags = _grouped(
        QualityFlag.objects.filter(open_flags_q()).annotate(flag_batch=flag_batch_expression()),
        "flag_batch",
        n=Count("pk"),
    )
    problems = _grouped(
        ItemComment.objects.filter(problem=True, resolved_at__isnull=True), "dialogue__batch_id", n=Count("pk")
    )
    reports = {
        row["pk"]: row
        for row in AgreementReport.objects.filter(pk__in=[b.latest_report for b in batches if b.latest_report])
        .order_by()
        .values("pk", "passed", "created_at", **_kappa_fields())
    }
    importing = set(
        Job.objects.filter(kind=DIALOGUES_UPLOAD)
        .exclude(status__in=Job.FINISHED)
        .values_list("params__batch_id", flat=True)
    )
    rows = []
    for batch in batches:
        n_items = items.get(batch.pk, {}).get("n", 0)
        rated = ratings.get(batch.pk, {})
        n_ratings = rated.get("n", 0)
        wanted = n_items * batch.annotations_per_item
        last = max(filter(None, [rated.get("last"), batch.created_at]))
        rows.append(
            {
                "batch": batch,
                "status_label": STATUS_LABELS[batch.status],
                "items": n_items,
                "ratings": n_ratings,
                "wanted": wanted,
                "percent": min(100, round(100 * n_ratings / wanted)) if wanted else 0,
                "report": _report_verdict(reports.get(batch.latest_report)),
                "flags": flags.get(batch.pk, {}).get("n", 0),
                "problems": problems.get(batch.pk, {}).get("n", 0),
                "last_activity": last,
                "importing": batch.pk in importing,
            }
        )
    return rows


def _report_verdict(row: dict | None) -> dict | None:
    if row is None:
        return None
    kappas = [(row[f"kappa_{axis}"], axis) for axis in AXES if isinstance(row[f"kappa_{axis}"], (int, float))]
    low = min(kappas) if kappas else None
    return {
        "pk": row["pk"],
        "passed": row["passed"],
        "created_at": row["created_at"],
        "min_kappa": low[0] if low else None,
        "min_axis": low[1] if low else None,
        "min_axis_label": AXIS_NAMES[low[1]] if low else "",
    }


# ---- items of one batch ---------------------------------------------------------------------------------------


def _in_force_adjudications():
    """Decisions in force of the item in ``OuterRef("pk")``: the latest per axis, unless it withdrew."""
    later = Adjudication.objects.filter(dialogue=OuterRef("dialogue"), axis=OuterRef("axis")).filter(
        Q(decided_at__gt=OuterRef("decided_at")) | Q(decided_at=OuterRef("decided_at"), pk__gt=OuterRef("pk"))
    )
    return Adjudication.objects.filter(dialogue=OuterRef("pk"), score__isnull=False).filter(~Exists(later))


def _open_flags_of_item():
    return QualityFlag.objects.filter(open_flags_q()).filter(
        Q(dialogue=OuterRef("pk")) | Q(annotation__dialogue=OuterRef("pk"))
    )


def _open_problems_of_item():
    return ItemComment.objects.filter(dialogue=OuterRef("pk"), problem=True, resolved_at__isnull=True)


def _people_ratings() -> QuerySet[Annotation]:
    """Ratings by people: an LLM rater's ratings (``annotation.llm_rater``) fill no quota and settle no dispute."""
    return Annotation.objects.exclude(source=Annotation.Source.LLM)


def items_with_counts(batch: Batch) -> QuerySet[Dialogue]:
    """The batch's items with ``n_ratings``, ``spread_<axis>`` (0 without ratings) and ``max_spread``, over
    people's ratings."""
    human = ~Q(annotations__source=Annotation.Source.LLM)
    spreads = {
        f"spread_{axis}": Coalesce(
            Max(f"annotations__{axis}_score", filter=human) - Min(f"annotations__{axis}_score", filter=human), Value(0)
        )
        for axis in AXES
    }
    return (
        Dialogue.objects.filter(batch=batch)
        .annotate(n_ratings=Count("annotations", filter=human), **spreads)
        .annotate(max_spread=Greatest(*(F(f"spread_{axis}") for axis in AXES)))
    )


@dataclass(frozen=True)
class ItemFilters:
    """The items table's filters, as the query string carries them."""

    q: str = ""
    ratings: str = ""  # "", or one of RATINGS_FILTERS
    disputed: bool = False
    flagged: bool = False
    adjudicated: bool = False
    sort: str = "id"

    @property
    def active(self) -> bool:
        return bool(self.q or self.ratings or self.disputed or self.flagged or self.adjudicated)

    def as_query(self) -> dict[str, str]:
        """The non-default filters, for links that keep them."""
        query = {"q": self.q, "ratings": self.ratings, "sort": "" if self.sort == "id" else self.sort}
        query |= {name: "1" for name in ("disputed", "flagged", "adjudicated") if getattr(self, name)}
        return {key: value for key, value in query.items() if value}


def items_filtered(batch: Batch, filters: ItemFilters) -> QuerySet[Dialogue]:
    """The batch's items matching ``filters``, in the chosen order (with ``items_with_counts``'s columns)."""
    items = items_with_counts(batch)
    if filters.q:
        q = filters.q
        items = items.filter(Q(external_id__icontains=q) | Q(user_text__icontains=q) | Q(response_text__icontains=q))
    quota = batch.annotations_per_item
    if filters.ratings == "none":
        items = items.filter(n_ratings=0)
    elif filters.ratings == "under":
        items = items.filter(n_ratings__gt=0, n_ratings__lt=quota)
    elif filters.ratings == "complete":
        items = items.filter(n_ratings__gte=quota)
    if filters.disputed:
        items = items.filter(max_spread__gte=batch.disagreement_spread)
    if filters.flagged:
        items = items.filter(Q(Exists(_open_flags_of_item())) | Q(Exists(_open_problems_of_item())))
    if filters.adjudicated:
        items = items.filter(Exists(_in_force_adjudications()))
    order = {"id": ["pk"], "spread": ["-max_spread", "pk"], "ratings": ["n_ratings", "pk"]}[filters.sort]
    return items.order_by(*order)


def page_marks(dialogue_ids: list[int]) -> dict[int, dict]:
    """For the rows of one page: open flags, open problem comments and the adjudicated axes (three queries)."""
    marks = {pk: {"flags": 0, "problems": 0, "adjudicated": []} for pk in dialogue_ids}
    flags = (
        QualityFlag.objects.filter(open_flags_q())
        .filter(Q(dialogue_id__in=dialogue_ids) | Q(annotation__dialogue_id__in=dialogue_ids))
        .annotate(item=Coalesce("dialogue_id", "annotation__dialogue_id"))
    )
    for item, n in flags.order_by().values_list("item").annotate(n=Count("pk")):
        if item in marks:
            marks[item]["flags"] = n
    problems = ItemComment.objects.filter(dialogue_id__in=dialogue_ids, problem=True, resolved_at__isnull=True)
    for item, n in problems.order_by().values_list("dialogue_id").annotate(n=Count("pk")):
        marks[item]["problems"] = n
    decided = Adjudication.objects.filter(dialogue_id__in=dialogue_ids)
    decided = decided.order_by("dialogue_id", "axis", "-decided_at", "-pk")
    seen = set()
    for item, axis, score in decided.values_list("dialogue_id", "axis", "score"):
        if (item, axis) in seen:
            continue
        seen.add((item, axis))
        if score is not None:
            marks[item]["adjudicated"].append(axis)
    return marks


def spread_axis(item: Dialogue) -> str | None:
    """The axis with the largest spread (the first in axis order among ties); None without any spread."""
    if not item.max_spread:
        return None
    return next(axis for axis in AXES if getattr(item, f"spread_{axis}") == item.max_spread)


def batch_counts(batch: Batch) -> dict:
    """The batch page's counts."""
    items = Dialogue.objects.filter(batch=batch)
    per_item = items_with_counts(batch)
    return {
        "items": items.count(),
        "ratings": _people_ratings().filter(dialogue__batch=batch).count(),
        "complete": per_item.filter(n_ratings__gte=batch.annotations_per_item).count(),
        "disputed": per_item.filter(max_spread__gte=batch.disagreement_spread).count(),
        "adjudicated": items.filter(Exists(_in_force_adjudications())).count(),
        "flags": QualityFlag.objects.filter(open_flags_q())
        .annotate(flag_batch=flag_batch_expression())
        .filter(flag_batch=batch.pk)
        .count(),
        "problems": ItemComment.objects.filter(dialogue__batch=batch, problem=True, resolved_at__isnull=True).count(),
        "annotators": _people_ratings().filter(dialogue__batch=batch).values("annotator").distinct().count(),
    }


def latest_report(batch: Batch) -> AgreementReport | None:
    reports = AgreementReport.objects.filter(batch=batch).order_by("-created_at", "-pk")
    return reports.only("pk", "passed", "created_at").first()


def upload_job(batch: Batch, job_id=None) -> Job | None:
    """The upload job to show on the batch page: the one asked for, else one still running."""
    jobs = Job.objects.filter(kind__in=(DIALOGUES_UPLOAD, RATINGS_UPLOAD), params__batch_id=batch.pk)
    if job_id is not None:
        return jobs.filter(pk=job_id).first()
    return jobs.exclude(status__in=Job.FINISHED).order_by("-created_at").first()
