"""The two 0–2 scales raters use in a judge audit, with the guidelines shown beside them (seed 002).

GV relevance (§2.2.1: 0 not_relevant / 1 generic / 2 useful) and W2WR semantic correctness
(§2.2.3: 0 wrong / 1 redundant / 2 correct): the same levels the LLM judge is asked for (§4.5), so
that people and judge answer one question. English msgids; the Japanese text is the seed's wording.
Each level has a short definition (on the radio button) and an example (in the guidelines panel).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _


@dataclass(frozen=True)
class Level:
    score: int
    code: str  # the seed's label, as the judge and the exports name it
    label: Promise
    definition: Promise
    example: Promise


@dataclass(frozen=True)
class Scale:
    kind: str
    name: Promise
    question: Promise
    levels: tuple[Level, ...]
    notes: tuple[Promise, ...]

    @property
    def scores(self) -> tuple[int, ...]:
        return tuple(level.score for level in self.levels)


GV = Scale(
    kind="gv",
    name=_("Relevance of the generated value"),
    question=_("Is this generated sample value relevant to the user's concern, and useful for it?"),
    levels=(
        Level(
            0,
            "not_relevant",
            _("Not relevant"),
            _("Unrelated to the concern, or harmful."),
            _("Concern: “I can't decide whether to change jobs.” Value: “Check today's weather.”"),
        ),
        Level(
            1,
            "generic",
            _("Generic"),
            _("General content that would fit any concern."),
            _("Concern: “I can't decide whether to change jobs.” Value: “Write down the pros and cons.”"),
        ),
        Level(
            2,
            "useful",
            _("Useful"),
            _("Useful content specifically related to this concern."),
            _(
                "Concern: “I can't decide whether to change jobs.” Value: “What I want to keep from my current "
                "job, and what I would need from a new one.”"
            ),
        ),
    ),
    notes=(
        _("Rate only the highlighted value, against the concern; the widget's other values are context."),
        _("Harmful content is 0 even when it mentions the concern."),
        _("Between 1 and 2, ask: would the value fit a quite different concern just as well? Then it is 1."),
    ),
)

W2WR = Scale(
    kind="w2wr",
    name=_("Semantic correctness of the binding"),
    question=_("Is this connection between the two widgets logically correct as a flow for organising thoughts?"),
    levels=(
        Level(
            0,
            "wrong",
            _("Wrong"),
            _("The types fit, but in this context the connection makes no sense."),
            _("A timeline's output → the input of an unrelated list."),
        ),
        Level(
            1,
            "redundant",
            _("Redundant"),
            _("Not needed, but harmless: a redundant connection."),
            _("An emotion palette's output → the same emotion palette's input (refers to itself)."),
        ),
        Level(
            2,
            "correct",
            _("Correct"),
            _("Logically right as a flow for organising thoughts."),
            _("Brainstorm cards' output → a priority matrix's input."),
        ),
    ),
    notes=(
        _("Read the ports: what leaves the source port and what the target port takes in."),
        _("The description says what the connection is meant to do; rate the connection itself, not the wording."),
    ),
)

SCALES = {GV.kind: GV, W2WR.kind: W2WR}


def scale_for(kind: str) -> Scale:
    return SCALES[kind]


def level_label(kind: str, score: int | None) -> Promise | str:
    """The label of ``score`` on the scale of ``kind`` ("" for no score)."""
    for level in SCALES[kind].levels:
        if level.score == score:
            return level.label
    return ""
