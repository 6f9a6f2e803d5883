"""Quarterly re-training (seed 000, B.3.2): when a qualification expires, its notice, extensions, re-qualification.

The single rule: an annotator's qualification is their latest passed attempt (the full test or a
re-qualification). It expires ``QUALIFICATION_VALID_DAYS`` (default 92; 0 = never) after it was
passed, or later when a researcher extended it (``extended_until``). From ``NOTICE_DAYS`` before
that the annotation pages say when; once it has passed the queue hands out nothing new (an open
reservation may still be rated and submitted) and the pages link to the re-training: a refresher on
the practice items and a shorter re-qualification test of gold test items not asked in the previous
attempt (``REQUALIFICATION_ITEMS``; at least ``REQUALIFICATION_MIN_KAPPA`` on every axis). Staff
users count as qualified without expiry.

The rating page's hot path reads no row for this: the state of the qualification (when it was
passed, the extension) is kept in the session, which every request loads anyway, and is read again
from the database only where it may have changed: once it is due to expire (the notice window,
at most once a day) or expired, and on the pages that are not the hot path (batch list, training).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import datetime, time, timedelta
from enum import StrEnum

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Max, OuterRef, Subquery
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.utils.translation import gettext_noop

from annotation.axes import AXES
from annotation.models.training import GoldItem, QualificationAttempt, QualificationExtension, TrainingAnswer
from core.roles import ANNOTATOR

NOTICE_DAYS = 14  # the expiry date is shown from this many days before it
REFRESHER_ITEMS = 5  # practice items suggested before the re-qualification test
_SESSION_KEY = "annotation.qualification"
_DRAWS = 20  # tries at a draw in which every axis's gold scores vary (else kappa is undefined)

__all__ = [
    "NOTICE_DAYS",
    "REFRESHER_ITEMS",
    "ExtensionRefused",
    "Qualification",
    "State",
    "expires_at",
    "latest_extension",
    "qualification_expiries",
    "qualification_extend",
    "qualification_of",
    "qualification_of_request",
    "qualifications_of",
    "refresher_progress",
    "requalification_items",
    "valid_days",
]


class State(StrEnum):
    NONE = "none"  # never passed
    VALID = "valid"
    EXPIRING = "expiring"  # valid, expiring within NOTICE_DAYS
    EXPIRED = "expired"


def clock() -> datetime:
    """Now, for the expiry rule (tests freeze it by replacing this function)."""
    return timezone.now()


def valid_days() -> int:
    return int(getattr(settings, "QUALIFICATION_VALID_DAYS", 92))


def expires_at(passed_at: datetime | None, extended_until: datetime | None, *, days: int) -> datetime | None:
    """When a qualification passed at ``passed_at`` expires; None: never (or never passed)."""
    if passed_at is None or days == 0:
        return None
    due = passed_at + timedelta(days=days)
    return max(due, extended_until) if extended_until is not None else due


@dataclass(frozen=True)
class Qualification:
    """An annotator's qualification as of ``now``."""

    passed_at: datetime | None
    extended_until: datetime | None
    expires: datetime | None
    state: State

    @classmethod
    def of(cls, passed_at, extended_until, *, now: datetime, staff: bool = False) -> Qualification:
        if staff:
            return cls(passed_at, extended_until, None, State.VALID)
        if passed_at is None:
            return cls(None, None, None, State.NONE)
        expiry = expires_at(passed_at, extended_until, days=valid_days())
        if expiry is None or now < expiry - timedelta(days=NOTICE_DAYS):
            state = State.VALID
        elif now < expiry:
            state = State.EXPIRING
        else:
            state = State.EXPIRED
        return cls(passed_at, extended_until, expiry, state)

    @property
    def qualified(self) -> bool:
        """May be handed new items."""
        return self.state in (State.VALID, State.EXPIRING)

    @property
    def ever_passed(self) -> bool:
        return self.state is not State.NONE

    @property
    def expired(self) -> bool:
        return self.state is State.EXPIRED

    @property
    def expiring(self) -> bool:
        return self.state is State.EXPIRING


def _latest_passed(user_id) -> tuple[datetime | None, datetime | None]:
    row = (
        QualificationAttempt.objects.filter(annotator_id=user_id, passed=True)
        .order_by("-finished_at", "-id")
        .values_list("finished_at", "extended_until")
        .first()
    )
    return row if row is not None else (None, None)


def qualification_of(user, *, now: datetime | None = None) -> Qualification:
    """The qualification of ``user`` read from the database (one query; none for staff)."""
    now = now or clock()
    if not getattr(user, "is_authenticated", False) or not user.is_active:
        return Qualification(None, None, None, State.NONE)
    if user.is_staff:
        return Qualification.of(None, None, now=now, staff=True)
    passed_at, extended_until = _latest_passed(user.pk)
    return Qualification.of(passed_at, extended_until, now=now)


def qualifications_of(users, *, now: datetime | None = None) -> dict[int, Qualification]:
    """``qualification_of`` of many users at once, by primary key (one query; the users as model instances).

    For the imports, which apply the queue's rule to every annotator of a file (``annotation.io.import_rules``).
    """
    now = now or clock()
    users = list(users)
    latest: dict[int, tuple[datetime | None, datetime | None]] = {}
    rows = (
        QualificationAttempt.objects.filter(annotator__in=[u.pk for u in users if u.is_active and not u.is_staff],
                                            passed=True)
        .order_by("annotator_id", "-finished_at", "-id")
        .values_list("annotator_id", "finished_at", "extended_until")
    )  # fmt: skip
    for annotator_id, passed_at, extended_until in rows:
        latest.setdefault(annotator_id, (passed_at, extended_until))  # the newest first
    found = {}
    for user in users:
        if not user.is_active:
            found[user.pk] = Qualification(None, None, None, State.NONE)
        elif user.is_staff:
            found[user.pk] = Qualification.of(None, None, now=now, staff=True)
        else:
            passed_at, extended_until = latest.get(user.pk, (None, None))
            found[user.pk] = Qualification.of(passed_at, extended_until, now=now)
    return found


def _iso(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat()


def _parsed(value: str | None) -> datetime | None:
    return None if value is None else parse_datetime(value)


def qualification_of_request(request, *, fresh: bool = False, now: datetime | None = None) -> Qualification:
    """The request user's qualification, from the session where it cannot have changed (see the module doc).

    Kept on the request as ``request.qualification`` for the templates (the notice, the explanation).
    """
    now = now or clock()
    user = request.user
    if user.is_staff or not user.is_authenticated:
        found = qualification_of(user, now=now)
        request.qualification = found
        return found
    kept = request.session.get(_SESSION_KEY)
    today = timezone.localdate(now).isoformat()
    if not fresh and isinstance(kept, list) and len(kept) == 4 and kept[0] == user.pk:
        found = Qualification.of(_parsed(kept[1]), _parsed(kept[2]), now=now)
        # Still valid: nothing but the annotator's own passed test (which rewrites the session) or a
        # researcher's extension (which only moves the expiry later) can change it. Within the notice,
        # the date shown is checked once a day for an extension; an expiry is always checked.
        if found.state is State.VALID or (found.state is State.EXPIRING and kept[3] == today):
            request.qualification = found
            return found
    passed_at, extended_until = _latest_passed(user.pk)
    found = Qualification.of(passed_at, extended_until, now=now)
    value = [user.pk, _iso(passed_at), _iso(extended_until), today] if found.ever_passed else None
    if kept != value:  # written only when it changed: a session save is a query
        if value is None:
            request.session.pop(_SESSION_KEY, None)
        else:
            request.session[_SESSION_KEY] = value
    request.qualification = found
    return found


# --------------------------------------------------------------------------- extension (researchers)


class ExtensionRefused(ValueError):
    """The extension asked for cannot be made. ``template`` is an English message (a msgid: the page shows it
    translated) and ``params`` its values."""

    def __init__(self, template: str, **params) -> None:
        self.template = template
        self.params = params
        super().__init__(template % params if params else template)

    def translated(self, gettext) -> str:
        return gettext(self.template) % self.params if self.params else gettext(self.template)


NO_REASON = gettext_noop("Give a reason.")
NOT_IN_FUTURE = gettext_noop("The new expiry date must be in the future.")
NOT_LATER = gettext_noop("The new expiry date must be later than the current one.")
NEVER_PASSED = gettext_noop("This annotator has not passed a qualification test.")
NEVER_EXPIRES = gettext_noop(
    "Qualifications do not expire on this site (QUALIFICATION_VALID_DAYS is 0), so there is nothing to extend."
)
TOO_LATE = gettext_noop(
    "The new expiry date can be at most %(days)s days from today (QUALIFICATION_VALID_DAYS, the validity of a "
    "passed test): %(latest)s at the latest, not %(given)s."
)


def latest_extension(now: datetime | None = None) -> datetime | None:
    """The latest expiry an extension may set: the end of the day one validity period (``QUALIFICATION_VALID_DAYS``)
    from today, as long as passing the re-qualification test today would give; None when qualifications never
    expire (nothing to extend)."""
    days = valid_days()
    if days == 0:
        return None
    today = timezone.localtime(now or clock()).date()
    return timezone.make_aware(datetime.combine(today + timedelta(days=days), time(23, 59, 59)))


def qualification_extend(*, annotator, until: datetime, reason: str, by, now: datetime | None = None):
    """Move ``annotator``'s qualification expiry to ``until``; stored with who, when, why, old and new expiry.

    ``until`` must be later than now and than the current expiry, and no later than ``latest_extension``."""
    now = now or clock()
    reason = (reason or "").strip()
    if not reason:
        raise ExtensionRefused(NO_REASON)
    latest = latest_extension(now)
    if latest is None:
        raise ExtensionRefused(NEVER_EXPIRES)
    if until <= now:
        raise ExtensionRefused(NOT_IN_FUTURE)
    if until > latest:
        given = f"{timezone.localtime(until):%Y-%m-%d}"
        raise ExtensionRefused(TOO_LATE, days=valid_days(), latest=f"{latest:%Y-%m-%d}", given=given)
    with transaction.atomic():
        attempt = (
            QualificationAttempt.objects.select_for_update()
            .filter(annotator=annotator, passed=True)
            .order_by("-finished_at", "-id")
            .first()
        )
        if attempt is None:
            raise ExtensionRefused(NEVER_PASSED)
        old = expires_at(attempt.finished_at, attempt.extended_until, days=valid_days())
        if old is not None and until <= old:
            raise ExtensionRefused(NOT_LATER)
        attempt.extended_until = until
        attempt.save(update_fields=["extended_until"])
        return QualificationExtension.objects.create(
            annotator=annotator,
            attempt=attempt,
            extended_by=by,
            created_at=now,
            reason=reason,
            old_expires_at=old,
            new_expires_at=until,
        )


@dataclass(frozen=True)
class ExpiryRow:
    annotator: object
    qualification: Qualification
    last_extension: QualificationExtension | None


def qualification_expiries(*, now: datetime | None = None) -> list[ExpiryRow]:
    """Every annotator who logs in, with their qualification (soonest expiry first) and its last extension."""
    now = now or clock()
    passed = QualificationAttempt.objects.filter(annotator=OuterRef("pk"), passed=True).order_by("-finished_at", "-id")
    users = (
        get_user_model()
        .objects.filter(groups__name=ANNOTATOR, is_active=True)
        .exclude(annotator_profile__imported=True)
        .distinct()
        .annotate(
            passed_at=Subquery(passed.values("finished_at")[:1]),
            extended_until=Subquery(passed.values("extended_until")[:1]),
        )
        .order_by("username")
    )
    users = list(users)
    last = {}
    for extension in QualificationExtension.objects.filter(annotator__in=users).select_related("extended_by"):
        last.setdefault(extension.annotator_id, extension)  # newest first
    rows = [
        ExpiryRow(
            user, Qualification.of(user.passed_at, user.extended_until, now=now, staff=user.is_staff), last.get(user.pk)
        )
        for user in users
    ]
    far = datetime.max.replace(tzinfo=now.tzinfo)
    return sorted(rows, key=lambda r: (not r.qualification.ever_passed, r.qualification.expires or far))


# --------------------------------------------------------------------------- re-training (annotators)


def refresher_progress(*, annotator, qualification: Qualification) -> dict[str, int]:
    """Practice items answered since the qualification's expiry came into notice, of those suggested."""
    total = GoldItem.objects.filter(set=GoldItem.Set.PRACTICE).count()
    needed = min(REFRESHER_ITEMS, total)
    done = 0
    if qualification.expires is not None:
        done = (
            TrainingAnswer.objects.filter(
                annotator=annotator,
                attempt__isnull=True,
                created_at__gte=qualification.expires - timedelta(days=NOTICE_DAYS),
            )
            .values("gold_item")
            .distinct()
            .count()
        )
    return {"done": min(done, needed), "total": needed}


def requalification_items(*, annotator, size: int | None = None, rng: random.Random | None = None) -> list[int]:
    """Test item ids for a re-qualification: drawn from those not asked in the annotator's previous attempt.

    When fewer are unseen than ``size`` (``REQUALIFICATION_ITEMS``), the rest are the items the
    annotator answered longest ago. A draw in which an axis's gold scores do not vary (kappa would be
    undefined) is drawn again. Returned in the test's fixed order.
    """
    size = size or int(getattr(settings, "REQUALIFICATION_ITEMS", 10))
    rng = rng or random.Random()  # noqa: S311 - not security
    previous = QualificationAttempt.objects.filter(annotator=annotator).order_by("-started_at", "-id").first()
    seen = set(previous.item_ids) if previous is not None else set()
    items = {item.pk: item for item in GoldItem.objects.filter(set=GoldItem.Set.TEST)}
    unseen = [pk for pk in items if pk not in seen]
    if len(unseen) >= size:
        chosen = unseen
        for _try in range(_DRAWS):
            chosen = rng.sample(unseen, size)
            if all(len({items[pk].gold[axis] for pk in chosen}) > 1 for axis in AXES):
                break
    else:
        answered = dict(
            TrainingAnswer.objects.filter(annotator=annotator, gold_item__in=[pk for pk in items if pk in seen])
            .values("gold_item")
            .annotate(last=Max("created_at"))
            .values_list("gold_item", "last")
        )
        never = clock() - timedelta(days=365_000)  # never answered: first
        oldest = sorted((pk for pk in items if pk in seen), key=lambda pk: (answered.get(pk) or never, pk))
        chosen = unseen + oldest[: size - len(unseen)]
    return sorted(chosen, key=lambda pk: (items[pk].position, pk))
