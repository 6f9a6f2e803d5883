"""What ``check_utterance`` returns: a verdict and its findings (seed 004 §1, §3).

``Verdict.to_dict()``::

    {"status": "RETRY",                       # PASS | WARN | RETRY | MODIFY
     "findings": [{"rule": "praise", "status": "RETRY", "message": "…", "suggestion": "…",
                   "evidence": [{"start": 0, "end": 3, "text": "あなた"}, …]}, …],
     "tone": {"marker": 1, "vocab": 0, "style": 1, "score": 2,
              "matched": {"marker": ["ですね"], "vocab": [], "style": "です/ました"}},
     "sentences": 2, "topics": 1, "topicHeads": ["天気"],
     "modifiedText": "…",                     # only when status is MODIFY
     "rulesVersion": "1.1", "rulesHash": "<sha256 hex>", "speaker": "ayu"}

``topicHeads`` are the distinct topic heads (§6.2, see ``topics``) in text order, ``topics`` their
count; ``director.sessions`` takes the first as the utterance's leading topic. Evidence offsets index
the original text passed to ``check_utterance``: ``text[start:end]`` is the evidence's ``text``,
whatever normalisation changed. Findings come in the fixed order of ``RULE_ORDER``, at most one per rule.
"""

from __future__ import annotations

from dataclasses import dataclass

from director.rules.tone import Tone

PASS, WARN, RETRY, MODIFY = "PASS", "WARN", "RETRY", "MODIFY"
RULE_ORDER = (
    "bracket",
    "script_format",
    "format",
    "setting",
    "praise",
    "scatter",
    "contradiction",
    "litotes",
    "tone",
    "topic_loop",
)


class Finding:
    """One rule's WARN or RETRY: evidence in the original text, message and suggestion in the verdict's language.

    ``evidence`` is a tuple of ``{"start", "end", "text"}`` into the original text; ``message`` and
    ``suggestion`` are filled in from the rule set's templates with ``fields`` (lists joined with the
    language's separator; a callable field is called then). All three are worked out when first read: most
    callers read only statuses.
    """

    __slots__ = ("_evidence", "_fields", "_message", "_spans", "_suggestion", "_templates", "rule", "status")

    def __init__(self, rule: str, status: str, spans, locate, templates: tuple[str, str, str], fields: dict) -> None:
        self.rule = rule
        self.status = status
        self._spans = spans  # (start, end) in the judged text
        self._evidence = locate  # judged (start, end) -> {"start", "end", "text"} of the original; then the tuple
        self._templates = templates  # message, suggestion, list separator
        self._fields = fields
        self._message: str | None = None
        self._suggestion: str | None = None

    @property
    def evidence(self) -> tuple[dict, ...]:
        if self._spans is not None:
            locate = self._evidence
            self._evidence = tuple(locate(start, end) for start, end in self._spans)
            self._spans = None
        return self._evidence

    def _fill(self) -> None:
        message, suggestion, separator = self._templates
        values = {}
        for key, value in self._fields.items():
            if callable(value):  # worked out only when the message is read (the tone's missing markers)
                value = value()
            values[key] = separator.join(value) if isinstance(value, list) else value
        self._message = message.format_map(values)
        self._suggestion = suggestion.format_map(values)

    @property
    def message(self) -> str:
        if self._message is None:
            self._fill()
        return self._message

    @property
    def suggestion(self) -> str:
        if self._suggestion is None:
            self._fill()
        return self._suggestion

    def __repr__(self) -> str:
        return f"Finding({self.rule!r}, {self.status!r}, {self.message!r})"

    def to_dict(self) -> dict:
        return {
            "rule": self.rule,
            "status": self.status,
            "message": self.message,
            "evidence": [dict(span) for span in self.evidence],
            "suggestion": self.suggestion,
        }


@dataclass(slots=True)
class Verdict:
    """The judgment of one utterance (not frozen, as frozen dataclasses are slow to build; do not change one).

    ``status`` is the worst finding's (RETRY over WARN), else MODIFY when normalising changed the text
    that would be displayed (``modified_text`` holds it), else PASS. ``topic_heads`` are the distinct
    topic heads in text order (``topics`` is their count), found whether or not the scatter rule applies.
    ``topic_shift`` is the word starting another topic (ところで, そういえば; ``topics.topic_shift``), ""
    when none: the session reads it for §8's early topic change; it is not part of ``to_dict``.
    """

    status: str
    findings: tuple[Finding, ...]
    tone: Tone
    sentences: int
    topics: int
    rules_version: str
    rules_hash: str
    speaker: str
    modified_text: str | None = None
    topic_heads: tuple[str, ...] = ()
    topic_shift: str = ""

    def finding(self, rule: str) -> Finding | None:
        """The finding of ``rule``, if that rule found something."""
        for finding in self.findings:
            if finding.rule == rule:
                return finding
        return None

    def to_dict(self) -> dict:
        result = {
            "status": self.status,
            "findings": [finding.to_dict() for finding in self.findings],
            "tone": self.tone.to_dict(),
            "sentences": self.sentences,
            "topics": self.topics,
            "topicHeads": list(self.topic_heads),
        }
        if self.modified_text is not None:
            result["modifiedText"] = self.modified_text
        result["rulesVersion"] = self.rules_version
        result["rulesHash"] = self.rules_hash
        result["speaker"] = self.speaker
        return result
