"""The trial-log JSONL format (pure Python): one trial per line.

    {"id": "t-0001", "modelConfig": "A", "stage": 3, "inputText": "<the concern>", "generatedData": {...}}

``id``, ``modelConfig`` and ``inputText`` are strings (the first two non-empty), ``stage`` an integer
≥ 0, ``generatedData`` any JSON value: a stored log is what the model generated, so a spec that is
not a UISpec is not an import error; evaluation records the problem on that trial. Any other key is
a problem (a misspelt key would otherwise lose a field silently).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from core.jsonl import Problem, gettext_noop, got

FIELDS = ("id", "modelConfig", "stage", "inputText", "generatedData")


@dataclass(frozen=True, slots=True)
class TrialRecord:
    id: str
    model_config: str
    stage: int
    input_text: str
    generated_data: object
    file: str
    line: int

    def values(self) -> tuple:
        """What is stored, for comparing a re-import with the stored trial."""
        return (self.model_config, self.stage, self.input_text, self.generated_data)


# What each field accepts (msgids: the pages and the API translate them, ``core.problem_text``)
_ACCEPTED = {
    "id": gettext_noop("a non-empty string"),
    "modelConfig": gettext_noop('a non-empty string such as "A"'),
    "stage": gettext_noop("an integer ≥ 0"),
    "inputText": gettext_noop("a string (the concern)"),
    "generatedData": gettext_noop("the generated UI spec"),
}
MISSING = gettext_noop("missing required field (%(accepted_text)s)")
EXPECTED = gettext_noop("expected %(accepted_text)s, got %(type_text)s%(shown)s")
NOT_AN_OBJECT = gettext_noop("expected an object {%(fields)s}, got %(type_text)s%(shown)s")
UNKNOWN = gettext_noop("unknown field; accepted: %(fields)s")


def parse_trial(obj: object, *, file: str, line: int) -> tuple[TrialRecord | None, list[Problem]]:
    """A ``TrialRecord``, or the problems of this line (each with its JSON path and what is accepted)."""
    if not isinstance(obj, dict):
        return None, [Problem.of(file, line, "$", NOT_AN_OBJECT, fields=", ".join(FIELDS), **got(obj))]
    problems = []

    def need(key: str, kind: type, *, non_empty: bool = False):
        if key not in obj:
            problems.append(Problem.of(file, line, f"$.{key}", MISSING, accepted_text=_ACCEPTED[key]))
            return None
        value = obj[key]
        if not isinstance(value, kind) or isinstance(value, bool) or (non_empty and not value.strip()):
            problems.append(Problem.of(file, line, f"$.{key}", EXPECTED, accepted_text=_ACCEPTED[key], **got(value)))
            return None
        return value

    trial_id = need("id", str, non_empty=True)
    model_config = need("modelConfig", str, non_empty=True)
    stage = need("stage", int)
    if stage is not None and stage < 0:
        problems.append(Problem.of(file, line, "$.stage", EXPECTED, accepted_text=_ACCEPTED["stage"], **got(stage)))
    input_text = need("inputText", str)
    if "generatedData" not in obj:
        problems.append(Problem.of(file, line, "$.generatedData", MISSING, accepted_text=_ACCEPTED["generatedData"]))
    for key in obj:
        if key not in FIELDS:
            path = f"$.{json.dumps(key, ensure_ascii=False)[1:-1]}"
            problems.append(Problem.of(file, line, path, UNKNOWN, fields=", ".join(FIELDS)))
    if problems:
        return None, problems
    return TrialRecord(trial_id, model_config, stage, input_text, obj["generatedData"], file, line), []
