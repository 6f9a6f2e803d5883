"""Stored Layer3 texts in the reader's language: evaluation errors, verdict labels, the baseline's reasoning.

A trial's stored metrics keep English, as the API and the exports serve them: the evaluation error
``"<problem>; accepted: <accepted>"`` (``layer3.runs.chunk.error_metrics`` from a ``UISpecError`` of
``layer3.metrics.parsing``), the judges' labels (``useful`` ... ``wrong``) and the offline baseline
judge's reasoning (``llm.baseline``, "baseline: " and one of a few templates with numbers). The pages
read them through the functions here, which recognise those English texts piece by piece and render
each piece they know through gettext; a piece they do not know stays as it is, and so does any value
taken from the data (a string found in the generated data, a widget id, a port name, a number).

The English templates below must match the texts of those modules: tests/layer3/panel/test_messages.py
makes every error that ``parse_ui_spec`` can raise and every reasoning that the baseline can give,
and checks that each is read. The accepted texts are keyed by parsing's own constants, so a changed
constant shows as a key without its translation.
"""

from __future__ import annotations

import re
from functools import cache

from django.utils.translation import gettext, gettext_lazy
from django.utils.translation import gettext_noop as _

from layer3.metrics import parsing

# What each refused value would have been instead (``UISpecError.accepted``). Keys are the texts the
# trials store, values their msgids: the same English, written out so that makemessages finds it.
ACCEPTED: dict[str, str] = {
    parsing._SPEC: _(
        'a UISpec {"widgets": [...], "reactiveBindings": {"bindings": [...]}} or a PlanUISpec '
        '{"sections": {"diverge": {"widgets": [...]}, "organize": {...}, "converge": {...}}, "reactiveBindings": {...}}'
    ),
    parsing._WIDGETS: _('an array of widgets {"id": "w1", "component": "...", "config": {...}}'),
    parsing._WIDGET: _('a widget object {"id": "w1", "component": "...", "config": {...}}'),
    parsing._SECTIONS: _('an object {"diverge": {...}, "organize": {...}, "converge": {...}}'),
    parsing._SECTION: _('an object {"widgets": [...]}'),
    parsing._REACTIVE_BINDINGS: _('an object {"bindings": [...]} (write {"bindings": []} for a spec without bindings)'),
    parsing._BINDINGS: _(
        'an array of bindings {"id": "b1", "source": "w1.port", "target": "w2.port", "mechanism": "update"}'
    ),
    parsing._BINDING: _(
        'a binding object {"id": "b1", "source": "w1.port", "target": "w2.port", "mechanism": "update"}'
    ),
    parsing._ENDPOINT: _(
        'a string "widgetId.port" with a non-empty widget id before the first dot and a non-empty port after it'
    ),
    parsing._MECHANISM: _('a string ("update", "validate", ...) or null'),
    # written in place in parsing.py (_widget_error, _binding_error)
    "a non-empty string": _("a non-empty string"),
    "a string": _("a string"),
    "true, false or null": _("true, false or null"),
}

ERROR = _("%(problem)s; accepted: %(accepted)s")
FOUND = _("found %(value)s")
MISSING = _("missing")
NEITHER = _('an object with neither "widgets" nor "sections" (keys: %(keys)s)')
NEITHER_NO_KEYS = _('an object with neither "widgets" nor "sections" (keys: none)')
ARRAY = _("an array of %(count)s")
# ``parsing.describe``: a JSON type (core.jsonl's msgids), then the value as written, which stays as it is
_DESCRIBED = re.compile(r"(?P<type>boolean|number|string) (?P<value>.+)", re.DOTALL)
_TYPE_NAMES = {"boolean": _("boolean"), "number": _("number"), "string": _("string")}
_UNSHOWN_VALUES = {"null": _("null"), "an object": _("an object")}
_ARRAY = re.compile(r"an array of (?P<count>[0-9]+)")
_NEITHER = re.compile(r'an object with neither "widgets" nor "sections" \(keys: (?P<keys>.*)\)', re.DOTALL)
_SEPARATOR = "; accepted: "

# The run's own failures, as a Layer3Run stores them (layer3.runs.services)
RUN_INTERRUPTED = _("no progress: the process running it ended")

# The judges' verdict labels: the points of the audit scales (seed 002 §2.2.1 GV, §2.2.3 W2WR), also the
# calibration card's names for them (layer3.panel.reads).
VERDICT_LABELS = {
    "not_relevant": gettext_lazy("Not relevant"),
    "generic": gettext_lazy("Generic"),
    "useful": gettext_lazy("Useful"),
    "wrong": gettext_lazy("Wrong"),
    "redundant": gettext_lazy("Redundant"),
    "correct": gettext_lazy("Correct"),
}
# The gateway's status of a judge call that gave no verdict (llm.models.LLMCall.Status's msgids)
JUDGE_STATUSES = {"ok": _("ok"), "parse_error": _("parse error"), "error": _("error")}

BASELINE_PREFIX = "baseline: "
BASELINE = _("baseline: %(reasoning)s")
# llm.baseline's reasonings after "baseline: ", one per rule. A placeholder named twice is the same text twice.
BASELINE_REASONINGS = (
    _("generated text is empty (or punctuation only)"),
    _("generated text contains a harmful term"),
    _("concern similarity >= %(threshold)s (concern %(concern)s, generic corpus %(generic)s)"),
    _(
        "generic-corpus similarity >= max(concern similarity, %(threshold)s) "
        "(concern %(concern)s, generic corpus %(generic)s)"
    ),
    _("concern similarity >= %(floor)s but < %(threshold)s (concern %(concern)s, generic corpus %(generic)s)"),
    _("specific but unrelated to the concern (concern %(concern)s, generic corpus %(generic)s)"),
    _("self reference (%(widget)s -> %(widget)s)"),
    _("compatible port names (%(source)s -> %(target)s)"),
    _("description similarity to the concern %(similarity)s >= %(threshold)s"),
    _("incompatible ports (%(source)s -> %(target)s) and description similarity %(similarity)s < %(threshold)s"),
)
_NUMBER = r"-?[0-9]+(?:\.[0-9]+)?(?:e[-+]?[0-9]+)?"
_PYTHON_REPR = r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\""  # a port name as !r writes it
_FIELDS = {"source": _PYTHON_REPR, "target": _PYTHON_REPR, "widget": ".+"}  # every other field is a number
_PLACEHOLDER = re.compile(r"%\((\w+)\)s")


def spec_error_text(error: str | None) -> str:
    """A trial's stored evaluation error (``"<problem>; accepted: <accepted>"``) in the active language."""
    if not error:
        return error or ""
    problem, separator, accepted = error.rpartition(_SEPARATOR)  # an accepted text never holds the separator
    if not separator:
        return error
    accepted = gettext(ACCEPTED[accepted]) if accepted in ACCEPTED else accepted
    return gettext(ERROR) % {"problem": _problem_text(problem), "accepted": accepted}


def _problem_text(problem: str) -> str:
    if problem == "missing":
        return gettext(MISSING)
    if problem.startswith("found "):
        return gettext(FOUND) % {"value": _value_text(problem.removeprefix("found "))}
    if problem == 'an object with neither "widgets" nor "sections" (keys: none)':
        return gettext(NEITHER_NO_KEYS)
    found = _NEITHER.fullmatch(problem)
    if found:
        return gettext(NEITHER) % {"keys": found["keys"]}
    return problem


def _value_text(value: str) -> str:
    """``parsing.describe``'s text with its JSON type translated; the value itself as written."""
    if value in _UNSHOWN_VALUES:
        return gettext(_UNSHOWN_VALUES[value])
    found = _DESCRIBED.fullmatch(value)
    if found:
        return f"{gettext(_TYPE_NAMES[found['type']])} {found['value']}"
    found = _ARRAY.fullmatch(value)
    if found:
        return gettext(ARRAY) % {"count": found["count"]}
    return value  # a Python type name (not JSON): as it is


def run_error_text(error: str | None) -> str:
    """A run's stored failure or a trial error line ``"<JSON path>: <evaluation error>"`` in the active language.

    Any other failure (``"<Exception>: <message>"``) is a program's message and stays as it is.
    """
    if not error:
        return error or ""
    if error == RUN_INTERRUPTED:
        return gettext(RUN_INTERRUPTED)
    path, separator, rest = error.partition(": ")
    if separator and path.startswith(parsing.ROOT) and " " not in path:
        return f"{path}: {spec_error_text(rest)}"
    return error


def verdict_label_text(label: str | None) -> str:
    """A judge's verdict label (``useful``, ``not_relevant``, ``correct`` ...) in the active language."""
    if label in VERDICT_LABELS:
        return str(VERDICT_LABELS[label])
    return "" if label is None else str(label)


def judge_status_text(status: str | None) -> str:
    """Why a judged item has no verdict (``parse_error``, ``error``) in the active language."""
    if status in JUDGE_STATUSES:
        return gettext(JUDGE_STATUSES[status])
    return "" if status is None else str(status)


def judge_reasoning_text(reasoning: str | None) -> str:
    """The baseline judge's reasoning in the active language; any other reasoning (an LLM's) unchanged."""
    if not reasoning or not reasoning.startswith(BASELINE_PREFIX):
        return reasoning or ""
    body = reasoning.removeprefix(BASELINE_PREFIX)
    for template, pattern in _reasoning_patterns():
        found = pattern.fullmatch(body)
        if found:
            return gettext(BASELINE) % {"reasoning": gettext(template) % found.groupdict()}
    return reasoning


@cache
def _reasoning_patterns() -> tuple[tuple[str, re.Pattern], ...]:
    patterns = []
    for template in BASELINE_REASONINGS:
        parts, seen = _PLACEHOLDER.split(template), set()
        regex = ""
        for index, part in enumerate(parts):
            if index % 2 == 0:
                regex += re.escape(part)
            elif part in seen:
                regex += f"(?P={part})"
            else:
                seen.add(part)
                regex += f"(?P<{part}>{_FIELDS.get(part, _NUMBER)})"
        patterns.append((template, re.compile(regex, re.DOTALL)))
    return tuple(patterns)


# --- a run's problems, as its progress stream and summary show them --------------------------------------------------
JUDGE_GAVE_UP = _(
    "the judge gave no verdict for %(n)s %(groups)s items after the retries (first: %(status)s: %(error)s)"
)
_JUDGE_GAVE_UP = re.compile(
    r"the judge gave no verdict for (?P<n>[0-9]+) (?P<groups>[A-Z0-9/]+) items after the retries "
    r"\(first: (?P<status>\w+): (?P<error>.*)\)",
    re.DOTALL,
)


def problem_text(kind: str, message: str | None) -> str:
    """A run problem's stored English (``Layer3RunProblem``: spec, judge, the run's failure) in the active language."""
    if kind == "judge":
        found = _JUDGE_GAVE_UP.fullmatch(message or "")
        if not found:
            return message or ""
        values = found.groupdict()
        values["status"] = judge_status_text(values["status"])
        return gettext(JUDGE_GAVE_UP) % values
    return run_error_text(message)


# --- why a statistical test was not performed (layer3.statistics: reasonCode and reasonParams) ------------------------
UNITS = {
    "trials": gettext_lazy("trials with this metric"),
    "judged_items": gettext_lazy("judged generatedValue items"),
    "bindings": gettext_lazy("W2WR bindings"),
    "judged_bindings": gettext_lazy("judged W2WR bindings"),
}
REASONS = {
    "empty_group": _("no %(unit)s in model %(models)s"),
    "all_tied": _(
        "all %(n)s values are equal (%(value)s) in both models, so every rank is tied and the test is undefined"
    ),
    "pooled_proportion_zero": _(
        "no successes among the %(n)s items of either model: the variance is 0 and z is undefined"
    ),
    "pooled_proportion_one": _(
        "only successes among the %(n)s items of both models: the variance is 0 and z is undefined"
    ),
    "different_judges": _(
        "model %(modelA)s was judged by %(judgeA)s and model %(modelB)s by %(judgeB)s; figures of different judges "
        "are not compared"
    ),
    "mixed_judges": _(
        "model %(model)s was judged by several judges (%(judges)s); figures of different judges are not compared"
    ),
}


def statistics_reason_text(comparison: dict) -> str:
    """Why a comparison row of ``layer3.statistics`` was not tested, in the active language (its English
    ``reason`` when the code is unknown, e.g. from an older stored result)."""
    code = comparison.get("reasonCode")
    params = comparison.get("reasonParams") or {}
    if code not in REASONS:
        return comparison.get("reason") or ""
    values = {key: (", ".join(map(str, value)) if isinstance(value, list) else value) for key, value in params.items()}
    if code == "empty_group":
        values["unit"] = str(UNITS.get(params.get("unit"), params.get("unit") or ""))
    try:
        return gettext(REASONS[code]) % values
    except (KeyError, TypeError, ValueError):
        return comparison.get("reason") or ""
