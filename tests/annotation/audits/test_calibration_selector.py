"""The calibration selector (issue 18): reports built from the stored audit, items and ratings."""

from datetime import timedelta

import numpy as np
import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone
from sklearn.metrics import cohen_kappa_score

from annotation.aggregation.calibration import calibration_report
from annotation.audits.calibration import audit_calibration, batch_calibrations
from annotation.audits.queue import rating_edit
from annotation.models import AuditItem, AuditRating, JudgeAudit
from core import judge_audits

JUDGE = ("gpt-4o-mini", "layer3.gv_relevance@1")


def make_audit(name, *, batch="pilot", kind="gv", created=None, scores=(), people=(), ratings=()):
    """An audit of items ``t<i>:g0`` with the judge's ``scores``; ``ratings`` rows are (item index, person, score)."""
    strata: dict[tuple, int] = {}
    for i, score in enumerate(scores):
        strata[("A" if i % 2 else "B", score)] = strata.get(("A" if i % 2 else "B", score), 0) + 1
    audit = JudgeAudit.objects.create(
        name=name,
        kind=kind,
        source_batch=batch,
        per_item=3,
        requested_size=len(scores),
        seed=5,
        population=sum(4 * n for n in strata.values()),
        design={
            "strata": [{"stratum": list(s), "population": 4 * n, "sampled": n} for s, n in strata.items()],
            "minPerStratum": 2,
            "judgeRates": {"@".join(JUDGE): 0.4},
        },
        created_at=created or timezone.now(),
    )
    items = AuditItem.objects.bulk_create(
        AuditItem(
            audit=audit,
            key=f"t{i:03d}:g0",
            trial_id=f"t{i:03d}",
            model_config="A" if i % 2 else "B",
            context={"concern": "転職", "text": f"<i>{i}</i>"},
            judge_model=JUDGE[0],
            judge_prompt=JUDGE[1],
            judge_score=score,
            judge_label=["not_relevant", "generic", "useful"][score],
            judge_reasoning=f"reason {i}",
            baseline_score=(score + i) % 3,
            stratum=["A" if i % 2 else "B", score],
            weight=4.0,
        )
        for i, score in enumerate(scores)
    )
    users = {name: get_user_model().objects.get_or_create(username=name)[0] for name in people}
    AuditRating.objects.bulk_create(
        AuditRating(item=items[i], annotator=users[person], score=score) for i, person, score in ratings
    )
    return audit


SCORES = (0, 1, 2, 2, 0, 1, 2, 0, 1, 2)
PEOPLE = ("ann_b", "ann_a", "ann_c")
RATINGS = [
    (i, person, int(np.clip(score + offset, 0, 2)))
    for i, score in enumerate(SCORES)
    for person, offset in zip(PEOPLE, ((i % 3) - 1, 0, 1 if i == 4 else 0), strict=True)
    if not (i == 9 and person == "ann_c")
]


@pytest.mark.django_db
def test_the_report_is_the_pure_report_of_the_stored_rows():
    audit = make_audit("gv audit", scores=SCORES, people=PEOPLE, ratings=RATINGS)
    report = audit_calibration(audit, n_boot=50)
    items = [
        {
            "key": f"t{i:03d}:g0",
            "trialId": f"t{i:03d}",
            "modelConfig": "A" if i % 2 else "B",
            "judgeModel": JUDGE[0],
            "judgePrompt": JUDGE[1],
            "judgeScore": score,
            "judgeLabel": ["not_relevant", "generic", "useful"][score],
            "judgeReasoning": f"reason {i}",
            "baselineScore": (score + i) % 3,
            "stratum": ["A" if i % 2 else "B", score],
            "weight": 4.0,
            "context": {"concern": "転職", "text": f"<i>{i}</i>"},
        }
        for i, score in enumerate(SCORES)
    ]
    ratings: dict[str, dict[str, int]] = {}
    for i, person, score in RATINGS:
        ratings.setdefault(f"t{i:03d}:g0", {})[person] = score
    facts = {
        "id": audit.pk,
        "name": "gv audit",
        "kind": "gv",
        "batch": "pilot",
        "createdAt": audit.created_at.isoformat(),
        "perItem": 3,
        "seed": 5,
        "requestedSize": 10,
        "design": audit.design,
    }
    assert report == calibration_report(facts, items, ratings, n_boot=50)
    assert report["audit"]["annotators"] == ["ann_a", "ann_b", "ann_c"]
    assert report["audit"]["ratings"] == len(RATINGS) and report["audit"]["completeItems"] == 9
    judge = report["judges"][0]
    assert (judge["model"], judge["prompt"]) == JUDGE and report["baseline"]["baseline"] is True
    a = [score for i, person, score in RATINGS if person == "ann_a"]
    row = next(r for r in judge["vsAnnotators"] if r["annotator"] == "ann_a")
    assert row["kappa"]["value"] == pytest.approx(cohen_kappa_score(SCORES, a, weights="quadratic", labels=[0, 1, 2]))
    assert report["rate"]["judgeBatch"] == {"@".join(JUDGE): 0.4}


@pytest.mark.django_db
def test_batch_calibrations_are_the_batchs_audits_newest_first():
    now = timezone.now()
    make_audit("older", created=now - timedelta(days=2), scores=(0, 2), people=("x",), ratings=[(0, "x", 0)])
    make_audit("newer", created=now - timedelta(days=1), scores=(1, 1, 2), kind="w2wr")
    make_audit("elsewhere", batch="other", scores=(0,))
    reports = batch_calibrations("pilot")
    assert [r["audit"]["name"] for r in reports] == ["newer", "older"]
    assert reports[0]["rate"]["name"] == "correctnessRate" and reports[0]["humans"]["n"] == 0
    assert batch_calibrations("nobody") == []


@pytest.mark.django_db
def test_the_reports_reach_layer3_through_the_core_registry():
    make_audit("registered", scores=SCORES, people=PEOPLE, ratings=RATINGS)
    reports = judge_audits.calibration_reports("pilot")
    assert [r["audit"]["name"] for r in reports] == ["registered"]
    assert reports[0]["humans"]["kappa"]["value"] is not None


@pytest.mark.django_db
def test_a_200_item_audit_is_read_in_three_queries_then_cached(django_assert_num_queries):
    rng = np.random.default_rng(0)
    scores = tuple(int(s) for s in rng.integers(0, 3, size=200))
    ratings = [(i, p, int(np.clip(s + rng.choice([-1, 0, 0, 1]), 0, 2))) for i, s in enumerate(scores) for p in PEOPLE]
    audit = make_audit("big", scores=scores, people=PEOPLE, ratings=ratings)
    with django_assert_num_queries(3):  # the ratings' state (the cache key), the items, the ratings with usernames
        report = audit_calibration(audit, n_boot=100)
    assert report["audit"]["items"] == 200 and report["audit"]["ratings"] == 600
    with django_assert_num_queries(1):  # nothing changed: the cached report
        assert audit_calibration(audit, n_boot=100) == report


@pytest.mark.django_db
def test_a_new_or_corrected_rating_gives_a_new_report_at_once():
    audit = make_audit("fresh", scores=SCORES, people=PEOPLE, ratings=RATINGS)
    before = audit_calibration(audit, n_boot=50)
    rating = AuditRating.objects.filter(item__audit=audit).order_by("pk").first()
    rating_edit(rating, rating.annotator, (rating.score + 1) % 3, reason="second look")
    after = audit_calibration(audit, n_boot=50)
    assert after != before and after == audit_calibration(audit, n_boot=50)
    rating.delete()
    assert audit_calibration(audit, n_boot=50)["audit"]["ratings"] == before["audit"]["ratings"] - 1
