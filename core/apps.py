from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class CoreConfig(AppConfig):
    name = "core"
    verbose_name = _("Core")

    def ready(self) -> None:
        from core import api_schema, job_handlers  # noqa: F401  (the schema's auth schemes; the core job kinds)
