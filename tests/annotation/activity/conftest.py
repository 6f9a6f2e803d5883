"""A small batch whose activity is worked out by hand in the tests (see ``activity_batch``)."""

from datetime import datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.utils import timezone

TOKYO = ZoneInfo("Asia/Tokyo")
AXES = ("social", "avoidant", "mechanical", "self")

# Scores per annotator and dialogue (d0..d5), the same pattern on every axis but shifted, so each axis differs.
SOCIAL = {
    "ann_a": [1, 2, 3, 4, 5, 3],
    "ann_b": [1, 2, 4, 4, 5, 2],
    "ann_c": [2, 2, 3, 5, 4, None],
}
SECONDS = {
    "ann_a": [10, 20, None, 40, 30, None],  # median of 10, 20, 30, 40 = 25 (n=4)
    "ann_b": [5, 7, 9, None, None, None],  # median 7 (n=3)
    "ann_c": [None] * 5,  # no time recorded: no median
}


def tokyo(day, hour: int, minute: int = 0) -> datetime:
    return datetime.combine(day, time(hour, minute), tzinfo=TOKYO)


def axis_scores(name: str, i: int) -> dict:
    base = SOCIAL[name][i]
    return {f"{axis}_score": 1 + (base - 1 + k * (i % 2)) % 5 for k, axis in enumerate(AXES)}


@pytest.fixture
def today():
    return timezone.localdate(timezone=TOKYO)


@pytest.fixture
def activity_batch(db, today):
    """Batch b1: d0..d7; D = today - 3 days (Tokyo).

    ann_a rates d0 at D 23:50, d1 at D+1 00:10 (the same UTC day, 14:50 and 15:10), d2..d5 at D+1 10:00
      -> D: 1, D+1: 5; queue: d0..d3 submitted, d6, d7 skipped -> skip rate 2/6.
    ann_b rates d0..d2 at D 08:00 (D-1 23:00 UTC) and d3..d5 at D+2 12:00 -> D: 3, D+2: 3; queue: 6 submitted,
      d6 expired, d7 reserved (neither counts) -> skip rate 0/6.
    ann_c rates d0..d3 at D+1 23:59 and d4 40 days before today (outside the window) -> D+1: 4, total 5;
      no queue assignments (imported) -> no skip rate.
    ann_x rates in another batch only, and skips there: not part of b1.
    """
    from annotation.models import Annotation, Assignment, Batch, Dialogue
    from tests.helpers import make_user

    batch = Batch.objects.create(name="b1")
    other = Batch.objects.create(name="other")
    dialogues = [
        Dialogue.objects.create(external_id=f"d{i}", user_text=f"u{i}", response_text=f"r{i}", batch=batch)
        for i in range(8)
    ]
    elsewhere = Dialogue.objects.create(external_id="e0", user_text="u", response_text="r", batch=other)
    users = {name: make_user(name, "annotator") for name in ("ann_a", "ann_b", "ann_c", "ann_x")}
    day = today - timedelta(days=3)
    when = {
        "ann_a": [tokyo(day, 23, 50), tokyo(day + timedelta(days=1), 0, 10)] + [tokyo(day + timedelta(days=1), 10)] * 4,
        "ann_b": [tokyo(day, 8)] * 3 + [tokyo(day + timedelta(days=2), 12)] * 3,
        "ann_c": [tokyo(day + timedelta(days=1), 23, 59)] * 4 + [tokyo(today - timedelta(days=40), 12)],
    }
    for name, times in when.items():
        for i, created in enumerate(times):
            Annotation.objects.create(
                dialogue=dialogues[i], annotator=users[name], created_at=created, updated_at=created,
                seconds_spent=SECONDS[name][i], **axis_scores(name, i),
            )  # fmt: skip
    Annotation.objects.create(
        dialogue=elsewhere, annotator=users["ann_x"], social_score=1, avoidant_score=1, mechanical_score=1, self_score=1
    )

    def assign(name, i, status, batch=batch, dialogue=None):
        now = timezone.now()
        Assignment.objects.create(
            dialogue=dialogue or dialogues[i], batch=batch, annotator=users[name], status=status,
            expires_at=now + timedelta(hours=1), finished_at=None if status == "reserved" else now,
        )  # fmt: skip

    for i in range(4):
        assign("ann_a", i, "submitted")
    assign("ann_a", 6, "skipped")
    assign("ann_a", 7, "skipped")
    for i in range(6):
        assign("ann_b", i, "submitted")
    assign("ann_b", 6, "expired")
    assign("ann_b", 7, "reserved")
    assign("ann_x", 0, "skipped", batch=other, dialogue=elsewhere)
    assign("ann_a", 0, "skipped", batch=other, dialogue=elsewhere)
    return batch
