"""Numbers of the monthly feedback pages: ``{{ ci|ci_text }}`` (a 95% CI ``[low, high]``), ``{{ x|signed }}``."""

from django import template

register = template.Library()


@register.filter
def ci_text(value) -> str:
    return "—" if not value else f"[{value[0]:.3f}, {value[1]:.3f}]"


@register.filter
def signed(value) -> str:
    return "—" if value is None else f"{value:+.2f}"


@register.filter
def variance_text(value) -> str:
    return "—" if value is None else f"{value:.2f}"
