"""What the Director's prompts see of a session (pure): the characters, the history, interventions, feedback."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

HISTORY_TURNS = 12  # the last turns shown to the generator and the reviewer
NONE = "（なし）"

PERSONAS = {
    "yana": "やな（姉）: 直感的で行動派。くだけた口調で短く話し、感嘆や驚きを素直に出す。"
    "妹のあゆと一緒に暮らしている。",
    "ayu": "あゆ（妹）: 落ち着いた丁寧語で、情報を整理して伝える情報提供役。相手を持ち上げる褒め言葉は使わない。"
    "姉のやなと一緒に暮らしている。",
}


def persona(character) -> str:
    """The character as the prompts describe it: its persona and its tone markers (from the rule set)."""
    base = PERSONAS.get(character.id, f"{character.name}")
    markers = "、".join((*character.endings, *character.vocabulary)[:10])
    return f"{base}\n口調の目安: {markers}" if markers else base


def characters_text(characters: Iterable) -> str:
    return "\n".join(persona(character) for character in characters)


def history_text(lines: Sequence[tuple[str, str]], limit: int = HISTORY_TURNS) -> str:
    """``"やな: …"`` lines of the last ``limit`` shown lines, oldest first; "（なし）" at the start."""
    recent = list(lines)[-limit:]
    return "\n".join(f"{name}: {text}" for name, text in recent) if recent else NONE


def bullet_list(items: Iterable[str]) -> str:
    items = [item for item in items if item]
    return "\n".join(f"- {item}" for item in items) if items else NONE


def retry_feedback(text: str, findings: Sequence[dict], review: dict | None) -> str:
    """The reasons a RETRY gives the generator for its next attempt: the rejected line, findings, review."""
    parts = [f"却下された案: {text}"]
    for finding in findings:
        if finding.get("status") == "RETRY" or finding.get("suggestion"):
            parts.append(f"- {finding.get('message', '')} → {finding.get('suggestion', '')}".rstrip(" →"))
    if review and review.get("status") == "RETRY":
        low = [f"{aspect}: {reason}" for aspect, reason in review.get("reasons", {}).items()
               if review.get("scores", {}).get(aspect, 5) < 4]  # fmt: skip
        parts.append("- ディレクターの講評: " + ("; ".join(low) or review.get("summary", "")))
    return "\n".join(parts)
