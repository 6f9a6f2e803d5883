"""A researcher opens the per-annotator activity page of a batch rated like the demo data, over recent days."""

import json
from datetime import datetime, time, timedelta
from zoneinfo import ZoneInfo

import numpy as np
from django.utils import timezone

from annotation.demo import demo_ratings
from annotation.guidelines import loader as guidelines_data
from annotation.io.imports import annotations_import, dialogues_import
from annotation.models import Assignment, Batch, Dialogue
from tests.e2e.conftest import log_in, screenshot
from tests.e2e.test_csp import WATCH
from tests.helpers import make_user

TOKYO = ZoneInfo("Asia/Tokyo")
WORK_DAYS = {"ann_001": 12, "ann_002": 8, "ann_003": 5}  # how many recent days each spread their ratings over


def _demo_like_batch(tmp_path) -> Batch:
    """The demo's 40 dialogues and three annotators' ratings, re-timed onto the last three weeks (Tokyo)."""
    dialogues = guidelines_data.demo_dialogues()
    rows = demo_ratings(dialogues, guidelines_data.demo_reference_scores())
    rng = np.random.default_rng(7)
    today = timezone.localdate(timezone=TOKYO)
    for name, n_days in WORK_DAYS.items():
        days = rng.choice(np.arange(0, 21), size=n_days, replace=False)
        weights = rng.dirichlet(np.full(n_days, 2.0))
        mine = [row for row in rows if row["annotator_id"] == name]
        for k, row in enumerate(mine):
            day = today - timedelta(days=int(rng.choice(days, p=weights)))
            at = datetime.combine(day, time(9 + k % 9, (7 * k) % 60), tzinfo=TOKYO)
            row["timestamp"] = at.isoformat()
    folder = tmp_path
    (folder / "d.jsonl").write_text("".join(json.dumps(d, ensure_ascii=False) + "\n" for d in dialogues), "utf-8")
    (folder / "r.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    dialogues_import(paths=[folder / "d.jsonl"], batch_name="demo")
    annotations_import(paths=[folder / "r.jsonl"])
    batch = Batch.objects.get(name="demo")
    # ann_003 also worked through the queue and skipped a few items.
    from django.contrib.auth.models import User

    fast = User.objects.get(username="ann_003")
    now = timezone.now()
    for i, dialogue in enumerate(Dialogue.objects.filter(batch=batch).order_by("id")[:14]):
        status = Assignment.Status.SKIPPED if i % 3 == 0 else Assignment.Status.SUBMITTED
        Assignment.objects.create(dialogue=dialogue, batch=batch, annotator=fast, status=status,
                                  expires_at=now, finished_at=now)  # fmt: skip
    return batch


def test_researcher_reads_the_activity_of_each_annotator(page, transactional_db, tmp_path):
    batch = _demo_like_batch(tmp_path)
    make_user("res_e2e", "researcher", password="pw-for-tests-1")
    page.context.add_init_script(WATCH)
    log_in(page, "res_e2e", "pw-for-tests-1")
    page.set_viewport_size({"width": 1400, "height": 900})
    page.goto(f"/research/batches/{batch.pk}/activity/")
    assert page.locator("html").get_attribute("lang") == "ja"
    assert page.locator("svg.activity-plot g.series").count() == 3
    rows = page.locator("table.activity-table tbody tr")
    assert rows.count() == 3
    assert page.locator("table.activity-table tbody th").all_inner_texts() == ["ann_001", "ann_002", "ann_003"]
    assert page.locator("tr[data-annotator=ann_003] td[data-col=skip-rate]").inner_text().startswith("35.7%")
    total = sum(
        int(n) for n in page.locator("svg.activity-plot rect.bar").evaluate_all("bs => bs.map(b => b.dataset.n)")
    )
    assert total == 40 + 30 + 30
    assert page.evaluate("window.__csp") == []  # no inline style or script the policy would refuse
    screenshot(page, "activity")
    page.click("details.day-table summary")
    assert page.locator("table.per-day-table tbody tr").count() == 30
    page.click("a[data-link=dashboard]")
    page.wait_for_load_state("networkidle")
    assert page.url.endswith(f"/research/agreement/?batch={batch.pk}")
