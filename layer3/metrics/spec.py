"""The parsed shape of a trial's ``generatedData`` (UISpec / PlanUISpec) and its error (seed 002 §4, §6.1).

Seed 002 uses ``UISpec``, ``PlanUISpec``, ``WidgetSpec``, ``ReactiveBinding``, ``isPlanUISpec`` and
``getAllWidgetsFromUISpec`` without defining them; ``layer3.metrics.parsing`` builds a ``UISpec`` from
the JSON and documents what it accepts. A ``UISpec`` holds references into the decoded JSON, nothing
is copied, and is meant to be read, not changed.
"""

from __future__ import annotations

from dataclasses import dataclass

# PlanUISpec sections in the order getAllWidgetsFromUISpec concatenates them (the seed's
# sectionNodeCounts lists them in this order too).
SECTION_NAMES = ("diverge", "organize", "converge")


class UISpecError(ValueError):
    """``generatedData`` that is not a UISpec or PlanUISpec.

    ``path`` is the JSON path of the offending value (``generatedData.reactiveBindings.bindings[3].source``),
    ``problem`` says what was found there and ``accepted`` what would have been accepted.
    """

    def __init__(self, path: str, problem: str, accepted: str) -> None:
        self.path = path
        self.problem = problem
        self.accepted = accepted
        super().__init__(f"{path}: {problem}; accepted: {accepted}")


@dataclass(slots=True)
class UISpec:
    """A parsed UISpec, or PlanUISpec when ``sections`` is set.

    ``widgets`` and ``bindings`` are the decoded JSON objects themselves, checked but not copied: every
    widget has non-empty string "id" and "component" (and any "config"), every binding a string "id",
    "source"/"target" of the form "widgetId.port", an optional string "mechanism" and an optional
    boolean "complexityCheck". For a PlanUISpec ``widgets`` is diverge, organize and converge
    concatenated (the seed's ``getAllWidgetsFromUISpec``) and ``sections`` maps each section name to
    its own widgets.

    ``source_widgets[i]`` / ``target_widgets[i]`` are the widget ids of ``bindings[i]``: the text before
    the first dot of its source / target, JavaScript's ``binding.source.split('.')[0]``. The seed
    splits them again in every algorithm; here parsing splits each once.
    """

    widgets: list[dict]
    bindings: list[dict]
    source_widgets: list[str]
    target_widgets: list[str]
    sections: dict[str, list[dict]] | None = None
