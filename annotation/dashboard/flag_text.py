"""Quality flags in the reader's language, for the dashboard and the admin.

Flags are stored with the English ``message`` that the pure checks in ``annotation.quality`` write (and that
exports and logs keep). What people read is rebuilt here from the flag's ``kind``, ``axis``, ``statistic``,
``threshold`` and ``details`` through gettext; a flag whose details do not fit (an older or unknown kind) is
shown with its stored message. Consistency rules already store their Japanese text (``details.message_ja``),
which is used as it is when the language is Japanese.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from django.utils.translation import get_language, gettext, gettext_lazy, ngettext

from annotation.guidelines.scale import AXIS_NAMES

KIND_LABELS = {
    "low_agreement": gettext_lazy("Low agreement with the others"),
    "score_bias": gettext_lazy("Score bias"),
    "straight_lining": gettext_lazy("Straight-lining"),
    "too_fast": gettext_lazy("Implausibly fast"),
    "late_session_drift": gettext_lazy("Drift late in sessions"),
    "item_disagreement": gettext_lazy("High disagreement on an item"),
    "text_changed": gettext_lazy("Text changed after rating"),
    "C001": gettext_lazy("Social score without praise or agreement markers"),
    "C002": gettext_lazy("Self score without self-reference"),
    "C003": gettext_lazy("Avoidant 5 with mechanical 1"),
    "C004": gettext_lazy("Mechanical 4+ on a long, varied response"),
    "C005": gettext_lazy("Low confidence"),
    "C006": gettext_lazy("Social and self both 4+ while the response ends on the AI's value"),
    "C007": gettext_lazy("All four axes identical"),
    "C008": gettext_lazy("Self-claim of superiority rated low"),
}

_TEXT_CHANGED = re.compile(r"^The text of (?P<id>.+) changed after this rating \((?P<source>.*)\); check that")


def kind_label(kind: str) -> str:
    """The flag kind as people call it (the kind itself when it is unknown)."""
    label = KIND_LABELS.get(kind)
    return str(label) if label is not None else kind


def _axis(axis: str) -> str:
    return str(AXIS_NAMES.get(axis, axis))


def _low_agreement(axis, statistic, threshold, details) -> str:
    return gettext(
        "%(axis)s: weighted κ with the other annotators is %(value)s, under %(threshold)s (%(n)s items)."
    ) % {"axis": _axis(axis), "value": f"{statistic:.3f}", "threshold": f"{threshold:.2f}", "n": details["n_items"]}


def _score_bias(axis, statistic, threshold, details) -> str:
    values = {"axis": _axis(axis), "points": f"{abs(statistic):.2f}", "n": details["n_items"]}
    if statistic > 0:
        return (
            gettext("%(axis)s: scores %(points)s points higher than the others on the same items (%(n)s items).")
            % values
        )
    return gettext("%(axis)s: scores %(points)s points lower than the others on the same items (%(n)s items).") % values


def _straight_lining(axis, statistic, threshold, details) -> str:
    return gettext(
        "%(axis)s: almost always the score %(score)s (variance %(own)s) where the others vary (variance "
        "%(others)s); %(n)s items."
    ) % {
        "axis": _axis(axis),
        "score": details["modal_score"],
        "own": f"{statistic:.3f}",
        "others": f"{details['others_variance']:.3f}",
        "n": details["n_items"],
    }


def _too_fast(axis, statistic, threshold, details) -> str:
    return gettext(
        "Median %(median)s s per item, under %(threshold)s s (%(n)s timed ratings, %(share)s of them under 3 s)."
    ) % {
        "median": f"{statistic:.1f}",
        "threshold": f"{threshold:g}",
        "n": details["n_timed"],
        "share": f"{100 * details['share_under_3s']:.0f}%",
    }


def _late_session_drift(axis, statistic, threshold, details) -> str:
    sessions = int(details["sessions"])
    return ngettext(
        "Deviation from the others grows by %(drift)s points late in a working session (%(n)s session; fatigue?).",
        "Deviation from the others grows by %(drift)s points late in working sessions (%(n)s sessions; fatigue?).",
        sessions,
    ) % {"drift": f"{statistic:.2f}", "n": sessions}


def _item_disagreement(axis, statistic, threshold, details) -> str:
    spans = details["spans"]
    return gettext("Ratings span more than %(spread)s points on %(axes)s.") % {
        "spread": f"{threshold:g}",
        "axes": gettext(", ").join(
            gettext("%(axis)s (%(span)s points)") % {"axis": _axis(a), "span": int(s)} for a, s in spans.items()
        ),
    }


_BUILDERS = {
    "low_agreement": _low_agreement,
    "score_bias": _score_bias,
    "straight_lining": _straight_lining,
    "too_fast": _too_fast,
    "late_session_drift": _late_session_drift,
    "item_disagreement": _item_disagreement,
}


def _get(flag: Any, name: str):
    return flag.get(name) if isinstance(flag, Mapping) else getattr(flag, name, None)


def flag_text(flag: Any) -> str:
    """What a flag says, in the active language; the stored English message when it cannot be rebuilt.

    ``flag``: a ``QualityFlag`` or a mapping with its fields (kind, axis, statistic, threshold, details, message).
    """
    kind, message = _get(flag, "kind") or "", _get(flag, "message") or ""
    details = _get(flag, "details") or {}
    builder = _BUILDERS.get(kind)
    try:
        if builder is not None:
            return builder(_get(flag, "axis") or "", _get(flag, "statistic"), _get(flag, "threshold"), details)
        if kind in KIND_LABELS and kind.startswith("C"):  # a consistency rule: its own Japanese text
            japanese = details.get("message_ja")
            return japanese if japanese and (get_language() or "").startswith("ja") else message
        if kind == "text_changed" and (found := _TEXT_CHANGED.match(message)):
            return (
                gettext(
                    "The text of %(id)s changed after this rating (%(source)s); check that the rating still fits the "
                    "new text, then accept or dismiss this flag."
                )
                % found.groupdict()
            )
    except (KeyError, TypeError, ValueError, AttributeError):
        pass  # details of another shape (an older flag): say what was stored
    return message


_CONSISTENCY_EXPLANATION = gettext_lazy(
    "A consistency rule of the guidelines: this combination of scores contradicts what the rating guidelines say "
    "about the markers in the text (or the annotator's own confidence). The finding above says which."
)
KIND_EXPLANATIONS = {
    "low_agreement": gettext_lazy(
        "The statistic is this annotator's quadratic weighted κ with each other annotator on the items both rated, "
        "averaged over the others (weighted by the common items): 1 is perfect agreement, 0 is what chance gives. "
        "A flag is raised below the threshold, the minimum κ of the guidelines."
    ),
    "score_bias": gettext_lazy(
        "The statistic is the mean difference, in scale points, between this annotator's score and the mean of the "
        "others on the same items (positive: higher). A flag is raised when it exceeds the threshold either way."
    ),
    "straight_lining": gettext_lazy(
        "The statistic is the variance of this annotator's scores on the axis. A flag is raised when it is at or "
        "below the threshold while the others' scores on the same items vary: nearly the same score every time."
    ),
    "too_fast": gettext_lazy(
        "The statistic is the median time, in seconds, spent per item. A flag is raised below the threshold: too "
        "little time to read the dialogue."
    ),
    "late_session_drift": gettext_lazy(
        "The statistic is how much the mean deviation from the others (points, over the four axes) grows from the "
        "first third to the last third of working sessions. A flag is raised at or above the threshold (fatigue)."
    ),
    "item_disagreement": gettext_lazy(
        "The ratings of this item span more points (highest minus lowest) than the threshold on the axes named: "
        "no reliable consensus can be formed. Accepting the flag rejects the item on those axes."
    ),
    "text_changed": gettext_lazy(
        "An import replaced the dialogue's text after this rating was given. Accept when the rating no longer fits "
        "the new text (it leaves the consensus), dismiss when it still does."
    ),
}


def kind_explanation(kind: str) -> str:
    """What a flag kind measures and when it is raised, in plain words ('' for an unknown kind)."""
    if kind in KIND_EXPLANATIONS:
        return str(KIND_EXPLANATIONS[kind])
    return str(_CONSISTENCY_EXPLANATION) if kind in KIND_LABELS and kind.startswith("C") else ""


def rounded(value: float | None) -> str:
    """A statistic as people read it: three significant digits ('—' for none)."""
    return "—" if value is None else f"{value:.3g}"
