from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class DirectorConfig(AppConfig):
    """Director retry judgment for two-character dialogue (seed 004)."""

    name = "director"
    verbose_name = _("Director")

    def ready(self) -> None:
        from core.demo import register_demo_part
        from director.demo import load as demo
        from director.sessions import job_handlers  # noqa: F401  (registers the director.turns job kind)

        register_demo_part("director", demo.load, order=40)
