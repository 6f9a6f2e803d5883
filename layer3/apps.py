from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class Layer3Config(AppConfig):
    """Layer3 semantic validation of stored LLM-generated UI specs (seed 002)."""

    name = "layer3"
    verbose_name = _("Layer3 validation")
