"""The session state across turns (seed 004 §8, §9): current topic, hook depth, loop counter, interventions.

One ``SessionState`` per dialogue, advanced once per judged turn::

    topic = leading_topic(verdict)                      # the hard rules' verdict of the utterance
    history = history_findings(state, topic, rules.session, language="ja")
    status = ...                                        # the worst of hard rules, review, WARN if history
    state = advance(state, status=status, speaker=verdict.speaker, topic=topic,
                    warn_findings=[*hard_rule_warns, *history], interventions=review_notes,
                    next_speaker="ayu", thresholds=rules.session)

The fields (all 0 or empty at the start):

- ``topic``: the current topic, the leading topic of the last accepted turn that had one ("" until then).
- ``hook_depth``: accepted turns since the current topic started leading, that turn included. A turn
  without a leading topic counts: it carries on the current one (a pronoun, それは…, is never a topic
  head, see ``director.rules.topics``, but points at the topic already named).
- ``loop_counter``: accepted turns in a row whose leading topic was the current topic. A turn without a
  leading topic neither extends nor breaks the run. So ``loop_counter ≤ hook_depth``.
- ``turn``: accepted turns so far.
- ``interventions``: the pending 次回指示 per speaker id (use canonical ids, ``Verdict.speaker``), oldest
  first, at most ``thresholds.max_interventions`` each (the rule set's ``session:``), to be put in that
  speaker's next prompt (``texts(speaker)``). No empty entries. Each is an ``Intervention``, its
  ``text`` and its ``source``: ``rule:<rule>`` (a hard rule's WARN, e.g. ``rule:praise``),
  ``history:<rule>`` (``history:topic_loop_turns``, ``history:early_topic_change``), ``review:<aspect>``
  (an aspect of the LLM review scored below ``review.pass_from`` when the review said WARN, e.g.
  ``review:density``; ``director.sessions.services`` makes those), or ``""``: unknown.
  ``to_dict`` writes each as ``{"text", "source"}``; ``from_dict`` also reads the plain strings of states
  stored before sources were recorded (source unknown). The constructor takes an ``Intervention`` or a
  plain string (source unknown) for each.

``leading_topic``: the first topic head of the utterance in text order (``Verdict.topic_heads``, §6.2),
the topic it opens with; "" when it names none. An utterance with several topics is the scatter rule's.

``history_findings`` (§8), WARN only, never RETRY; the utterance's turn counts as accepted here:

- ``topic_loop_turns``: the topic leads, and the run it would make (``loop_counter + 1`` when it is the
  current topic, else 1) reaches ``thresholds.topic_loop_turns``; it fires again on every further turn.
- ``early_topic_change``: a non-empty topic other than a non-empty current topic, while the current
  topic has led fewer than ``thresholds.hook_depth`` turns. The suggestion, for the next speaker, is to
  stay with the new topic: going back would be another early change. Also a turn opening with a word
  that starts another topic (``shift``: ところで, そういえば, the rule set's ``topics.shift_words``; §8
  別の話を始めた), after at least one turn, while the current topic, named or not (the dialogue's
  first turn opens one), has led fewer than ``thresholds.hook_depth`` turns, unless the turn leads with
  the current topic itself. It does not move the state otherwise (``advance`` takes no shift).

``advance`` (§9): a RETRY changes nothing and returns ``state`` itself (a retried utterance must not
move the hook depth or the loop counter). Any other status (PASS, WARN, MODIFY) counts the turn: the
topic, hook depth and loop counter move as above (new topic: depth 1, run 1; same: both + 1; none:
depth + 1, run kept); ``speaker``'s pending interventions are consumed, having been in the prompt of
the utterance just accepted; and the interventions of the turn are added to ``next_speaker``'s, after
those already pending, without duplicate texts, the first ``max_interventions`` kept: first each WARN
finding's suggestion (``finding_interventions``), then ``interventions`` as given. A finding is a dict
with ``rule``, ``status`` and ``suggestion`` (as ``history_findings`` and ``Finding.to_dict()`` give) or
an object with those attributes (``director.rules.Finding``); other statuses and empty suggestions are
skipped. Its source is ``history:<rule>`` for the two rules above, else ``rule:<rule>``. ``thresholds``
(the rule set's ``session``) default to ``SessionThresholds()``, the shipped values.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from director.rules.prepared import LANGUAGES
from director.rules.thresholds import SessionThresholds
from director.rules.verdict import MODIFY, PASS, RETRY, WARN, Verdict

_FIELDS = ("topic", "hookDepth", "loopCounter", "turn", "interventions")
_MESSAGES = {
    "topic_loop_turns": {
        "ja": ("「{topic}」の話題が{turns}ターン続いています。", "「{topic}」から離れて、新しい話題に進んでください。"),
        "en": ("The topic “{topic}” has led {turns} turns in a row.", "Move on from “{topic}” to a new topic."),
    },
    "early_topic_change": {
        "ja": (
            "「{current}」を{depth}ターンしか話さないうちに「{topic}」へ話題を変えています。",
            "すぐに話題を変えず、「{topic}」を掘り下げてください。",
        ),
        "en": (
            "The topic changed to “{topic}” after only {depth} turn(s) on “{current}”.",
            "Stay with “{topic}” and go deeper before changing the topic.",
        ),
    },
}
# The early topic change announced by a word starting another topic (Verdict.topic_shift), whether or
# not either topic has a head: the current topic is what the dialogue was on, named or not.
_SHIFT_MESSAGES = {
    "ja": (
        "今の話題を{depth}ターンしか話さないうちに、「{shift}」で別の話を始めています。",
        "すぐに話題を変えず、今の話題を掘り下げてください。",
    ),
    "en": (
        "“{shift}” starts another topic after only {depth} turn(s) on the current one.",
        "Do not change the topic at once; go deeper into the current one.",
    ),
}


_SOURCE = re.compile(r"(rule|history|review):[a-z][a-z0-9_]*\Z")


@dataclass(frozen=True, slots=True)
class Intervention:
    """A pending 次回指示: the ``text`` put in the prompt and its ``source`` (module docstring; "" unknown)."""

    text: str
    source: str = ""

    def to_dict(self) -> dict:
        return {"text": self.text, "source": self.source}


def _entry(item: Intervention | str) -> Intervention:
    if isinstance(item, Intervention):
        return item
    if isinstance(item, str):
        return Intervention(item)
    raise TypeError(f"interventions: expected an Intervention or a string, got {item!r}")


def _stored_interventions(stored: object) -> dict[str, list[Intervention]]:
    """``{speaker: [entry, ...]}`` of a stored state; ``ValueError`` for anything else."""
    problem = ValueError(
        'session state: interventions: expected {speaker: [{"text": "…", "source": "rule:…" | "history:…" | '
        f'"review:…" | ""}}, ...]}} (or plain texts), got {stored!r}'
    )
    if not isinstance(stored, dict):
        raise problem
    interventions = {}
    for speaker, items in stored.items():
        if not isinstance(speaker, str) or not isinstance(items, list):
            raise problem
        entries = [_stored_entry(item) for item in items]
        if any(entry is None for entry in entries):
            raise problem
        interventions[speaker] = entries
    return interventions


def _stored_entry(item: object) -> Intervention | None:
    """An entry of a stored state: ``{"text", "source"}``, or a plain string (stored before sources)."""
    if isinstance(item, str):
        return Intervention(item)
    if (
        isinstance(item, dict)
        and set(item) == {"text", "source"}
        and isinstance(item["text"], str)
        and item["text"]
        and isinstance(item["source"], str)
        and (item["source"] == "" or _SOURCE.match(item["source"]))
    ):
        return Intervention(item["text"], item["source"])
    return None


@dataclass(frozen=True)
class SessionState:
    """See the module docstring; do not change ``interventions`` in place (it is copied when built)."""

    topic: str = ""
    hook_depth: int = 0
    loop_counter: int = 0
    turn: int = 0
    interventions: dict[str, tuple[Intervention, ...]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        copied = {}
        for speaker, items in self.interventions.items():
            entries = tuple(entry for entry in map(_entry, items) if entry.text)
            if entries:
                copied[speaker] = entries
        object.__setattr__(self, "interventions", copied)

    def texts(self, speaker: str) -> tuple[str, ...]:
        """The texts of ``speaker``'s pending interventions, oldest first (what the prompt lists)."""
        return tuple(entry.text for entry in self.interventions.get(speaker, ()))

    def to_dict(self) -> dict:
        """JSON-safe: ``{"topic", "hookDepth", "loopCounter", "turn", "interventions": {id: [{text, source}]}}``."""
        return {
            "topic": self.topic,
            "hookDepth": self.hook_depth,
            "loopCounter": self.loop_counter,
            "turn": self.turn,
            "interventions": {
                speaker: [entry.to_dict() for entry in items] for speaker, items in self.interventions.items()
            },
        }

    @classmethod
    def from_dict(cls, data: dict) -> SessionState:
        """The state ``to_dict`` gave; missing keys take their start values (``{}`` is the start state)."""
        if not isinstance(data, dict):
            raise ValueError(f"session state: expected an object, got {type(data).__name__}")
        for key in data:
            if key not in _FIELDS:
                raise ValueError(f"session state: unknown key {key!r}; accepted: {', '.join(_FIELDS)}")
        topic = data.get("topic", "")
        if not isinstance(topic, str):
            raise ValueError(f"session state: topic: expected a string, got {topic!r}")
        counts = {}
        for key in ("hookDepth", "loopCounter", "turn"):
            value = data.get(key, 0)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"session state: {key}: expected an integer ≥ 0, got {value!r}")
            counts[key] = value
        interventions = _stored_interventions(data.get("interventions", {}))
        return cls(topic, counts["hookDepth"], counts["loopCounter"], counts["turn"], interventions)


def leading_topic(source: Verdict | dict | Iterable[str]) -> str:
    """The leading topic of a ``Verdict``, a verdict dict (its ``topicHeads``) or topic heads in text order."""
    if isinstance(source, Verdict):
        heads = source.topic_heads
    elif isinstance(source, dict):
        if "topicHeads" not in source:
            raise ValueError("verdict: no topicHeads (written before they were recorded); check it again")
        heads = source["topicHeads"]
    elif isinstance(source, str):
        raise TypeError("leading_topic: expected a verdict or a sequence of topic heads, got a string")
    else:
        heads = tuple(source)
    if not all(isinstance(head, str) for head in heads):
        raise TypeError(f"leading_topic: topic heads must be strings, got {heads!r}")
    return heads[0] if heads else ""


def _moved(state: SessionState, topic: str) -> tuple[str, int, int]:
    """``(topic, hook_depth, loop_counter)`` after an accepted turn led by ``topic``."""
    if not topic:
        return state.topic, state.hook_depth + 1, state.loop_counter
    if topic == state.topic:
        return topic, state.hook_depth + 1, state.loop_counter + 1
    return topic, 1, 1


def history_findings(
    state: SessionState,
    topic: str,
    thresholds: SessionThresholds | None = None,
    language: str = "ja",
    shift: str = "",
) -> list[dict]:
    """The WARN findings of the turn led by ``topic``, opening with the topic-shift word ``shift`` (""
    none: ``Verdict.topic_shift``), given the history in ``state`` (module docstring)."""
    if language not in LANGUAGES:
        raise ValueError(f"language: expected one of {', '.join(LANGUAGES)}, got {language!r}")
    thresholds = thresholds or SessionThresholds()
    found = []
    if topic and state.topic and topic != state.topic and state.hook_depth < thresholds.hook_depth:
        found.append(_finding("early_topic_change", language, topic=topic, current=state.topic, depth=state.hook_depth))
    elif shift and state.turn and state.hook_depth < thresholds.hook_depth and not (topic and topic == state.topic):
        message, suggestion = _SHIFT_MESSAGES[language]
        found.append(
            {
                "rule": "early_topic_change",
                "status": WARN,
                "message": message.format(shift=shift, depth=state.hook_depth),
                "suggestion": suggestion,
            }
        )
    run = _moved(state, topic)[2]
    if topic and run >= thresholds.topic_loop_turns:
        found.append(_finding("topic_loop_turns", language, topic=topic, turns=run))
    return found


def _finding(rule: str, language: str, **fields) -> dict:
    message, suggestion = _MESSAGES[rule][language]
    return {
        "rule": rule,
        "status": WARN,
        "message": message.format(**fields),
        "suggestion": suggestion.format(**fields),
    }


def finding_interventions(findings: Iterable) -> list[Intervention]:
    """The interventions of WARN findings with a suggestion, in order, with their sources (module docstring)."""
    found = []
    for finding in findings:
        rule, status, suggestion = _read(finding)
        if status == WARN and isinstance(suggestion, str) and suggestion:
            kind = "history" if rule in _MESSAGES else "rule"
            found.append(Intervention(suggestion, f"{kind}:{rule}" if isinstance(rule, str) and rule else ""))
    return found


def advance(
    state: SessionState,
    *,
    status: str,
    speaker: str,
    topic: str,
    warn_findings: Iterable = (),
    interventions: Iterable[Intervention | str] = (),
    next_speaker: str,
    thresholds: SessionThresholds | None = None,
) -> SessionState:
    """The state after a turn of ``speaker`` judged ``status``, led by ``topic`` (module docstring)."""
    if status not in (PASS, WARN, RETRY, MODIFY):
        raise ValueError(f"status: expected one of PASS, WARN, RETRY, MODIFY, got {status!r}")
    if status == RETRY:
        return state
    thresholds = thresholds or SessionThresholds()
    new_topic, hook_depth, loop_counter = _moved(state, topic)
    pending_by_speaker = {key: items for key, items in state.interventions.items() if key != speaker}
    pending = list(pending_by_speaker.get(next_speaker, ()))
    seen = {entry.text for entry in pending}
    for entry in [*finding_interventions(warn_findings), *map(_entry, interventions)]:
        if entry.text and entry.text not in seen:
            pending.append(entry)
            seen.add(entry.text)
    pending_by_speaker[next_speaker] = tuple(pending[: thresholds.max_interventions])
    return SessionState(new_topic, hook_depth, loop_counter, state.turn + 1, pending_by_speaker)


def _read(finding) -> tuple[object, object, object]:
    if isinstance(finding, dict):
        return finding.get("rule"), finding.get("status"), finding.get("suggestion")
    return getattr(finding, "rule", None), getattr(finding, "status", None), getattr(finding, "suggestion", None)
