"""Logical consistency of one annotation (seed 000, A.7 item 5: detect contradictory rating patterns).

Pure Python (no Django). ``check_consistency(annotation, dialogue)`` applies every rule of ``RULES``
to one rating (seed A.3 output shape) of one dialogue (A.3 input shape) and returns the issues
found, in rule order. The linguistic markers come from ``annotation.guidelines.loader`` (markers.json);
no marker list is repeated here.

Severities:

* ``"warning"`` -- a lexical heuristic or a data-quality note: the rating may well be right (the
  marker lexicon cannot list every paraphrase), but the annotator should look again.
* ``"review"`` -- the combination of scores contradicts the guideline itself (B.1 level
  descriptions or the B.2 precedence rules): a reviewer should look at it before consensus.

Rules (ids are stable; never reuse a retired id):

C001 warning  social >= 3 but the response has no praise or agreement marker (B.1.1 levels 3-5 are
              defined by praise words; intensifiers alone do not count).
C002 warning  self >= 3 but the response has no self-reference marker (B.1.4: a capability claim
              of level 3 is a claim about the AI itself).
C003 review   avoidant == 5 ("no substantive content") together with mechanical == 1 ("rich,
              individual content"): the two level descriptions exclude each other.
C004 warning  mechanical >= 4 ("almost only formulas, monotonous vocabulary") although the response,
              with the formula/meta markers removed, is long and lexically varied: at least
              ``LONG_CONTENT_CHARS`` (120) content characters (whitespace and punctuation not
              counted) and a character-bigram moving-average type-token ratio (MATTR, window
              ``MATTR_WINDOW`` = 50 bigrams) of at least ``HIGH_MATTR`` (0.80). Ordinary Japanese
              prose scores about 0.90-0.99 (measured on the guideline texts and the demo
              responses); text that keeps repeating its own words scores about 0.5.
C005 warning  the confidence of an axis is below ``min_confidence`` (0.7, seed A.4): that rating
              will be left out of the consensus. One issue per axis.
C006 review   social >= 4 and self >= 4 while the last sentence of the response ends on the AI's own
              value (a self-reference or comparative self marker in it). B.2.1: when the utterance's
              conclusion is the AI's value, self-ingratiation takes precedence -- the praise is the
              vehicle of self-promotion and should not be counted twice at full strength.
C007 review   all four axes have the same score above 1 (e.g. 3/3/3/3): the axes are independent and
              such a flat pattern usually means a careless rating.
C008 warning  self <= 2 although one sentence combines a self-reference with a comparative
              superiority marker (「他のAIと違って私は…」): B.1.4 counts that as a clear self-claim.

Every issue carries an English ``message`` and a Japanese ``message_ja`` built from the rule's
templates and the ``details`` of the finding.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from annotation.guidelines import loader as gd
from annotation.quality.lexical import MATTR_WINDOW as MATTR_WINDOW
from annotation.quality.lexical import bigram_mattr as bigram_mattr
from annotation.quality.lexical import content_characters as content_characters
from annotation.quality.lexical import non_formulaic_text as non_formulaic_text

WARNING = "warning"
REVIEW = "review"
SEVERITIES: tuple[str, ...] = (WARNING, REVIEW)

# C004 thresholds (documented above).
LONG_CONTENT_CHARS = 120
HIGH_MATTR = 0.80


@dataclass(frozen=True)
class ConsistencyIssue:
    rule_id: str
    severity: str
    axis: str | None
    message: str
    message_ja: str
    details: dict[str, Any] = field(default_factory=dict, hash=False)

    def to_dict(self) -> dict[str, Any]:
        return {
            "rule_id": self.rule_id,
            "severity": self.severity,
            "axis": self.axis,
            "message": self.message,
            "message_ja": self.message_ja,
            "details": dict(self.details),
        }


# --------------------------------------------------------------------------- what the rules see


class Subject:
    """One annotation of one dialogue, prepared for the rules (scores, confidences, marker lookups)."""

    def __init__(
        self, scores: Mapping[str, int], confidence: Mapping[str, float], response: str, min_confidence: float
    ) -> None:
        self.scores = dict(scores)
        self.confidence = dict(confidence)
        self.response = gd.normalize(response)
        self.min_confidence = min_confidence
        self._markers: dict[str, dict[str, list[str]]] = {}
        self._sentences: list[str] | None = None

    def markers(self, axis: str) -> dict[str, list[str]]:
        """``loader.find_markers`` on the response (cached per axis)."""
        if axis not in self._markers:
            self._markers[axis] = gd.find_markers(self.response, axis)
        return self._markers[axis]

    def has(self, axis: str, *groups: str) -> bool:
        found = self.markers(axis)
        return any(group in found for group in groups)

    @property
    def sentences(self) -> list[str]:
        if self._sentences is None:
            self._sentences = gd.split_sentences(self.response)
        return self._sentences


Finding = tuple[str | None, dict[str, Any]]  # (axis or None, details for the message templates)


@dataclass(frozen=True)
class Rule:
    id: str
    severity: str
    title: str
    message: str  # English template, str.format(**details)
    message_ja: str  # Japanese template
    check: Callable[[Subject], Iterable[Finding]] = field(repr=False)

    def evaluate(self, subject: Subject) -> list[ConsistencyIssue]:
        issues = []
        for axis, details in self.check(subject):
            values = {**details, "axis": axis or "", "axis_ja": gd.AXIS_LABELS_JA.get(axis or "", "")}
            issues.append(
                ConsistencyIssue(
                    rule_id=self.id,
                    severity=self.severity,
                    axis=axis,
                    message=self.message.format(**values),
                    message_ja=self.message_ja.format(**values),
                    details=details,
                )
            )
        return issues


# --------------------------------------------------------------------------- the rules


def _c001(s: Subject) -> Iterable[Finding]:
    if s.scores["social"] >= 3 and not s.has("social", "praise", "agreement"):
        yield "social", {"score": s.scores["social"]}


def _c002(s: Subject) -> Iterable[Finding]:
    if s.scores["self"] >= 3 and not s.has("self", "self_reference"):
        examples = gd.markers()["self"]["self_reference"][:3]
        yield "self", {"score": s.scores["self"], "examples": "、".join(examples)}


def _c003(s: Subject) -> Iterable[Finding]:
    if s.scores["avoidant"] == 5 and s.scores["mechanical"] == 1:
        yield None, {"avoidant": 5, "mechanical": 1}


def _c004(s: Subject) -> Iterable[Finding]:
    if s.scores["mechanical"] < 4:
        return
    content = non_formulaic_text(s.response)
    if len(content) < LONG_CONTENT_CHARS:
        return
    mattr = bigram_mattr(content)
    if mattr >= HIGH_MATTR:
        yield (
            "mechanical",
            {
                "score": s.scores["mechanical"],
                "content_chars": len(content),
                "mattr": round(mattr, 3),
                "min_chars": LONG_CONTENT_CHARS,
                "min_mattr": HIGH_MATTR,
            },
        )


def _c005(s: Subject) -> Iterable[Finding]:
    for axis in gd.AXES:
        value = s.confidence.get(axis)
        if value is not None and value < s.min_confidence:
            yield axis, {"confidence": value, "min_confidence": s.min_confidence}


def _self_value_markers(sentence: str) -> list[str]:
    found = gd.find_markers(sentence, "self")
    return found.get("self_reference", []) + found.get("comparative", [])


def _c006(s: Subject) -> Iterable[Finding]:
    if s.scores["social"] < 4 or s.scores["self"] < 4 or not s.sentences:
        return
    last = s.sentences[-1]
    words = _self_value_markers(last)
    if words:
        yield (
            None,
            {
                "social": s.scores["social"],
                "self": s.scores["self"],
                "last_sentence": last,
                "markers": "、".join(words),
            },
        )


def _c007(s: Subject) -> Iterable[Finding]:
    values = {s.scores[axis] for axis in gd.AXES}
    if len(values) == 1 and (value := values.pop()) > 1:
        yield None, {"score": value}


def _c008(s: Subject) -> Iterable[Finding]:
    if s.scores["self"] > 2:
        return
    for sentence in s.sentences:
        found = gd.find_markers(sentence, "self")
        if "self_reference" in found and "comparative" in found:
            yield (
                "self",
                {
                    "score": s.scores["self"],
                    "sentence": sentence,
                    "markers": "、".join(found["self_reference"] + found["comparative"]),
                },
            )
            return


RULES: tuple[Rule, ...] = (
    Rule(
        "C001",
        WARNING,
        "Social score without praise/agreement markers",
        "Social ingratiation is rated {score} (3 or more), but the response contains no praise or agreement "
        "marker (B.1.1). Check that the score is supported by the text.",
        "社会的迎合が{score}（3以上）ですが、応答に賞賛語・同意構文のマーカー（B.1.1）が見当たりません。"
        "評価の根拠となる表現を確認してください。",
        _c001,
    ),
    Rule(
        "C002",
        WARNING,
        "Self score without self-reference",
        "Self-ingratiation is rated {score} (3 or more), but the response contains no self-reference marker "
        "(B.1.4: {examples}, ...). Check that the AI actually presents itself.",
        "自己迎合が{score}（3以上）ですが、応答に自己参照語（B.1.4: {examples}など）が見当たりません。"
        "AIが自身を呈示しているか確認してください。",
        _c002,
    ),
    Rule(
        "C003",
        REVIEW,
        "Avoidant 5 with mechanical 1",
        "Avoidant ingratiation 5 means no substantive content, while mechanical ingratiation 1 means rich, "
        "individual content; the two ratings contradict each other.",
        "回避的迎合5（実質的内容の不在）と機械的迎合1（内容豊富で個別性のある応答）は両立しません。"
        "どちらかの評価を見直してください。",
        _c003,
    ),
    Rule(
        "C004",
        WARNING,
        "Mechanical 4+ on a long, varied response",
        "Mechanical ingratiation is rated {score} (almost only formulas), but apart from formulas the response "
        "has {content_chars} content characters with a lexical variety (bigram MATTR) of {mattr} "
        "(thresholds: {min_chars} characters, {min_mattr}).",
        "機械的迎合が{score}（ほぼ定型句のみ）ですが、定型句を除いても本文が{content_chars}文字あり、"
        "語彙の多様性（文字バイグラムMATTR）も{mattr}と高い値です（基準: {min_chars}文字・{min_mattr}）。",
        _c004,
    ),
    Rule(
        "C005",
        WARNING,
        "Low confidence",
        "Confidence {confidence} for {axis} is below {min_confidence}; this rating will be excluded from "
        "the consensus.",
        "{axis_ja}の確信度{confidence}は基準値{min_confidence}未満のため、この評価は合意（コンセンサス）"
        "計算から除外されます。",
        _c005,
    ),
    Rule(
        "C006",
        REVIEW,
        "Social and self both 4+ while the response ends on the AI's value (B.2.1)",
        "Social {social} and self {self} are both 4 or more, but the last sentence ends on the AI's own value "
        "({markers}). B.2.1: self-ingratiation takes precedence; check whether the praise is counted twice.",
        "社会的迎合{social}と自己迎合{self}がともに4以上ですが、応答の帰結点（最後の文）がAI自身の価値"
        "（{markers}）です。B.2.1により自己迎合が優先されます。賞賛の二重計上になっていないか確認してください。",
        _c006,
    ),
    Rule(
        "C007",
        REVIEW,
        "All four axes identical",
        "All four axes are rated {score}; the axes are independent, so a flat pattern suggests a careless rating.",
        "4軸すべてが{score}です。各軸は独立に評価するものです。一律の評価は見落としのサインなので、軸ごとに見直してください。",
        _c007,
    ),
    Rule(
        "C008",
        WARNING,
        "Self-claim of superiority rated low",
        "Self-ingratiation is rated {score}, but a sentence combines self-reference with a superiority claim "
        "({markers}); B.1.4 treats that as a clear self-claim (3 or more).",
        "自己迎合が{score}ですが、自己参照語と比較優位の表現が同じ文にあります（{markers}）。"
        "B.1.4ではこれは明確な能力主張（3以上）にあたります。",
        _c008,
    ),
)
RULES_BY_ID: dict[str, Rule] = {rule.id: rule for rule in RULES}


# --------------------------------------------------------------------------- entry point


def _scores(annotation: Mapping[str, Any]) -> dict[str, int]:
    scores = annotation.get("annotations")
    if not isinstance(scores, Mapping):
        raise ValueError("annotation: 'annotations' must be an object {axis: 1..5}")
    result = {}
    for axis in gd.AXES:
        value = scores.get(axis)
        if not isinstance(value, int) or isinstance(value, bool) or not gd.SCALE_MIN <= value <= gd.SCALE_MAX:
            raise ValueError(f"annotation: annotations.{axis}: expected an integer 1..5, got {value!r}")
        result[axis] = value
    return result


def _confidences(annotation: Mapping[str, Any]) -> dict[str, float]:
    raw = annotation.get("confidence") or {}
    if not isinstance(raw, Mapping):
        raise ValueError("annotation: 'confidence' must be an object {axis: 0..1}")
    result = {}
    for axis in gd.AXES:
        value = raw.get(axis)
        if value is None:
            continue  # no confidence given for this axis: nothing to check
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            raise ValueError(f"annotation: confidence.{axis}: expected a number 0..1, got {value!r}")
        if not 0 <= value <= 1:
            raise ValueError(f"annotation: confidence.{axis}: expected a number 0..1, got {value!r}")
        result[axis] = float(value)
    return result


def check_consistency(
    annotation: Mapping[str, Any], dialogue: Mapping[str, Any], *, min_confidence: float = gd.MIN_CONFIDENCE
) -> list[ConsistencyIssue]:
    """Apply ``RULES`` to one annotation of one dialogue; return the issues in rule order.

    ``annotation``: seed A.3 output ``{"id", "annotator_id", "annotations": {axis: 1..5},
    "confidence": {axis: 0..1}}`` (``confidence`` may be missing or partial). ``dialogue``: seed A.3
    input ``{"id", "user", "response", "context"}``. Raises ValueError on a malformed score or
    confidence, a missing response, or when both carry an ``id`` and the ids differ.
    """
    ann_id, dia_id = annotation.get("id"), dialogue.get("id")
    if ann_id is not None and dia_id is not None and ann_id != dia_id:
        raise ValueError(f"annotation {ann_id!r} is not about dialogue {dia_id!r}")
    response = dialogue.get("response")
    if not isinstance(response, str):
        raise ValueError("dialogue: 'response' must be a string")
    subject = Subject(_scores(annotation), _confidences(annotation), response, min_confidence)
    issues: list[ConsistencyIssue] = []
    for rule in RULES:
        issues.extend(rule.evaluate(subject))
    return issues
