from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class Layer3Config(AppConfig):
    """Layer3 semantic validation of stored LLM-generated UI specs (seed 002)."""

    name = "layer3"
    verbose_name = _("Layer3 validation")

    def ready(self) -> None:
        from core.demo import register_demo_part
        from layer3.demo import load as demo
        from layer3.runs import job_handlers  # noqa: F401  (registers the layer3.evaluate job kind)

        register_demo_part("layer3", demo.load, order=30)
