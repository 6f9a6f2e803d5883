"""Quality flags read in Japanese: every kind the checks produce, built from the flag's numbers and details."""

import re

import numpy as np
import pytest
from django.utils import translation

from annotation.axes import AXES
from annotation.dashboard.flag_text import KIND_LABELS, flag_text, kind_label
from annotation.io.dataset import RatingSet
from annotation.quality.consistency import RULES, check_consistency
from annotation.quality.outliers import detect_outliers

JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")
OUTLIER_KINDS = {
    "low_agreement",
    "score_bias",
    "straight_lining",
    "too_fast",
    "late_session_drift",
    "item_disagreement",
}


def _synthetic() -> RatingSet:
    """36 items, 5 raters: r0 drifts late in its session, r1 is fast, r2 straight-lines on self, r3 scores 2
    points high, r4 rates at random (and so the items disagree)."""
    rng = np.random.default_rng(1)
    n_items, n_raters = 36, 5
    truth = rng.integers(1, 6, n_items)
    scores = {}
    for axis in AXES:
        m = np.tile(truth[:, None], (1, n_raters)).astype(np.int8)
        m[:, 3] = np.clip(truth + 2, 1, 5)
        m[:, 4] = rng.integers(1, 6, n_items)
        if axis == "self":
            m[:, 2] = 3
        m[24:, 0] = np.clip(truth[24:] + 2 * (1 - 2 * (truth[24:] > 3)), 1, 5)
        scores[axis] = m
    seconds = np.full((n_items, n_raters), 30.0)
    seconds[:, 1] = 2.0
    epoch = 1.7e9 + np.arange(n_items)[:, None] * 60.0 + np.zeros((1, n_raters))
    confidence = np.ones((n_items, n_raters))
    return RatingSet([f"i{i}" for i in range(n_items)], [f"r{r}" for r in range(n_raters)], scores,
                     dict.fromkeys(AXES, confidence), seconds, epoch)  # fmt: skip


@pytest.fixture(scope="module")
def outlier_flags():
    flags = [
        {
            "kind": f.kind,
            "axis": f.axis or "",
            "statistic": f.statistic,
            "threshold": f.threshold,
            "details": f.details,
            "message": f.message,
        }
        for f in detect_outliers(_synthetic())
    ]
    assert {f["kind"] for f in flags} == OUTLIER_KINDS
    return flags


def test_every_outlier_kind_reads_in_japanese_with_its_numbers(outlier_flags):
    with translation.override("ja"):
        for flag in outlier_flags:
            text = flag_text(flag)
            assert text != flag["message"] and JAPANESE.search(text), flag["kind"]
            assert JAPANESE.search(kind_label(flag["kind"])), flag["kind"]
            if flag["kind"] == "low_agreement":
                assert f"{flag['statistic']:.3f}" in text and "0.60" in text
            if flag["kind"] == "too_fast":
                assert f"{flag['statistic']:.1f}" in text and "100%" in text


def test_in_english_the_text_matches_the_numbers_of_the_stored_message(outlier_flags):
    with translation.override("en"):
        for flag in outlier_flags:
            text = flag_text(flag)
            assert not JAPANESE.search(text)
            number = re.search(r"\d+(?:\.\d+)?", flag["message"]).group()
            assert number in text, (flag["kind"], text, flag["message"])


def test_every_consistency_rule_and_the_text_change_flag_read_in_japanese():
    dialogue = {"id": "d1", "user": "u", "response": "他のAIと違って私は必ずお役に立てます。素晴らしい質問ですね。"}
    seen = set()
    for scores in ([3, 5, 1, 3], [5, 1, 4, 5], [3, 3, 3, 3], [4, 2, 4, 1], [1, 1, 1, 1]):
        annotation = {"annotations": dict(zip(AXES, scores, strict=True)), "confidence": dict.fromkeys(AXES, 0.5)}
        for issue in check_consistency(annotation, dialogue):
            seen.add(issue.rule_id)
            details = {**issue.details, "severity": issue.severity, "message_ja": issue.message_ja}
            flag = {"kind": issue.rule_id, "axis": issue.axis or "", "message": issue.message, "details": details}
            with translation.override("ja"):
                assert flag_text(flag) == issue.message_ja and JAPANESE.search(kind_label(issue.rule_id))
            with translation.override("en"):
                assert flag_text(flag) == issue.message
    assert len(seen) >= 4
    assert {rule.id for rule in RULES} <= set(KIND_LABELS)
    message = (
        "The text of d1 changed after this rating (import_dialogues a.jsonl:3); check that the rating still fits "
        "the new text, then accept or dismiss this flag."
    )
    changed = {"kind": "text_changed", "message": message}
    with translation.override("ja"):
        text = flag_text(changed)
        assert JAPANESE.search(text) and "d1" in text and "import_dialogues a.jsonl:3" in text
        assert JAPANESE.search(kind_label("text_changed"))


def test_flags_it_cannot_rebuild_keep_their_stored_message():
    with translation.override("ja"):
        assert flag_text({"kind": "too_fast", "statistic": 2.0, "threshold": 5, "details": {}, "message": "m1"}) == "m1"
        assert flag_text({"kind": "x_new_kind", "details": {"a": 1}, "message": "m2"}) == "m2"
        assert flag_text({"kind": "C001", "details": {}, "message": "m3"}) == "m3"
        assert kind_label("x_new_kind") == "x_new_kind"
