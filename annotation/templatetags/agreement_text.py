"""``{{ reason|agreement_reason }}``: a statistics reason in the user's language (aggregation/reason_text)."""

from django import template

from annotation.aggregation.reason_text import translate_reason

register = template.Library()


@register.filter
def agreement_reason(text):
    return translate_reason(text)
