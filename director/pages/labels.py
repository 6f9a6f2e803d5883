"""Translated labels of the Director's pages: the LLM review's aspects and where an intervention came from."""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

ASPECT_LABELS = {"frame": gettext_lazy("Frame consistency"), "roleplay": gettext_lazy("Role-play"),
                 "connection": gettext_lazy("Connection"), "density": gettext_lazy("Information density"),
                 "naturalness": gettext_lazy("Naturalness")}  # fmt: skip
HISTORY_LABELS = {"topic_loop_turns": gettext_lazy("topic loop"),
                  "early_topic_change": gettext_lazy("early topic change")}  # fmt: skip


def origin_label(source: str) -> str:
    """``rule:praise`` → "hard rule praise", ``history:…`` → "dialogue history: …", ``review:density`` →
    "LLM review: Information density", in the active language; "origin unknown" for anything else
    (interventions stored before their sources were)."""
    kind, _sep, name = (source or "").partition(":")
    if kind == "rule" and name:
        return _("hard rule %(rule)s") % {"rule": name}
    if kind == "history" and name:
        return _("dialogue history: %(rule)s") % {"rule": HISTORY_LABELS.get(name, name)}
    if kind == "review" and name:
        return _("LLM review: %(aspect)s") % {"aspect": ASPECT_LABELS.get(name, name)}
    return _("origin unknown")


def intervention_rows(entries) -> list[dict]:
    """``{"text", "source", "origin"}`` of each intervention (``Intervention`` objects), in order."""
    return [{"text": entry.text, "source": entry.source, "origin": origin_label(entry.source)} for entry in entries]
