from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class LlmConfig(AppConfig):
    """The one gateway to OpenAI-compatible LLM endpoints."""

    name = "llm"
    verbose_name = _("LLM gateway")
