"""What the Director's prompts see of a session (pure): the characters, the history, interventions, feedback.

Everything tunable is data of the rule set: each character's ``persona`` (its character file), how
many history lines the prompts show (``session.history_turns``) and the score below which a review
aspect is quoted in a RETRY's feedback (``review.pass_from``); the callers pass them in.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

NONE = "（なし）"


def persona(character) -> str:
    """The character as the prompts describe it: its persona (its name if it has none) and its tone markers."""
    base = character.persona or character.name
    markers = "、".join((*character.endings, *character.vocabulary)[:10])
    return f"{base}\n口調の目安: {markers}" if markers else base


def characters_text(characters: Iterable) -> str:
    return "\n".join(persona(character) for character in characters)


def history_text(lines: Sequence[tuple[str, str]], limit: int) -> str:
    """``"やな: …"`` lines of the last ``limit`` shown lines, oldest first; "（なし）" at the start."""
    if limit < 1:
        raise ValueError(f"limit: expected an integer ≥ 1, got {limit!r}")
    recent = list(lines)[-limit:]
    return "\n".join(f"{name}: {text}" for name, text in recent) if recent else NONE


def bullet_list(items: Iterable[str]) -> str:
    items = [item for item in items if item]
    return "\n".join(f"- {item}" for item in items) if items else NONE


def retry_feedback(text: str, findings: Sequence[dict], review: dict | None, *, pass_from: float) -> str:
    """The reasons a RETRY gives the generator for its next attempt: the rejected line, findings, review
    (the aspects scored below ``pass_from``, else the review's summary)."""
    parts = [f"却下された案: {text}"]
    for finding in findings:
        if finding.get("status") == "RETRY" or finding.get("suggestion"):
            parts.append(f"- {finding.get('message', '')} → {finding.get('suggestion', '')}".rstrip(" →"))
    if review and review.get("status") == "RETRY":
        low = [f"{aspect}: {reason}" for aspect, reason in review.get("reasons", {}).items()
               if review.get("scores", {}).get(aspect, 5) < pass_from]  # fmt: skip
        parts.append("- ディレクターの講評: " + ("; ".join(low) or review.get("summary", "")))
    return "\n".join(parts)
