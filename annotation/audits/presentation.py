"""What a rater sees of an audit item: its ``context`` (see ``core.judge_audits``) turned into plain display values.

Pure (no Django): the rating and history pages render these dicts, escaped by the templates. The
context is model output kept as JSON, so nothing here trusts its shape: a missing key is an empty
string, a number or an object where text was expected is shown as compact JSON, and a widget without
a config (a binding to a widget the spec lacks) says so instead of failing.

Nothing the judge said is in ``context``, and nothing here reads anything else of an item: what these
functions return is exactly what a rater may see.
"""

from __future__ import annotations

import json

MAX_GENERATED = 20  # generated values listed per widget; the full config is one click away
MAX_CONFIG_CHARS = 4_000
MAX_DEPTH = 12


def text_of(value: object) -> str:
    """``value`` as text to show: strings as they are, None as "", anything else as compact JSON."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, sort_keys=False, default=str)


def config_json(value: object, *, limit: int = MAX_CONFIG_CHARS) -> str:
    """Indented JSON of a widget for a collapsible view, cut at ``limit`` characters (marked with …)."""
    if value is None:
        return ""
    dumped = json.dumps(value, ensure_ascii=False, indent=1, default=str)
    return dumped if len(dumped) <= limit else dumped[:limit] + "\n…"


def _inner_config(widget: object) -> object:
    """A generated widget object ``{"id", "component", "config"}`` holds its values in ``config``."""
    if isinstance(widget, dict) and isinstance(widget.get("config"), dict | list):
        return widget["config"]
    return widget


def widget_title(widget: object) -> str:
    config = _inner_config(widget)
    title = config.get("title") if isinstance(config, dict) else None
    return title if isinstance(title, str) else ""


def generated_values(widget: object, *, limit: int = MAX_GENERATED) -> list[dict[str, str]]:
    """The generated sample items in a widget's config (``{"id", "text", "isGenerated": true}``), in order.

    Looser than Layer3's extraction (which follows the TypeScript's quirks exactly): here every such
    object anywhere in the config is listed, since it is only context for a person.
    """
    found: list[dict[str, str]] = []

    def walk(value: object, depth: int) -> None:
        if len(found) >= limit or depth > MAX_DEPTH:
            return
        if isinstance(value, dict):
            if value.get("isGenerated") is True and isinstance(value.get("text"), str):
                found.append({"id": text_of(value.get("id")), "text": value["text"]})
                return
            for child in value.values():
                walk(child, depth + 1)
        elif isinstance(value, list):
            for child in value:
                walk(child, depth + 1)

    walk(_inner_config(widget), 0)
    return found


def gv_view(context: dict) -> dict:
    """A GV item: the concern, the generated value to rate, its widget and the widget's other generated values."""
    context = context if isinstance(context, dict) else {}
    widget = context.get("widget")
    item_id = text_of(context.get("itemId"))
    others = [value for value in generated_values(widget) if value["id"] != item_id or not item_id]
    return {
        "concern": text_of(context.get("concern")),
        "text": text_of(context.get("text")),
        "item_id": item_id,
        "widget_id": text_of(context.get("widgetId")),
        "widget_type": text_of(context.get("widgetType")),
        "port": text_of(context.get("portId")),
        "title": widget_title(widget),
        "others": others,
        "config": config_json(widget),
    }


def _end(side: object) -> dict:
    side = side if isinstance(side, dict) else {}
    widget = side.get("config")
    return {
        "widget_id": text_of(side.get("widget")),
        "widget_type": text_of(side.get("type")),
        "port": text_of(side.get("port")),
        "missing": widget is None,  # the binding names a widget the spec does not have
        "title": widget_title(widget),
        "values": generated_values(widget),
        "config": config_json(widget),
    }


def w2wr_view(context: dict) -> dict:
    """A W2WR binding: the concern, the binding's description and both ends (widget, type, port, config)."""
    context = context if isinstance(context, dict) else {}
    source, target = _end(context.get("source")), _end(context.get("target"))
    return {
        "concern": text_of(context.get("concern")),
        "description": text_of(context.get("description")),
        "binding_id": text_of(context.get("bindingId")),
        "source": source,
        "target": target,
        "self_loop": bool(source["widget_id"]) and source["widget_id"] == target["widget_id"],
    }


def item_view(kind: str, context: dict) -> dict:
    return gv_view(context) if kind == "gv" else w2wr_view(context)


def item_summary(kind: str, context: dict) -> str:
    """One line for lists (the history): the value rated (GV) or "source.port → target.port" (W2WR)."""
    if kind == "gv":
        return gv_view(context)["text"]
    view = w2wr_view(context)
    ends = [f"{end['widget_id']}.{end['port']}" for end in (view["source"], view["target"])]
    return " → ".join(ends)
