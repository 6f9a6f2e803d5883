"""What differs between the settings of two rule sets (pure): a deep diff of their canonical documents.

``settings_diff(old, new)`` takes two loaded rule sets (or their ``canonical`` documents, see
``ruleset``) and lists every key path whose value differs, in sorted order, as a ``SettingChange``
of one kind:

- ``value``: a number, a flag or a short one-line text changed (``session.max_interventions``:
  ``before`` "5", ``after`` "3");
- ``text``: a longer or multi-line text changed (``characters.ayu.persona``, a message): no values,
  they would not fit on a line;
- ``items``: a list whose items changed: the items ``added`` and ``removed`` (a word list);
  ``order``: the same items in another order;
- ``added`` / ``removed``: a key only the new / the old side has (a section, a character); its value
  is shown when it is a number, a flag or a short text.

Every setting counts, whatever it is: thresholds, word lists, messages, the review and session
limits, the characters (``characters.<id>.<key>``, e.g. ``characters.ayu.persona``) and ``version``.
Rule-set keys are spelt as in the YAML file (``review.pass_from``). The values are rendered as text
(``"やな"`` quoted, numbers as Python writes them, ``true``/``false``) but not escaped: the Markdown
report and the pages escape them.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass

SHORT_TEXT = 40  # characters of a text shown as a value; a longer one is only said to have changed


@dataclass(frozen=True, slots=True)
class SettingChange:
    path: str
    kind: str  # value | text | items | order | added | removed
    before: str = ""
    after: str = ""
    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()


def settings_diff(old, new) -> list[SettingChange]:
    """The changed settings from ``old`` to ``new`` (rule sets or canonical documents), sorted by path."""
    changes: list[SettingChange] = []
    _walk("", _settings(old), _settings(new), changes)
    return changes


def _settings(source) -> dict:
    document = getattr(source, "canonical", source)
    if not isinstance(document, dict) or set(document) != {"ruleset", "characters"}:
        raise TypeError("settings_diff: expected a RuleSet or its canonical document {ruleset, characters}")
    return {**document["ruleset"], "characters": document["characters"]}


def _walk(path: str, old: object, new: object, changes: list[SettingChange]) -> None:
    if type(old) is type(new) and old == new:
        return
    if isinstance(old, dict) and isinstance(new, dict):
        for key in sorted(set(old) | set(new), key=str):
            where = f"{path}.{key}" if path else str(key)
            if key not in new:
                changes.append(SettingChange(where, "removed", before=_shown(old[key])))
            elif key not in old:
                changes.append(SettingChange(where, "added", after=_shown(new[key])))
            else:
                _walk(where, old[key], new[key], changes)
        return
    if isinstance(old, list) and isinstance(new, list):
        before, after = Counter(map(_item, old)), Counter(map(_item, new))
        added, removed = tuple((after - before).elements()), tuple((before - after).elements())
        changes.append(SettingChange(path, "items" if added or removed else "order", added=added, removed=removed))
        return
    before, after = _shown(old), _shown(new)
    if before and after:
        changes.append(SettingChange(path, "value", before=before, after=after))
    else:
        changes.append(SettingChange(path, "text"))


def _shown(value: object) -> str:
    """A scalar as text; "" for a long or multi-line text, a list or a mapping (not shown as a value)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str) and len(value) <= SHORT_TEXT and "\n" not in value:
        return json.dumps(value, ensure_ascii=False)
    return ""


def _item(value: object) -> str:
    """A list item as text, whatever its length (a word of a word list)."""
    if isinstance(value, str):
        return value
    return _shown(value) or json.dumps(value, ensure_ascii=False, sort_keys=True)
