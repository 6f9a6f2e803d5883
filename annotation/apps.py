from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class AnnotationConfig(AppConfig):
    """JAIML sycophancy annotation (seed 000)."""

    name = "annotation"
    verbose_name = _("Annotation")
