"""Annotator training (seed 000, B.3.1): gold items, practice with feedback, the qualification test, gating.

Practice items are rated with the gold scores and explanation shown afterwards; the qualification
test asks every test item once, in a fixed order, and passes when the quadratic weighted kappa
between the annotator and the gold scores is at least ``MIN_KAPPA`` (0.60) on EVERY axis. An
undefined kappa is not a pass. Annotators without a passed attempt may not open the work queue.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import wraps
from pathlib import Path

import numpy as np
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.views import redirect_to_login
from django.db import IntegrityError, transaction
from django.db.models import Count, Max, Prefetch, Q
from django.shortcuts import redirect
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy
from django_htmx.http import HttpResponseClientRedirect

from annotation.aggregation.agreement import pairwise_quadratic_kappa
from annotation.axes import AXES, MIN_KAPPA
from annotation.io.gold_records import GoldRecord, load_gold
from annotation.io.records import Problem, ProblemLog, readable_paths
from annotation.models.training import GoldItem, QualificationAttempt, TrainingAnswer
from core.roles import ANNOTATOR

__all__ = [
    "QUALIFICATION_REQUIRED_MESSAGE",
    "GoldImportSummary",
    "TrainingUnavailable",
    "annotators_with_attempts",
    "gold_agreement",
    "gold_test_set_warnings",
    "import_gold",
    "is_qualified",
    "practice_answer_submit",
    "practice_next_item",
    "practice_progress",
    "qualification_answer_submit",
    "qualification_finish",
    "qualification_next_item",
    "qualification_open_attempt",
    "qualification_required",
    "qualification_start",
]


class TrainingUnavailable(Exception):
    """The training cannot go on as asked (no gold items of that set, a finished attempt, a wrong item)."""


# --------------------------------------------------------------------------- gating

QUALIFICATION_REQUIRED_MESSAGE = gettext_lazy(
    "Pass the qualification test before you annotate: practise with the training items, "
    "then take the test (weighted kappa of at least 0.60 on every axis)."
)


def is_qualified(user) -> bool:
    """True for users with a passed qualification attempt; staff users count as qualified."""
    if not getattr(user, "is_authenticated", False) or not user.is_active:
        return False
    if user.is_staff:
        return True
    return QualificationAttempt.objects.filter(annotator=user, passed=True).exists()


_SESSION_KEY = "annotation.qualified_user"


def is_qualified_in_session(request) -> bool:
    """``is_qualified`` remembered in the session once true (a passed test stays passed): one query less per page."""
    if request.session.get(_SESSION_KEY) == request.user.pk:
        return True
    qualified = is_qualified(request.user)
    if qualified:
        request.session[_SESSION_KEY] = request.user.pk
    return qualified


def qualification_required(view_func):
    """Send users who have not passed the qualification test to the training page, with a message."""

    @wraps(view_func)
    def wrapper(request, *args, **kwargs):
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        if not is_qualified_in_session(request):
            messages.warning(request, str(QUALIFICATION_REQUIRED_MESSAGE))
            url = reverse("annotation:training")
            if getattr(request, "htmx", False):
                return HttpResponseClientRedirect(url)
            return redirect(url)
        return view_func(request, *args, **kwargs)

    return wrapper


# --------------------------------------------------------------------------- gold import


@dataclass
class GoldImportSummary:
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    practice: int = 0  # items of each set in the files
    test: int = 0
    dry_run: bool = False

    def __str__(self) -> str:
        verb = "would create" if self.dry_run else "created"
        return (
            f"{verb} {self.created}, updated {self.updated}, unchanged {self.unchanged} "
            f"({self.practice} practice, {self.test} test in the files)"
        )


def _values_of(record: GoldRecord) -> dict:
    values = {
        "user_text": record.user,
        "response_text": record.response,
        "context": record.context,
        "explanation": record.explanation,
        "set": record.set,
    }
    values.update({f"{axis}_gold": record.gold[axis] for axis in AXES})
    return values


_COMPARED = ["user_text", "response_text", "context", "explanation", "set", *(f"{axis}_gold" for axis in AXES)]


def import_gold(*, paths: Sequence[str | Path], dry_run: bool = False, update: bool = False) -> GoldImportSummary:
    """Store the gold items of JSONL files (annotation.io.gold_records); any problem stores nothing.

    Re-importing the same content changes nothing; an existing id with other content is a problem
    unless ``update`` is given. New items are placed after the stored ones, in file order.
    """
    log = ProblemLog()
    records = load_gold(readable_paths(paths, log), log=log)
    stored = {
        row["external_id"]: row
        for row in GoldItem.objects.filter(external_id__in=[r.id for r in records]).values(
            "pk", "external_id", *_COMPARED
        )
    }
    summary = GoldImportSummary(dry_run=dry_run)
    new: list[GoldRecord] = []
    changed: list[tuple[int, GoldRecord]] = []
    for record in records:
        setattr(summary, record.set, getattr(summary, record.set) + 1)
        row = stored.get(record.id)
        if row is None:
            new.append(record)
        elif all(row[name] == value for name, value in _values_of(record).items()):
            summary.unchanged += 1
        elif update:
            changed.append((row["pk"], record))
        else:
            message = f"gold item {record.id!r} already exists with different content; use --update to replace it"
            log.add(Problem(record.file, record.line, "$.id", message))
    log.raise_if_any()
    summary.created, summary.updated = len(new), len(changed)
    if dry_run:
        return summary
    with transaction.atomic():
        now = timezone.now()
        start = (GoldItem.objects.aggregate(last=Max("position"))["last"] or 0) + 1
        GoldItem.objects.bulk_create(
            [
                GoldItem(external_id=r.id, position=start + i, created_at=now, updated_at=now, **_values_of(r))
                for i, r in enumerate(new)
            ]
        )
        for pk, record in changed:
            GoldItem.objects.filter(pk=pk).update(updated_at=now, **_values_of(record))
    return summary


def gold_test_set_warnings() -> list[str]:
    """Why the stored test set cannot separate good annotators from bad ones, if it cannot (English)."""
    items = list(GoldItem.objects.filter(set=GoldItem.Set.TEST).values(*(f"{axis}_gold" for axis in AXES)))
    if not items:
        return ["there are no test items: annotators cannot take the qualification test"]
    warnings = []
    for axis in AXES:
        levels = {item[f"{axis}_gold"] for item in items}
        if len(levels) < 2:
            warnings.append(
                f"{axis}: every test item has gold score {levels.pop()}, so kappa is undefined "
                "for an annotator who agrees on all items"
            )
    return warnings


# --------------------------------------------------------------------------- practice


def practice_next_item(*, annotator) -> GoldItem | None:
    """The practice item this annotator has practised least often (then the first in order)."""
    mine = Count("answers", filter=Q(answers__annotator=annotator, answers__attempt__isnull=True))
    return (
        GoldItem.objects.filter(set=GoldItem.Set.PRACTICE)
        .annotate(times=mine)
        .order_by("times", "position", "id")
        .first()
    )


def practice_progress(*, annotator) -> dict[str, int]:
    total = GoldItem.objects.filter(set=GoldItem.Set.PRACTICE).count()
    done = (
        TrainingAnswer.objects.filter(annotator=annotator, attempt__isnull=True, gold_item__set=GoldItem.Set.PRACTICE)
        .values("gold_item")
        .distinct()
        .count()
    )
    return {"done": done, "total": total}


def _score_values(scores: Mapping[str, int]) -> dict[str, int]:
    values = {}
    for axis in AXES:
        value = scores.get(axis)
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 5:
            raise ValueError(f"{axis}: expected a score from 1 to 5, got {value!r}")
        values[f"{axis}_score"] = value
    return values


def practice_answer_submit(*, annotator, gold_item: GoldItem, scores: Mapping[str, int]) -> TrainingAnswer:
    """Store one practice answer; the caller shows it beside the gold scores."""
    if gold_item.set != GoldItem.Set.PRACTICE:
        raise TrainingUnavailable(f"{gold_item.external_id} is not a practice item")
    return TrainingAnswer.objects.create(annotator=annotator, gold_item=gold_item, **_score_values(scores))


# --------------------------------------------------------------------------- qualification test


def gold_agreement(
    pairs: Mapping[str, Sequence[tuple[int, int]]], *, min_kappa: float = MIN_KAPPA
) -> tuple[bool, dict[str, float | None], dict[str, str | None]]:
    """(passed, kappa per axis, reason per axis) of an annotator's scores against the gold scores.

    ``pairs[axis]`` holds (annotator score, gold score) per item. Each axis is a two-rater matrix
    [annotator, gold] given to the project's agreement module. An axis fails when its kappa is
    below ``min_kappa`` or undefined; its reason says which.
    """
    kappas: dict[str, float | None] = {}
    reasons: dict[str, str | None] = {}
    for axis in AXES:
        matrix = np.asarray(pairs.get(axis, ()), dtype=np.int64).reshape(-1, 2)
        pairwise = pairwise_quadratic_kappa(matrix)
        if len(pairwise) == 0:
            kappa, why = None, "no answered item"
        else:
            value = float(pairwise.kappa[0])
            kappa, why = (None, pairwise.reason[0]) if math.isnan(value) else (value, None)
        kappas[axis] = kappa
        if kappa is None:
            reasons[axis] = f"kappa is undefined: {why}"
        elif kappa < min_kappa:
            reasons[axis] = f"kappa {kappa:.3f} is below the minimum {min_kappa:.2f}"
        else:
            reasons[axis] = None
    return all(reason is None for reason in reasons.values()), kappas, reasons


def qualification_open_attempt(*, annotator) -> QualificationAttempt | None:
    return QualificationAttempt.objects.filter(annotator=annotator, finished_at__isnull=True).first()


def qualification_start(*, annotator) -> QualificationAttempt:
    """The annotator's unfinished attempt, or a new one over the test items in their fixed order."""
    attempt = qualification_open_attempt(annotator=annotator)
    if attempt is not None:
        return attempt
    item_ids = list(
        GoldItem.objects.filter(set=GoldItem.Set.TEST).order_by("position", "id").values_list("pk", flat=True)
    )
    if not item_ids:
        raise TrainingUnavailable("there are no test items yet")
    try:
        with transaction.atomic():
            return QualificationAttempt.objects.create(annotator=annotator, item_ids=item_ids)
    except IntegrityError:  # a second request started one at the same moment
        return QualificationAttempt.objects.get(annotator=annotator, finished_at__isnull=True)


def qualification_next_item(*, attempt: QualificationAttempt) -> tuple[GoldItem | None, int]:
    """The first unanswered item of the attempt and its 1-based number; (None, 0) when all are answered."""
    answered = set(attempt.answers.values_list("gold_item_id", flat=True))
    for number, pk in enumerate(attempt.item_ids, start=1):
        if pk not in answered:
            return GoldItem.objects.filter(pk=pk).first(), number
    return None, 0


def qualification_answer_submit(
    *, attempt: QualificationAttempt, gold_item: GoldItem, scores: Mapping[str, int]
) -> QualificationAttempt:
    """Store the answer to one test item (a repeated answer to the same item is ignored).

    When every item of the attempt is answered, the attempt is finished and scored.
    """
    values = _score_values(scores)
    with transaction.atomic():
        attempt = QualificationAttempt.objects.select_for_update().get(pk=attempt.pk)
        if attempt.is_finished:
            raise TrainingUnavailable("this attempt is already finished")
        if gold_item.pk not in attempt.item_ids:
            raise TrainingUnavailable(f"{gold_item.external_id} is not an item of this attempt")
        TrainingAnswer.objects.get_or_create(
            attempt=attempt, gold_item=gold_item, defaults={"annotator_id": attempt.annotator_id, **values}
        )
        if attempt.answers.count() >= len(attempt.item_ids):
            qualification_finish(attempt=attempt)
    return attempt


def qualification_finish(*, attempt: QualificationAttempt) -> QualificationAttempt:
    """Score the attempt against the gold scores of its items and store the result."""
    answers = attempt.answers.select_related("gold_item")
    pairs = {axis: [(a.scores[axis], a.gold_item.gold[axis]) for a in answers] for axis in AXES}
    attempt.passed, attempt.kappas, attempt.reasons = gold_agreement(pairs)
    attempt.finished_at = timezone.now()
    attempt.save(update_fields=["passed", "kappas", "reasons", "finished_at"])
    return attempt


def annotators_with_attempts():
    """Annotators who log in (not imported ids) and everyone who sat the test, with their attempts."""
    attempts = QualificationAttempt.objects.annotate(n_answers=Count("answers")).order_by("-started_at", "-id")
    practice = Count("training_answers", filter=Q(training_answers__attempt__isnull=True), distinct=True)
    return (
        get_user_model()
        .objects.filter(Q(groups__name=ANNOTATOR) | Q(qualification_attempts__isnull=False))
        .exclude(annotator_profile__imported=True)
        .distinct()
        .annotate(n_practice=practice)
        .prefetch_related(Prefetch("qualification_attempts", queryset=attempts, to_attr="attempts"))
        .order_by("username")
    )
