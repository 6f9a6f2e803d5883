"""One JSON text read under the strict rules (``core.json_strict``): an API body, a JSON file, a setting.

``decode_json(raw, source=...)`` returns the value or raises ``InputError`` with one ``Problem`` naming
the source, the JSON path and what is accepted. Pure Python (no Django): the API's parser
(``core.api_parsers``), the commands and the settings use it alike.
"""

from __future__ import annotations

from core.json_strict import BLANK, check_text
from core.jsonl import InputError, Problem, gettext_noop

EMPTY = gettext_noop("empty; a JSON value is expected")


def decode_json(raw: bytes | str, *, source: str) -> object:
    """``raw`` as a JSON value, or ``InputError`` saying where and why it is refused."""
    data = raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw
    value, finding = check_text(data)
    if finding is not None:
        raise InputError([Problem.of(source, None, finding.path, finding.template, **finding.params)])
    if value is BLANK:
        raise InputError([Problem.of(source, None, "$", EMPTY)])
    return value
