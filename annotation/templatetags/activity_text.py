"""Numbers of the activity page as people read them: ``{{ rate|percent }}``, ``{{ kappa|kappa_text }}``,
``{{ seconds|seconds_text }}``, and ``{{ kappa|kappa_band }}`` (a CSS class by the project's κ thresholds)."""

from django import template

from annotation.axes import MIN_KAPPA, TARGET_KAPPA

register = template.Library()


@register.filter
def percent(value) -> str:
    return "—" if value is None else f"{100 * value:.1f}%"


@register.filter
def kappa_text(value) -> str:
    return "—" if value is None else f"{value:.3f}"


@register.filter
def kappa_band(value) -> str:
    """``kappa-low`` under the minimum κ, ``kappa-good`` from the target up, else ``kappa-ok``."""
    if value is None:
        return "kappa-undefined"
    if value < MIN_KAPPA:
        return "kappa-low"
    return "kappa-good" if value >= TARGET_KAPPA else "kappa-ok"


@register.filter
def seconds_text(value) -> str:
    return "—" if value is None else f"{value:.1f}"
