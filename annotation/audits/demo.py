"""The judge-audit part of the demo data set: a finished GV audit of the demo Layer3 batch, and an open one.

The GV audit (30 items: two in each of the 15 strata, three ratings each) is rated by the demo's
imported annotators ann_001–ann_003 with seeded synthetic labels: a hidden "true" label that agrees
with the judge most of the time, and each rater's own slips around it, so that the calibration card
on the Layer3 page has figures to show; it is closed, as a finished audit is. The W2WR audit (30 bindings,
two ratings each) is left open so that the demo annotators find audit items in their queue.
"""

from __future__ import annotations

from datetime import timedelta

import numpy as np
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from annotation.audits.services import judge_audit_close, judge_audit_create
from annotation.models import AnnotatorProfile, AuditItem, AuditRating, JudgeAudit

LAYER3_BATCH = "demo-layer3"  # layer3.demo.load.BATCH (apps share names, not modules)
RATERS = {"ann_001": 0.10, "ann_002": 0.12, "ann_003": 0.25}  # each rater's chance of a slip
JUDGE_RIGHT = 0.8  # how often the hidden label is the judge's
SEED = 2026
FINISHED = "demo · GV audit (finished)"
OPEN = "demo · W2WR audit"


def _raters() -> list:
    users = []
    for name in RATERS:
        user, created = get_user_model().objects.get_or_create(username=name)
        if created:
            user.set_unusable_password()
            user.save(update_fields=["password"])
            AnnotatorProfile.objects.create(user=user, imported=True)
        users.append(user)
    return users


def _shifted(rng, score: int) -> int:
    return int(min(2, max(0, score + int(rng.choice([-1, 1])))))


@transaction.atomic
def load() -> str:
    rng = np.random.default_rng(SEED)
    # load_demo --reload: draw the demo audits afresh (ratings first: they protect their items)
    AuditRating.objects.filter(item__audit__name__in=(FINISHED, OPEN)).delete()
    JudgeAudit.objects.filter(name__in=(FINISHED, OPEN)).delete()
    finished = judge_audit_create(batch=LAYER3_BATCH, kind="gv", size=30, per_item=3, seed=SEED, name=FINISHED)
    items = list(AuditItem.objects.filter(audit=finished).order_by("id"))
    raters = _raters()
    clock = timezone.now() - timedelta(days=2)
    ratings = []
    for item in items:
        truth = item.judge_score if rng.random() < JUDGE_RIGHT else _shifted(rng, item.judge_score)
        for user, slip in zip(raters, RATERS.values(), strict=True):
            score = _shifted(rng, truth) if rng.random() < slip else truth
            clock += timedelta(seconds=float(rng.uniform(8, 40)))
            ratings.append(
                AuditRating(
                    item=item,
                    annotator=user,
                    score=score,
                    seconds_spent=round(float(rng.uniform(6, 35)), 1),
                    created_at=clock,
                    updated_at=clock,
                )
            )
    AuditRating.objects.bulk_create(ratings)
    AuditItem.objects.filter(audit=finished).update(taken_count=finished.per_item)
    judge_audit_close(finished)  # every item has its ratings: finished, as its name says
    open_audit = judge_audit_create(batch=LAYER3_BATCH, kind="w2wr", size=30, per_item=2, seed=SEED, name=OPEN)
    return (
        f"judge audits of {LAYER3_BATCH}: {finished.name!r} with {len(items)} items rated by {len(raters)} people, "
        f"{open_audit.name!r} with {open_audit.items.count()} bindings open for the demo annotators"
    )
