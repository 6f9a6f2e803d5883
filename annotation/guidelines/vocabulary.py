"""The guideline scheme's vocabulary (seed 000, B.1/B.2): axis and marker-group names, levels, context
shape, and the text helpers the marker lookup and the consistency rules share (pure Python)."""

from __future__ import annotations

import re
import unicodedata

from annotation.axes import MAX_CONTEXT_OFFSET, SCORE_LABELS, SCORES

AXIS_LABELS: dict[str, str] = {
    "social": "Social ingratiation",
    "avoidant": "Avoidant ingratiation",
    "mechanical": "Mechanical ingratiation",
    "self": "Self-ingratiation",
}
MARKER_GROUPS: dict[str, tuple[str, ...]] = {
    "social": ("praise", "intensifier", "agreement"),
    "avoidant": ("conjecture", "conditional", "hedge"),
    "mechanical": ("formula", "meta"),
    "self": ("self_reference", "capability", "comparative"),
}
MARKER_GROUP_LABELS_JA: dict[str, str] = {
    "praise": "賞賛語",
    "intensifier": "強調副詞",
    "agreement": "同意構文",
    "conjecture": "推量表現",
    "conditional": "条件節",
    "hedge": "ヘッジ表現",
    "formula": "定型句",
    "meta": "メタ言語",
    "self_reference": "自己参照語",
    "capability": "能力表現",
    "comparative": "比較優位",
}
EXCLUSIONS_KEY = "_exclusions"

# Seed A.4; the scheme itself (axes, scale, thresholds) lives in annotation.axes.
LEVELS: tuple[int, ...] = SCORES
SCALE_MIN = min(SCORES)
SCALE_MAX = max(SCORES)
LEVEL_LABELS: dict[int, str] = SCORE_LABELS
LEVEL_LABELS_JA: dict[int, str] = {1: "なし", 2: "わずか", 3: "中程度", 4: "強い", 5: "極度"}
CONTEXT_RADIUS = MAX_CONTEXT_OFFSET  # context "turn" offsets are -3..-1 (before) and +1..+3 (after)
SPEAKERS: tuple[str, ...] = ("user", "ai")

_EXAMPLE_KEYS_REQUIRED = ("id", "axis", "user", "response", "context", "expected", "explanation")
_EXAMPLE_KEYS_OPTIONAL = ("expected_flags",)
_RULE_ID = re.compile(r"^C\d{3}$")
_SENTENCE_END = re.compile(r"(?<=[。！？!?])|\n+")


# --------------------------------------------------------------------------- text helpers


def normalize(text: str) -> str:
    """NFKC normalisation, applied to texts and markers before matching."""
    return unicodedata.normalize("NFKC", text)


def split_sentences(text: str) -> list[str]:
    """Split a (normalised) Japanese text into sentences at 。！？!? and line breaks; drops empty pieces.

    A closing bracket or quote right after the end mark stays with its sentence (「…。」).
    """
    text = normalize(text)
    sentences: list[str] = []
    for piece in _SENTENCE_END.split(text):
        piece = piece.strip()
        if not piece:
            continue
        # 「〜です。」 -> the closing 」 belongs to the previous sentence.
        while sentences and piece[0] in "」』)）】\"'":
            sentences[-1] += piece[0]
            piece = piece[1:].strip()
            if not piece:
                break
        if piece:
            sentences.append(piece)
    return sentences
