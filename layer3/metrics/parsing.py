"""Parsing a trial's ``generatedData`` into a ``UISpec`` (seed 002 §6.1 ``parseUISpec``, types of §4).

Accepted, as the seed's TypeScript reads it:

- a UISpec ``{"widgets": [...], "reactiveBindings": {"bindings": [...]}}``, or
- a PlanUISpec ``{"sections": {"diverge": {"widgets": [...]}, "organize": {...}, "converge": {...}},
  "reactiveBindings": {...}}``; an object with "sections" is a PlanUISpec (``isPlanUISpec``), its
  widgets are diverge, organize, converge in that order (``getAllWidgetsFromUISpec``);
- a widget ``{"id": "w1", "component": "brainstorm_cards", "config": ...}``: id and component non-empty
  strings, config any JSON value or absent (§4.1 defines what happens to non-objects);
- a binding ``{"id": "b1", "source": "w1.output", "target": "w2.input", "mechanism": "update",
  "complexityCheck": true}``: source and target "widgetId.port" with both parts non-empty (the first
  dot separates them, as ``split('.')[0]`` does); mechanism a string or absent/null, complexityCheck
  true/false or absent/null.

``reactiveBindings`` is required, as the TypeScript reads ``uiSpec.reactiveBindings.bindings`` without a
guard; a spec without bindings says ``{"bindings": []}``. Anything else raises ``UISpecError`` naming the
JSON path and what is accepted. Other keys are ignored. Nothing is copied: the ``UISpec`` holds the
decoded widget and binding objects themselves.

Speed matters here (a batch parses tens of thousands of trials), so the loops check each item with one
combined test, and only when that fails does ``_first_error`` go through the list again with the full
check (``_widget_error``, ``_binding_error``) to name the item and the field.
"""

from __future__ import annotations

import json

from layer3.metrics.spec import SECTION_NAMES, UISpec, UISpecError

ROOT = "generatedData"
_MISSING = object()

# JSON paths spelled out once, so that parsing a valid spec formats none.
_WIDGETS_PATH = f"{ROOT}.widgets"
_SECTIONS_PATH = f"{ROOT}.sections"
_SECTION_WIDGETS_PATHS = {name: f"{_SECTIONS_PATH}.{name}.widgets" for name in SECTION_NAMES}
_REACTIVE_BINDINGS_PATH = f"{ROOT}.reactiveBindings"
_BINDINGS_PATH = f"{_REACTIVE_BINDINGS_PATH}.bindings"

# What each error says is accepted.
_SPEC = (
    'a UISpec {"widgets": [...], "reactiveBindings": {"bindings": [...]}} or a PlanUISpec '
    '{"sections": {"diverge": {"widgets": [...]}, "organize": {...}, "converge": {...}}, "reactiveBindings": {...}}'
)
_WIDGETS = 'an array of widgets {"id": "w1", "component": "...", "config": {...}}'
_WIDGET = 'a widget object {"id": "w1", "component": "...", "config": {...}}'
_SECTIONS = 'an object {"diverge": {...}, "organize": {...}, "converge": {...}}'
_SECTION = 'an object {"widgets": [...]}'
_REACTIVE_BINDINGS = 'an object {"bindings": [...]} (write {"bindings": []} for a spec without bindings)'
_BINDINGS = 'an array of bindings {"id": "b1", "source": "w1.port", "target": "w2.port", "mechanism": "update"}'
_BINDING = 'a binding object {"id": "b1", "source": "w1.port", "target": "w2.port", "mechanism": "update"}'
_ENDPOINT = 'a string "widgetId.port" with a non-empty widget id before the first dot and a non-empty port after it'
_MECHANISM = 'a string ("update", "validate", ...) or null'


def parse_ui_spec(generated_data: object) -> UISpec:
    """The UISpec or PlanUISpec in ``generated_data`` (decoded JSON); raises ``UISpecError``."""
    if not isinstance(generated_data, dict):
        raise UISpecError(ROOT, f"found {describe(generated_data)}", _SPEC)
    sections = None
    if "sections" in generated_data:
        sections = _check_sections(generated_data["sections"])
        widgets = [*sections["diverge"], *sections["organize"], *sections["converge"]]
    elif "widgets" in generated_data:
        widgets = _check_widgets(generated_data["widgets"], _WIDGETS_PATH)
    else:
        keys = ", ".join(json.dumps(key, ensure_ascii=False) for key in list(generated_data)[:10]) or "none"
        raise UISpecError(ROOT, f'an object with neither "widgets" nor "sections" (keys: {keys})', _SPEC)
    try:
        bindings = generated_data["reactiveBindings"]["bindings"]
    except (KeyError, TypeError):  # no reactiveBindings, not an object, or no bindings in it
        raise _reactive_bindings_error(generated_data.get("reactiveBindings", _MISSING)) from None
    source_widgets, target_widgets = _split_bindings(bindings)
    return UISpec(widgets, bindings, source_widgets, target_widgets, sections)


def _check_sections(raw: object) -> dict[str, list[dict]]:
    try:
        sections = {
            "diverge": raw["diverge"]["widgets"],
            "organize": raw["organize"]["widgets"],
            "converge": raw["converge"]["widgets"],
        }
    except (KeyError, TypeError):  # a section or its widgets are missing, or something is no object
        raise _sections_error(raw) from None
    for name, widgets in sections.items():
        _check_widgets(widgets, _SECTION_WIDGETS_PATHS[name])
    return sections


def _sections_error(raw: object) -> UISpecError:
    if not isinstance(raw, dict):
        return UISpecError(_SECTIONS_PATH, f"found {describe(raw)}", _SECTIONS)
    for name in SECTION_NAMES:
        section = raw.get(name, _MISSING)
        if section is _MISSING:
            return UISpecError(f"{_SECTIONS_PATH}.{name}", "missing", _SECTION)
        if not isinstance(section, dict):
            return UISpecError(f"{_SECTIONS_PATH}.{name}", f"found {describe(section)}", _SECTION)
        if "widgets" not in section:
            return UISpecError(_SECTION_WIDGETS_PATHS[name], "missing", _WIDGETS)
    raise AssertionError(f"{_SECTIONS_PATH}: the fast check refused sections the full check accepts")


def _check_widgets(raw: object, path: str) -> list[dict]:
    if not isinstance(raw, list):
        raise UISpecError(path, f"found {describe(raw)}", _WIDGETS)
    for item in raw:
        try:
            widget_id = item["id"]
            component = item["component"]
        except (KeyError, TypeError):  # a key is missing, or the item is no object
            raise _first_error(raw, path, _widget_error) from None
        if not (isinstance(widget_id, str) and widget_id and isinstance(component, str) and component):
            raise _first_error(raw, path, _widget_error)
    return raw


def _widget_error(item: object, where: str) -> UISpecError | None:
    if not isinstance(item, dict):
        return UISpecError(where, f"found {describe(item)}", _WIDGET)
    for key in ("id", "component"):
        value = item.get(key)
        if not isinstance(value, str) or not value:
            return UISpecError(f"{where}.{key}", _found(item, key), "a non-empty string")
    return None


def _reactive_bindings_error(raw: object) -> UISpecError:
    if not isinstance(raw, dict):
        found = "missing" if raw is _MISSING else f"found {describe(raw)}"
        return UISpecError(_REACTIVE_BINDINGS_PATH, found, _REACTIVE_BINDINGS)
    return UISpecError(_BINDINGS_PATH, "missing", _BINDINGS)


def _split_bindings(bindings: object) -> tuple[list[str], list[str]]:
    """The source and target widget ids of each binding, checking each binding on the way."""
    if not isinstance(bindings, list):
        raise UISpecError(_BINDINGS_PATH, f"found {describe(bindings)}", _BINDINGS)
    source_widgets: list[str] = []
    target_widgets: list[str] = []
    add_source = source_widgets.append
    add_target = target_widgets.append
    for item in bindings:
        try:
            binding_id = item["id"]
            # The widget id ends at the first dot, as JavaScript's source.split('.')[0] does; without a
            # dot the port is empty. Only a str partitions at a str, so this also checks the type.
            source_widget, _, source_port = item["source"].partition(".")
            target_widget, _, target_port = item["target"].partition(".")
        except (KeyError, TypeError, AttributeError):  # a key is missing, no object, or an end is no string
            raise _first_error(bindings, _BINDINGS_PATH, _binding_error) from None
        mechanism = item.get("mechanism")
        complexity_check = item.get("complexityCheck")
        if not (
            source_widget
            and source_port
            and target_widget
            and target_port
            and isinstance(binding_id, str)
            and (mechanism is None or isinstance(mechanism, str))
            and (complexity_check is None or complexity_check is True or complexity_check is False)
        ):
            raise _first_error(bindings, _BINDINGS_PATH, _binding_error)
        add_source(source_widget)
        add_target(target_widget)
    return source_widgets, target_widgets


def _binding_error(item: object, where: str) -> UISpecError | None:
    if not isinstance(item, dict):
        return UISpecError(where, f"found {describe(item)}", _BINDING)
    if not isinstance(item.get("id"), str):
        return UISpecError(f"{where}.id", _found(item, "id"), "a string")
    for key in ("source", "target"):
        value = item.get(key)
        widget, _, port = value.partition(".") if isinstance(value, str) else ("", "", "")
        if not widget or not port:
            return UISpecError(f"{where}.{key}", _found(item, key), _ENDPOINT)
    mechanism = item.get("mechanism")
    if mechanism is not None and not isinstance(mechanism, str):
        return UISpecError(f"{where}.mechanism", _found(item, "mechanism"), _MECHANISM)
    complexity_check = item.get("complexityCheck")
    if complexity_check is not None and not isinstance(complexity_check, bool):
        # Strict where JavaScript's `complexityCheck === true` would quietly read 1 or "true" as not set.
        return UISpecError(f"{where}.complexityCheck", _found(item, "complexityCheck"), "true, false or null")
    return None


def _first_error(items: list, path: str, find_error) -> UISpecError:
    """The error of the first refused item: the slow path, taken once the fast check has failed."""
    for index, item in enumerate(items):
        error = find_error(item, f"{path}[{index}]")
        if error is not None:
            return error
    raise AssertionError(f"{path}: the fast check refused an item the full check accepts")


def _found(item: dict, key: str) -> str:
    return f"found {describe(item[key])}" if key in item else "missing"


def describe(value: object) -> str:
    """How an error message shows a value: its JSON type, and the value itself when it is a short scalar."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"boolean {'true' if value else 'false'}"
    if isinstance(value, (int, float)):
        return f"number {value!r}"
    if isinstance(value, str):
        shown = value if len(value) <= 60 else value[:57] + "..."
        return f"string {json.dumps(shown, ensure_ascii=False)}"
    if isinstance(value, list):
        return f"an array of {len(value)}"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__
