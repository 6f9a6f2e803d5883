"""What the two Layer3 judges are asked about one trial (pure: no Django).

GV relevance (``layer3.gv_relevance``): every generated sample item that §4.1 extracts, with the
concern and the type (component) of its widget. W2WR semantic correctness
(``layer3.w2wr_semantic``): every binding, with the two widgets, their types and ports and the
binding's description. The variable names are those of the prompts in ``llm/prompt_library.py``.

Ports: a binding endpoint "widgetId.port" has its widget id before the first dot and its port after
it (``"w1.items.selected"`` → port ``"items.selected"``). The seed's evaluation body is left out;
its other code splits with ``split('.')`` and uses only the widget id, so nothing there fixes the
port of an endpoint with two dots; the whole rest is what the judge needs to see.
"""

from __future__ import annotations

from dataclasses import dataclass

from layer3.metrics.extraction import extract_generated_values
from layer3.metrics.spec import UISpec

UNKNOWN_WIDGET_TYPE = "unknown"  # a binding to a widget id the spec does not have


@dataclass(frozen=True, slots=True)
class JudgeItem:
    """One question for a judge: the prompt's variables and what the per-item result records."""

    variables: dict[str, str]
    detail: dict[str, str]


@dataclass
class TrialQuestions:
    """The judge items of one trial; ``None`` where that judge does not run."""

    gv: list[JudgeItem] | None = None
    w2wr: list[JudgeItem] | None = None


def gv_items(spec: UISpec, concern: str) -> list[JudgeItem]:
    """One item per generated sample value (§4.1 order); detail ``{widgetId, portId, itemId, text}``.

    ``portId`` is the config path where the item was found (``items``, ``columns[0].cards``).
    """
    types = {widget["id"]: widget["component"] for widget in spec.widgets}
    return [
        JudgeItem(
            {"concernText": concern, "generatedText": found["text"], "widgetType": types.get(found["widgetId"], "")},
            {"widgetId": found["widgetId"], "portId": found["path"], "itemId": found["itemId"], "text": found["text"]},
        )
        for found in extract_generated_values(spec)
    ]


def w2wr_items(spec: UISpec, concern: str) -> list[JudgeItem]:
    """One item per binding, in order; detail ``{bindingId, sourceWidget, sourcePort, targetWidget, targetPort}``."""
    types = {widget["id"]: widget["component"] for widget in spec.widgets}
    items = []
    for binding, source_widget, target_widget in zip(
        spec.bindings, spec.source_widgets, spec.target_widgets, strict=True
    ):
        source_port = binding["source"].partition(".")[2]
        target_port = binding["target"].partition(".")[2]
        description = binding.get("description")
        items.append(
            JudgeItem(
                {
                    "concernText": concern,
                    "sourceWidget": source_widget,
                    "sourceWidgetType": types.get(source_widget, UNKNOWN_WIDGET_TYPE),
                    "sourcePort": source_port,
                    "targetWidget": target_widget,
                    "targetWidgetType": types.get(target_widget, UNKNOWN_WIDGET_TYPE),
                    "targetPort": target_port,
                    "description": description if isinstance(description, str) else "",
                },
                {
                    "bindingId": binding["id"],
                    "sourceWidget": source_widget,
                    "sourcePort": source_port,
                    "targetWidget": target_widget,
                    "targetPort": target_port,
                },
            )
        )
    return items
