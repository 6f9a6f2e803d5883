"""Annotator training (seed 000, B.3.1): gold items, practice with feedback, the qualification test, gating.

Practice items are rated with the gold scores and explanation shown afterwards; the qualification
test asks every test item once, in a fixed order, and passes when the quadratic weighted kappa
between the annotator and the gold scores is at least ``MIN_KAPPA`` (0.60) on EVERY axis. An
undefined kappa is not a pass. Annotators without a passed attempt may not open the work queue.

A test answer counts only when the item has been on screen for at least
``settings.TRAINING_MIN_SECONDS_PER_ITEM`` seconds (default 5), timed by the server from when it
showed the item: a test passed by clicking through is no evidence of reading. Practice is not timed.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import wraps

import numpy as np
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import ImproperlyConfigured
from django.db import IntegrityError, transaction
from django.db.models import Count, Prefetch, Q
from django.shortcuts import redirect
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy
from django_htmx.http import HttpResponseClientRedirect

from annotation.aggregation.agreement import pairwise_quadratic_kappa
from annotation.axes import AXES, MIN_KAPPA
from annotation.collection.qualification import qualification_of, qualification_of_request, requalification_items
from annotation.models.training import GoldItem, QualificationAttempt, TrainingAnswer
from core.roles import ANNOTATOR

__all__ = [
    "MIN_SECONDS_SETTING",
    "QUALIFICATION_EXPIRED_MESSAGE",
    "QUALIFICATION_REQUIRED_MESSAGE",
    "AnsweredTooFast",
    "AxisDifference",
    "ItemReview",
    "TrainingUnavailable",
    "annotators_with_attempts",
    "gold_agreement",
    "is_qualified",
    "min_seconds_per_item",
    "practice_answer_submit",
    "practice_next_item",
    "practice_progress",
    "qualification_answer_submit",
    "qualification_finish",
    "qualification_item_shown",
    "qualification_next_item",
    "qualification_open_attempt",
    "qualification_or_finishing",
    "qualification_required",
    "qualification_review",
    "qualification_start",
    "requalification_start",
    "seconds_left",
]


class TrainingUnavailable(Exception):
    """The training cannot go on as asked (no gold items of that set, a finished attempt, a wrong item)."""


class AnsweredTooFast(Exception):
    """A test answer came before the minimum time per item had passed since the item was shown."""

    def __init__(self, *, minimum: float, remaining: int):
        super().__init__(f"answered too soon: {remaining} s of the minimum {minimum:g} s per item left")
        self.minimum = minimum
        self.remaining = remaining


# --------------------------------------------------------------------------- gating

QUALIFICATION_REQUIRED_MESSAGE = gettext_lazy(
    "Pass the qualification test before you annotate: practise with the training items, "
    "then take the test (weighted kappa of at least 0.60 on every axis)."
)


def is_qualified(user) -> bool:
    """True for users whose qualification is valid now (``annotation.collection.qualification``); staff count."""
    return qualification_of(user).qualified


QUALIFICATION_EXPIRED_MESSAGE = gettext_lazy(
    "Your qualification has expired: take the short re-qualification test on the training page to annotate again."
)


def _gate(view_func, *, finishing: bool):
    @wraps(view_func)
    def wrapper(request, *args, **kwargs):
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        qualification = qualification_of_request(request)
        if not qualification.qualified and not (finishing and qualification.ever_passed):
            expired = qualification.ever_passed
            messages.warning(request, str(QUALIFICATION_EXPIRED_MESSAGE if expired else QUALIFICATION_REQUIRED_MESSAGE))
            url = reverse("annotation:training")
            if getattr(request, "htmx", False):
                return HttpResponseClientRedirect(url)
            return redirect(url)
        return view_func(request, *args, **kwargs)

    return wrapper


def qualification_required(view_func):
    """Send users without a valid qualification (never passed, or expired) to the training page, with a message."""
    return _gate(view_func, finishing=False)


def qualification_or_finishing(view_func):
    """As ``qualification_required``, but users whose qualification expired get through: an open reservation
    may still be rated and submitted. The view finds ``request.qualification`` and hands out nothing new."""
    return _gate(view_func, finishing=True)


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


def _confidence_values(confidence: Mapping[str, float] | None) -> dict[str, float]:
    """The confidence per axis (0.0-1.0) as stored; none given is stored as {} (answers made by scripts)."""
    if not confidence:
        return {}
    values = {}
    for axis in AXES:
        value = confidence.get(axis)
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
            raise ValueError(f"{axis}: expected a confidence from 0.0 to 1.0, got {value!r}")
        values[axis] = float(value)
    return values


def practice_answer_submit(
    *, annotator, gold_item: GoldItem, scores: Mapping[str, int], confidence: Mapping[str, float] | None = None
) -> TrainingAnswer:
    """Store one practice answer; the caller shows it beside the gold scores."""
    if gold_item.set != GoldItem.Set.PRACTICE:
        raise TrainingUnavailable(f"{gold_item.external_id} is not a practice item")
    return TrainingAnswer.objects.create(
        annotator=annotator, gold_item=gold_item, confidence=_confidence_values(confidence), **_score_values(scores)
    )


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


def requalification_start(*, annotator) -> QualificationAttempt:
    """The annotator's unfinished attempt, or a new re-qualification test: ``REQUALIFICATION_ITEMS`` gold
    test items not asked in their previous attempt, passed with ``REQUALIFICATION_MIN_KAPPA`` on every axis."""
    attempt = qualification_open_attempt(annotator=annotator)
    if attempt is not None:
        return attempt
    if not QualificationAttempt.objects.filter(annotator=annotator, passed=True).exists():
        raise TrainingUnavailable("a re-qualification needs a qualification test passed before")
    item_ids = requalification_items(annotator=annotator)
    if not item_ids:
        raise TrainingUnavailable("there are no test items yet")
    min_kappa = float(getattr(settings, "REQUALIFICATION_MIN_KAPPA", MIN_KAPPA))
    kind = QualificationAttempt.Kind.REQUALIFICATION
    try:
        with transaction.atomic():
            return QualificationAttempt.objects.create(
                annotator=annotator, item_ids=item_ids, kind=kind, min_kappa=min_kappa
            )
    except IntegrityError:  # a second request started one at the same moment
        return QualificationAttempt.objects.get(annotator=annotator, finished_at__isnull=True)


def qualification_next_item(*, attempt: QualificationAttempt) -> tuple[GoldItem | None, int]:
    """The first unanswered item of the attempt and its 1-based number; (None, 0) when all are answered."""
    answered = set(attempt.answers.values_list("gold_item_id", flat=True))
    for number, pk in enumerate(attempt.item_ids, start=1):
        if pk not in answered:
            return GoldItem.objects.filter(pk=pk).first(), number
    return None, 0


MIN_SECONDS_SETTING = "TRAINING_MIN_SECONDS_PER_ITEM"


def min_seconds_per_item() -> float:
    """The least time a test item must be on screen before its answer counts (the setting, default 5)."""
    value = getattr(settings, MIN_SECONDS_SETTING, 5)
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        seconds = math.nan
    if isinstance(value, bool) or not math.isfinite(seconds) or seconds < 0:
        raise ImproperlyConfigured(f"{MIN_SECONDS_SETTING} must be a number of seconds >= 0, got {value!r}")
    return seconds


def seconds_left(*, shown_at, minimum: float, now=None) -> int:
    """Whole seconds (rounded up) until an item shown at ``shown_at`` may be answered; 0 when it may."""
    elapsed = 0.0 if shown_at is None else ((now or timezone.now()) - shown_at).total_seconds()
    return max(0, math.ceil(minimum - elapsed))


def qualification_item_shown(*, attempt: QualificationAttempt, gold_item: GoldItem):
    """Note that ``gold_item`` is on screen now, unless it already was: returns since when it is shown.

    Showing the same item again (a reload, an answer refused as too fast) keeps the first time, so the
    clock is never restarted by the annotator and never reset to their advantage either.
    """
    QualificationAttempt.objects.filter(pk=attempt.pk, finished_at__isnull=True).exclude(
        shown_item_id=gold_item.pk
    ).update(shown_item=gold_item, shown_at=timezone.now())
    attempt.shown_item_id, attempt.shown_at = QualificationAttempt.objects.values_list("shown_item", "shown_at").get(
        pk=attempt.pk
    )
    return attempt.shown_at


def qualification_answer_submit(
    *,
    attempt: QualificationAttempt,
    gold_item: GoldItem,
    scores: Mapping[str, int],
    confidence: Mapping[str, float] | None = None,
    min_seconds: float | None = None,
) -> QualificationAttempt:
    """Store the answer to one test item (a repeated answer to the same item is ignored).

    Raises ``AnsweredTooFast`` (storing nothing) when less than ``min_seconds`` (by default
    ``min_seconds_per_item()``) have passed since ``qualification_item_shown`` put the item on
    screen; an item never shown has been on screen for 0 seconds. When every item of the attempt is
    answered, the attempt is finished and scored.
    """
    values = _score_values(scores)
    confidences = _confidence_values(confidence)
    minimum = min_seconds_per_item() if min_seconds is None else min_seconds
    with transaction.atomic():
        attempt = QualificationAttempt.objects.select_for_update().get(pk=attempt.pk)
        if attempt.is_finished:
            raise TrainingUnavailable("this attempt is already finished")
        if gold_item.pk not in attempt.item_ids:
            raise TrainingUnavailable(f"{gold_item.external_id} is not an item of this attempt")
        if attempt.answers.filter(gold_item=gold_item).exists():
            return attempt
        now = timezone.now()
        shown_at = attempt.shown_at if attempt.shown_item_id == gold_item.pk else None
        remaining = seconds_left(shown_at=shown_at, minimum=minimum, now=now)
        if remaining:
            raise AnsweredTooFast(minimum=minimum, remaining=remaining)
        TrainingAnswer.objects.create(
            attempt=attempt,
            gold_item=gold_item,
            annotator_id=attempt.annotator_id,
            confidence=confidences,
            shown_at=shown_at,
            created_at=now,
            **values,
        )
        if attempt.answers.count() >= len(attempt.item_ids):
            qualification_finish(attempt=attempt)
    return attempt


def qualification_finish(*, attempt: QualificationAttempt) -> QualificationAttempt:
    """Score the attempt against the gold scores of its items and store the result."""
    answers = attempt.answers.select_related("gold_item")
    pairs = {axis: [(a.scores[axis], a.gold_item.gold[axis]) for a in answers] for axis in AXES}
    attempt.passed, attempt.kappas, attempt.reasons = gold_agreement(pairs, min_kappa=attempt.min_kappa)
    attempt.finished_at = timezone.now()
    attempt.save(update_fields=["passed", "kappas", "reasons", "finished_at"])
    return attempt


@dataclass(frozen=True)
class AxisDifference:
    axis: str
    mine: int
    gold: int
    confidence: float | None  # the annotator's confidence on this axis, None where not recorded

    @property
    def diff(self) -> int:
        return self.mine - self.gold


@dataclass(frozen=True)
class ItemReview:
    """One test item of an attempt beside its gold scores: the axes on which the answer differs."""

    number: int  # 1-based position in the attempt
    item: GoldItem
    answer: TrainingAnswer | None  # None: not answered (an unfinished attempt)
    differences: tuple[AxisDifference, ...]

    @property
    def matched(self) -> bool:
        return self.answer is not None and not self.differences


def qualification_review(*, attempt: QualificationAttempt) -> list[ItemReview]:
    """Every item of the attempt in the order asked, with the axes where the answer differs from gold."""
    items = GoldItem.objects.in_bulk(attempt.item_ids)
    answers = {answer.gold_item_id: answer for answer in attempt.answers.all()}
    reviews = []
    for number, pk in enumerate(attempt.item_ids, start=1):
        item, answer = items.get(pk), answers.get(pk)
        if item is None:  # a gold item deleted after the attempt (only possible while unanswered)
            continue
        differences = ()
        if answer is not None:
            gold, mine = item.gold, answer.scores
            differences = tuple(
                AxisDifference(axis, mine[axis], gold[axis], answer.confidence.get(axis))
                for axis in AXES
                if mine[axis] != gold[axis]
            )
        reviews.append(ItemReview(number, item, answer, differences))
    return reviews


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
