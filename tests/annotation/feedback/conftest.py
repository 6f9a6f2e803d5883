"""Two months of ratings (February and March 2026, Tokyo time) whose figures the tests work out independently.

March: 30 items (m000..m029) rated by ann_a, ann_b, ann_c and ann_d; ann_d gives social 1 throughout
(straight-lining), ann_c rates in 3 seconds. February: 20 other items (f000..f019) rated by ann_a, ann_b and
ann_c. Every confidence is 0.9, so the consensus of an item is the plain mean of its ratings. Flags: one on ann_a
raised in March (accepted, reviewed) and one in February.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import numpy as np
import pytest

TOKYO = ZoneInfo("Asia/Tokyo")
AXES = ("social", "avoidant", "mechanical", "self")
MARCH = datetime(2026, 3, 1, tzinfo=TOKYO)
FEBRUARY = datetime(2026, 2, 1, tzinfo=TOKYO)


@dataclass
class Month:
    """The raw ratings of a month: {annotator: {item: (scores per axis, seconds)}}."""

    ratings: dict[str, dict[str, tuple[tuple[int, ...], float]]] = field(default_factory=dict)


@dataclass
class FeedbackData:
    march: Month
    february: Month
    users: dict
    researcher: object
    flag_march: object
    flag_february: object


def _month_ratings(rng, items: list[str], raters: list[str], *, straight: str | None) -> Month:
    month = Month()
    truth = {item: rng.integers(1, 6, size=len(AXES)) for item in items}
    for name in raters:
        month.ratings[name] = {}
        for k, item in enumerate(items):
            if name == "ann_b" and k % 7 == 3:
                continue  # ann_b leaves some items out
            noise = rng.integers(-1, 2, size=len(AXES))
            scores = np.clip(truth[item] + noise, 1, 5)
            if name == straight:
                scores[0] = 1
            seconds = 3.0 if name == "ann_c" else float(20 + (k * 7 + len(name)) % 40)
            month.ratings[name][item] = (tuple(int(s) for s in scores), seconds)
    return month


def _store(month: Month, start: datetime, batch, users, dialogues):
    from annotation.models import Annotation

    rows = []
    for r, (name, items) in enumerate(sorted(month.ratings.items())):
        for k, (item, (scores, seconds)) in enumerate(sorted(items.items())):
            at = start + timedelta(days=k % 27, hours=9 + r, minutes=k)
            rows.append(
                Annotation(
                    dialogue=dialogues[item],
                    annotator=users[name],
                    **{f"{axis}_score": s for axis, s in zip(AXES, scores, strict=True)},
                    **{f"{axis}_confidence": 0.9 for axis in AXES},
                    seconds_spent=seconds,
                    created_at=at,
                    updated_at=at,
                )
            )
    Annotation.objects.bulk_create(rows)


@pytest.fixture
def feedback_data(db) -> FeedbackData:
    from annotation.models import Batch, Dialogue, QualityFlag, QualityFlagReview
    from tests.helpers import make_user

    rng = np.random.default_rng(30)
    names = ["ann_a", "ann_b", "ann_c", "ann_d"]
    users = {name: make_user(name, "annotator") for name in names}
    researcher = make_user("res_001", "researcher")
    batch = Batch.objects.create(name="fb")
    march_items = [f"m{i:03d}" for i in range(30)]
    february_items = [f"f{i:03d}" for i in range(20)]
    dialogues = {}
    for item in march_items + february_items:
        dialogues[item] = Dialogue.objects.create(
            external_id=item, user_text=f"質問 {item}", response_text=f"回答 {item}", batch=batch
        )
    march = _month_ratings(rng, march_items, names, straight="ann_d")
    february = _month_ratings(rng, february_items, names[:3], straight=None)
    _store(march, MARCH, batch, users, dialogues)
    _store(february, FEBRUARY, batch, users, dialogues)
    flag_march = QualityFlag.objects.create(
        source=QualityFlag.Source.OUTLIER, kind="score_bias", annotator=users["ann_a"], axis="social",
        statistic=0.8, threshold=0.75, message="scores 0.80 points higher than the others on the same items",
        details={"n_items": 30, "z": None, "bias_z": 2.0}, status=QualityFlag.Status.ACCEPTED,
        created_at=MARCH + timedelta(days=10),
    )  # fmt: skip
    QualityFlagReview.objects.create(
        flag=flag_march, old_status="open", new_status="accepted", note="talk about praise", reviewer=researcher,
        reviewed_at=MARCH + timedelta(days=11),
    )  # fmt: skip
    flag_february = QualityFlag.objects.create(
        source=QualityFlag.Source.OUTLIER, kind="too_fast", annotator=users["ann_a"], statistic=3.0, threshold=5.0,
        message="median 3.0 s per item", details={}, created_at=FEBRUARY + timedelta(days=3),
    )  # fmt: skip
    return FeedbackData(march, february, users, researcher, flag_march, flag_february)
