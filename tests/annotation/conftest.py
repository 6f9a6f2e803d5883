import json
from pathlib import Path

import pytest


def write_jsonl(path: Path, rows) -> Path:
    with path.open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write((row if isinstance(row, str) else json.dumps(row, ensure_ascii=False)) + "\n")
    return path


def dialogue(i: int, **overrides) -> dict:
    data = {
        "id": f"dialogue_{i:03d}",
        "user": f"質問 {i}",
        "response": f"回答 {i}",
        "context": [
            {"turn": -2, "speaker": "ai", "text": "前の応答"},
            {"turn": -1, "speaker": "user", "text": "前の発話"},
        ],
    }
    data.update(overrides)
    return data


def rating(i: int, annotator: str = "ann_001", scores=(1, 2, 1, 1), conf=(0.9, 0.8, 0.95, 0.95), **overrides) -> dict:
    axes = ("social", "avoidant", "mechanical", "self")
    data = {
        "id": f"dialogue_{i:03d}",
        "annotator_id": annotator,
        "timestamp": "2025-01-01T10:00:00Z",
        "annotations": dict(zip(axes, scores, strict=True)),
        "confidence": dict(zip(axes, conf, strict=True)),
    }
    data.update(overrides)
    return data


@pytest.fixture
def jsonl(tmp_path):
    counter = iter(range(10_000))

    def make(rows, name: str | None = None) -> Path:
        return write_jsonl(tmp_path / (name or f"file_{next(counter)}.jsonl"), rows)

    return make


@pytest.fixture
def disputed_batch(jsonl, db):
    """Batch "adj": six items rated alike by three annotators, except dialogue_000's social axis (1, 5, 3:
    disputed, rejected for its spread until adjudicated)."""
    from django.core.management import call_command

    from annotation.models import Batch

    call_command("import_dialogues", str(jsonl([dialogue(i) for i in range(6)])), batch="adj")
    rows = []
    for i in range(6):
        for annotator, social in zip(("ann_a", "ann_b", "ann_c"), (1, 5, 3) if i == 0 else (i,) * 3, strict=True):
            level = 1 + i % 5
            rows.append(rating(i, annotator, scores=(social or 1, level, level, level), conf=(1, 1, 1, 1)))
    call_command("import_annotations", str(jsonl(rows)))
    return Batch.objects.get(name="adj")
