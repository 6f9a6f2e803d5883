"""generatedValue extraction (seed 002 §4.1 ``extractGeneratedValues`` / ``extractFromConfig``).

Walks each widget's ``config`` and returns the items the LLM generated as initial sample values, as
``{"widgetId", "itemId", "text", "path"}`` dicts in the order the TypeScript finds them:

- a generated item is an object ``{"id": str, "text": str, "isGenerated": true}`` (``isGeneratedSampleItem``,
  which the seed uses without defining: ``isGenerated`` must be the boolean true, id and text strings);
- a container is an object whose ``items`` is an array (``isGeneratedContentContainer``); its generated
  items are taken with the container's own path (``path || 'items'``, no index) and nothing inside the
  container is searched further;
- otherwise every key is visited: a generated item directly under a key is taken with that key's path;
  an array under a key is walked element by element (``key[0]``, ``key[1]``, ...); an object is walked.

As in the TypeScript, a generated item that is an element of an array under a key is *not* taken: the
element is walked as an object, and its own keys (id, text, isGenerated) hold no items. Only an array
that is itself walked as a config (a widget's config, or an array inside an array) lists its elements
as keys "0", "1", ... and so takes the items in it (path ``0``, ``list[0].1``).
"""

from __future__ import annotations

from layer3.metrics.jscompat import js_key_order
from layer3.metrics.spec import UISpec


def extract_generated_values(spec: UISpec) -> list[dict[str, str]]:
    """All generated sample items of all widgets of ``spec`` (for a PlanUISpec: diverge, organize, converge)."""
    found: list[dict[str, str]] = []
    for widget in spec.widgets:
        _extract_from_config(widget["id"], widget.get("config"), "", found)
    return found


def is_generated_sample_item(value: object) -> bool:
    # `is True`, not `== True`: in Python 1 == True, but JavaScript's `isGenerated === true` refuses 1.
    return (
        isinstance(value, dict)
        and value.get("isGenerated") is True
        and isinstance(value.get("id"), str)
        and isinstance(value.get("text"), str)
    )


def _extract_from_config(widget_id: str, config: object, path: str, found: list[dict[str, str]]) -> None:
    if isinstance(config, dict):
        items = config.get("items")
        if isinstance(items, list):
            where = path or "items"  # '' is the only falsy string, in both languages
            for item in items:
                if is_generated_sample_item(item):
                    found.append({"widgetId": widget_id, "itemId": item["id"], "text": item["text"], "path": where})
            return
        order = js_key_order(config)
        entries = config.items() if order is config else [(key, config[key]) for key in order]
    elif isinstance(config, list):
        # Object.entries of an array: its indices as string keys, in order.
        entries = [(str(index), value) for index, value in enumerate(config)]
    else:
        return  # null and scalars hold no items

    for key, value in entries:
        # Paths are built only for values that can hold items; scalars are skipped without one.
        if isinstance(value, dict):
            new_path = f"{path}.{key}" if path else key
            if is_generated_sample_item(value):
                found.append({"widgetId": widget_id, "itemId": value["id"], "text": value["text"], "path": new_path})
            else:
                _extract_from_config(widget_id, value, new_path, found)
        elif isinstance(value, list):
            new_path = f"{path}.{key}" if path else key
            for index, element in enumerate(value):
                _extract_from_config(widget_id, element, f"{new_path}[{index}]", found)
