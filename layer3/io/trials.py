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

from core.jsonl import Problem, describe_value

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


def parse_trial(obj: object, *, file: str, line: int) -> tuple[TrialRecord | None, list[Problem]]:
    """A ``TrialRecord``, or the problems of this line (each with its JSON path and what is accepted)."""
    if not isinstance(obj, dict):
        return None, [
            Problem(file, line, "$", f"expected an object {{{', '.join(FIELDS)}}}, got {describe_value(obj)}")
        ]
    problems = []

    def need(key: str, kind: type, accepted: str, *, non_empty: bool = False):
        if key not in obj:
            problems.append(Problem(file, line, f"$.{key}", f"missing required field ({accepted})"))
            return None
        value = obj[key]
        if not isinstance(value, kind) or isinstance(value, bool) or (non_empty and not value.strip()):
            problems.append(Problem(file, line, f"$.{key}", f"expected {accepted}, got {describe_value(value)}"))
            return None
        return value

    trial_id = need("id", str, "a non-empty string", non_empty=True)
    model_config = need("modelConfig", str, 'a non-empty string such as "A"', non_empty=True)
    stage = need("stage", int, "an integer ≥ 0")
    if stage is not None and stage < 0:
        problems.append(Problem(file, line, "$.stage", f"expected an integer ≥ 0, got {stage}"))
    input_text = need("inputText", str, "a string (the concern)")
    if "generatedData" not in obj:
        problems.append(Problem(file, line, "$.generatedData", "missing required field (the generated UI spec)"))
    for key in obj:
        if key not in FIELDS:
            problems.append(
                Problem(
                    file,
                    line,
                    f"$.{json.dumps(key, ensure_ascii=False)[1:-1]}",
                    f"unknown field; accepted: {', '.join(FIELDS)}",
                )
            )
    if problems:
        return None, problems
    return TrialRecord(trial_id, model_config, stage, input_text, obj["generatedData"], file, line), []
