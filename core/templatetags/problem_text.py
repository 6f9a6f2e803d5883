"""``{{ row|problem_message }}``: an import problem row's message in the reader's language."""

from django import template

from core.problem_text import problem_row_message

register = template.Library()


@register.filter
def problem_message(row: dict) -> str:
    return problem_row_message(row)
