"""Stored Layer3 texts in the reader's language on the panel's pages (``{% load layer3_text %}``).

``{{ metrics.error|spec_error_text }}``, ``{{ item.label|verdict_label_text }}``,
``{{ item.reasoning|judge_reasoning_text }}``, ``{{ e.status|judge_status_text }}``,
``{{ run.error|run_error_text }}`` (layer3.panel.messages); ``{{ block|judge_of }}`` for the judge of a
judged block; ``{{ graph|with_error_text }}`` for a trial graph whose error the graph partial prints.
Every filter returns plain text, which the template escapes, except ``label_breaks``, which escapes itself.
"""

from dataclasses import replace

from django import template
from django.utils.html import conditional_escape
from django.utils.safestring import mark_safe

from layer3.metrics.provenance import UNRECORDED, block_judge
from layer3.panel import messages

register = template.Library()

register.filter("spec_error_text", messages.spec_error_text)
register.filter("run_error_text", messages.run_error_text)
register.filter("verdict_label_text", messages.verdict_label_text)
register.filter("judge_status_text", messages.judge_status_text)
register.filter("judge_reasoning_text", messages.judge_reasoning_text)


@register.filter
def judge_of(block) -> dict | None:
    """``{"label": "llm:gpt-4o:layer3.gv_relevance@1", "baseline": bool}`` of a judged block; None unrecorded."""
    label = block_judge(block)
    if label == UNRECORDED:
        return None
    return {"label": label, "baseline": block["judge"].get("kind") == "baseline"}


@register.filter
def with_error_text(graph):
    """``graph`` (layer3.panel.trial_graph.TrialGraph) with its error message in the reader's language."""
    if graph is None or graph.error is None:
        return graph
    return replace(graph, error=replace(graph.error, message=messages.spec_error_text(graph.error.message)))


@register.filter
def label_breaks(label) -> str:
    """A judge label (``kind:model:prompt``) escaped, with a line-break opportunity after each colon, so a narrow
    card wraps it between its parts rather than inside a word."""
    return mark_safe(":<wbr>".join(conditional_escape(part) for part in str(label or "").split(":")))  # noqa: S308
