from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class CoreConfig(AppConfig):
    name = "core"
    verbose_name = _("Core")

    def ready(self) -> None:
        # the schema's auth schemes; the core job kinds; the <id:> URL converter
        from core import api_schema, converters, job_handlers  # noqa: F401
