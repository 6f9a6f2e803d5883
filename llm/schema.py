"""Reading an LLM's JSON reply: strip code fences, parse, validate against a small JSON Schema subset.

Pure (no Django). The subset is what the judge prompts need: ``type`` (object, array, string,
integer, number, boolean, null), ``properties``, ``required``, ``additionalProperties: false``,
``enum``, ``minimum``/``maximum``, ``minLength``/``maxLength`` and ``items``. Every error names the
JSON path of the offending value and what is accepted.
"""

from __future__ import annotations

import json
import re

_FENCE = re.compile(r"^\s*```[A-Za-z0-9_-]*\s*\n?(.*?)\n?\s*```\s*$", re.DOTALL)
_TYPES = {
    "object": dict,
    "array": list,
    "string": str,
    "boolean": bool,
    "null": type(None),
}


class ReplyError(ValueError):
    """The reply is not the JSON the prompt asked for; the message says where and what is accepted."""


def strip_code_fences(text: str) -> str:
    """``text`` without a surrounding Markdown code fence (```json ... ```), else unchanged but stripped."""
    match = _FENCE.match(text or "")
    return (match.group(1) if match else (text or "")).strip()


def parse_reply(text: str | None, schema: dict) -> dict:
    """The validated JSON object in ``text``; raises ``ReplyError``."""
    body = strip_code_fences(text or "")
    if not body:
        raise ReplyError("the reply is empty; expected a JSON object")
    try:
        value = json.loads(body)
    except json.JSONDecodeError as exc:
        start = body.find("{")
        end = body.rfind("}")
        if start == -1 or end <= start:
            raise ReplyError(f"the reply is not JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from None
        try:  # prose around one JSON object ("Here is my evaluation: {...}")
            value = json.loads(body[start : end + 1])
        except json.JSONDecodeError as inner:
            raise ReplyError(
                f"the reply is not JSON ({inner.msg} at line {inner.lineno} column {inner.colno})"
            ) from None
    errors = validate(value, schema)
    if errors:
        raise ReplyError("; ".join(errors))
    return value


def _describe(value) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 40 else text[:37] + "..."


def _type_ok(value, expected: str) -> bool:
    if expected == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if expected == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    return isinstance(value, _TYPES[expected])


def validate(value, schema: dict, path: str = "$") -> list[str]:
    """Every way ``value`` breaks ``schema``, as "path: problem (accepted: ...)" messages."""
    expected = schema.get("type")
    if expected is not None:
        options = expected if isinstance(expected, list) else [expected]
        if not any(_type_ok(value, option) for option in options):
            return [f"{path}: {_describe(value)} is not of type {' or '.join(options)}"]
    errors: list[str] = []
    if "enum" in schema and value not in schema["enum"]:
        accepted = ", ".join(_describe(v) for v in schema["enum"])
        errors.append(f"{path}: {_describe(value)} is not one of {accepted}")
    if isinstance(value, int | float) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            errors.append(f"{path}: {value} is below the minimum {schema['minimum']}")
        if "maximum" in schema and value > schema["maximum"]:
            errors.append(f"{path}: {value} is above the maximum {schema['maximum']}")
    if isinstance(value, str):
        if "minLength" in schema and len(value) < schema["minLength"]:
            errors.append(f"{path}: text shorter than {schema['minLength']} characters")
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            errors.append(f"{path}: text longer than {schema['maxLength']} characters")
    if isinstance(value, dict):
        properties = schema.get("properties", {})
        for name in schema.get("required", []):
            if name not in value:
                errors.append(f"{path}: missing required key {name!r}")
        for name, item in value.items():
            if name in properties:
                errors.extend(validate(item, properties[name], f"{path}.{name}"))
            elif schema.get("additionalProperties") is False:
                errors.append(f"{path}: unexpected key {name!r} (accepted: {', '.join(properties)})")
    if isinstance(value, list) and "items" in schema:
        for index, item in enumerate(value):
            errors.extend(validate(item, schema["items"], f"{path}[{index}]"))
    return errors
