"""The annotation part of the demo data set: 40 Japanese dialogues and three annotators' ratings.

The ratings are synthetic: each demo annotator starts from the reference scores that
annotation/demo/reference_scores.json gives for every dialogue and deviates by a seeded amount
(ann_003 more often and faster than the others), so agreement, consensus and outlier flags have
something realistic to show. Items 31-40 have one rating only, so the demo accounts find work.
"""

from __future__ import annotations

import json
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np

from annotation.axes import AXES
from annotation.guidelines import loader as guidelines_data
from annotation.io.imports import annotations_import, dialogues_import
from annotation.models import Batch
from annotation.services import agreement_report_create

BATCH = "demo"
FULLY_RATED = 30
ANNOTATORS = {"ann_001": (0.10, 25.0), "ann_002": (0.12, 30.0), "ann_003": (0.30, 4.0)}  # (deviation rate, seconds)
START = datetime(2025, 1, 6, 0, 0, tzinfo=UTC)


def demo_ratings(dialogues: list[dict], reference: dict[str, dict[str, int]], *, seed: int = 2025) -> list[dict]:
    rng = np.random.default_rng(seed)
    rows = []
    for name, (deviation, seconds) in ANNOTATORS.items():
        clock = START
        for index, item in enumerate(dialogues):
            if index >= FULLY_RATED and name != "ann_001":
                continue
            scores = {}
            for axis in AXES:
                score = reference[item["id"]][axis]
                if rng.random() < deviation:
                    score += int(rng.choice([-1, 1]))
                scores[axis] = int(min(5, max(1, score)))
            confidence = {axis: float(rng.choice([0.6, 0.8, 0.9, 1.0], p=[0.08, 0.22, 0.35, 0.35])) for axis in AXES}
            spent = float(max(2.0, rng.normal(seconds, seconds / 4)))
            clock += timedelta(seconds=spent + 5)
            rows.append(
                {
                    "id": item["id"],
                    "annotator_id": name,
                    "timestamp": clock.isoformat().replace("+00:00", "Z"),
                    "annotations": scores,
                    "confidence": confidence,
                    "seconds_spent": round(spent, 1),
                }
            )
    return rows


def load() -> str:
    dialogues = guidelines_data.demo_dialogues()
    ratings = demo_ratings(dialogues, guidelines_data.demo_reference_scores())
    Batch.objects.get_or_create(
        name=BATCH,
        defaults={"description": "Synthetic demo dialogues written for this project", "annotations_per_item": 3},
    )
    with tempfile.TemporaryDirectory() as folder:
        dialogue_file, rating_file = Path(folder) / "demo_dialogues.jsonl", Path(folder) / "demo_ratings.jsonl"
        for path, rows in ((dialogue_file, dialogues), (rating_file, ratings)):
            path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
        dialogues_import(paths=[dialogue_file], batch_name=BATCH)
        annotations_import(paths=[rating_file])
    report = agreement_report_create(batch=Batch.objects.get(name=BATCH), n_boot=200)
    return (
        f"{len(dialogues)} dialogues, {len(ratings)} ratings by {len(ANNOTATORS)} annotators, "
        f"agreement report {'passed' if report.passed else 'not passed'} with {report.flags.count()} quality flags"
    )
