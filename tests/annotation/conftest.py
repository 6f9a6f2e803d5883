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
