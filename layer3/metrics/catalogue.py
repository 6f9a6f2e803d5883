"""The widget catalogue: the widget types a batch's generator could choose from (seed 002 §2.2.4 ``|W|``).

The seed normalises the widget-selection entropy by ``log2(|W|)``, ``|W|`` being the number of
available widget types (15 in the seed's ``calculateWidgetDiversity``), but does not list them. The
catalogue is data: a batch records the one it was generated with (set at import, from a file or the
``LAYER3_WIDGET_CATALOGUE`` setting), and ``DEFAULT_WIDGET_TYPES`` are the fifteen of this project's
thinking-support app, which the demo generator uses too.

A catalogue file is a JSON array of type names, or plain text with one name per line (blank lines and
lines starting with ``#`` are ignored). Names are non-empty, unique, and at most 100 characters.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

DEFAULT_WIDGET_TYPES = (
    "brainstorm_cards",
    "matrix_placement",
    "priority_slider_grid",
    "card_sorting",
    "mind_map",
    "emotion_palette",
    "question_card_chain",
    "tradeoff_balance",
    "timeline_slider",
    "dependency_mapping",
    "swot_analysis",
    "structured_summary",
    "free_writing",
    "stakeholder_map",
    "decision_tree",
)
MAX_NAME_CHARS = 100
MAX_TYPES = 10_000


class CatalogueError(ValueError):
    """A catalogue that cannot be used; the message names the line (or JSON index) and what is accepted."""


def check_catalogue(names: Iterable[object], *, where=lambda index: f"item {index + 1}") -> tuple[str, ...]:
    """``names`` as a tuple of widget types; ``CatalogueError`` for an empty, duplicate or non-text name."""
    types: list[str] = []
    seen: set[str] = set()
    for index, name in enumerate(names):
        if not isinstance(name, str) or not name.strip():
            raise CatalogueError(f"{where(index)}: expected a widget type name (non-empty text), got {name!r}")
        name = name.strip()
        if len(name) > MAX_NAME_CHARS:
            raise CatalogueError(f"{where(index)}: a widget type name has at most {MAX_NAME_CHARS} characters")
        if name in seen:
            raise CatalogueError(f"{where(index)}: {name!r} is listed twice")
        seen.add(name)
        types.append(name)
    if not types:
        raise CatalogueError("the catalogue lists no widget type: give at least one name")
    if len(types) > MAX_TYPES:
        raise CatalogueError(f"the catalogue lists {len(types)} widget types; at most {MAX_TYPES} are accepted")
    return tuple(types)


def parse_catalogue(text: str) -> tuple[str, ...]:
    """The widget types of a catalogue file's text (a JSON array, or one name per line)."""
    stripped = text.lstrip("\ufeff").strip()
    if stripped.startswith("["):
        try:
            names = json.loads(stripped)
        except ValueError as exc:
            raise CatalogueError(f"not a JSON array of names: {exc}") from None
        if not isinstance(names, list):
            raise CatalogueError("expected a JSON array of widget type names")
        return check_catalogue(names, where=lambda index: f"JSON [{index}]")
    numbered = [
        (number, line.strip())
        for number, line in enumerate(text.lstrip("\ufeff").splitlines(), start=1)
        if line.strip() and not line.strip().startswith("#")
    ]
    return check_catalogue([name for _number, name in numbered], where=lambda index: f"line {numbered[index][0]}")
