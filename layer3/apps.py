from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class Layer3Config(AppConfig):
    """Layer3 semantic validation of stored LLM-generated UI specs (seed 002)."""

    name = "layer3"
    verbose_name = _("Layer3 validation")

    def ready(self) -> None:
        from core.demo import register_demo_part
        from core.judge_audits import register_batch_names, register_batch_page, register_judged_units
        from layer3.demo import load as demo
        from layer3.io import upload_jobs  # noqa: F401  (registers the layer3.trials_upload job kind)
        from layer3.judge import audit_source
        from layer3.runs import job_handlers  # noqa: F401  (registers the layer3.evaluate job kind)

        register_demo_part("layer3", demo.load, order=30)
        register_judged_units(audit_source.judged_units)  # what judge audits sample (annotation, issue 18)
        register_batch_page(audit_source.batch_page_url)  # where an audit's calibration card is
        register_batch_names(audit_source.evaluated_batch_names)
