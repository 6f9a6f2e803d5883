from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class AnnotationConfig(AppConfig):
    """JAIML sycophancy annotation (seed 000)."""

    name = "annotation"
    verbose_name = _("Annotation")

    def ready(self) -> None:
        from annotation import demo, job_handlers  # noqa: F401  (job_handlers registers job kinds)
        from annotation.audits.calibration import batch_calibrations
        from annotation.collection import training_demo
        from annotation.io import rating_uploads  # noqa: F401  (registers annotation.ratings_upload)
        from annotation.spreadsheets import upload_jobs as _sheet_jobs  # noqa: F401  (annotation.sheet_upload)
        from annotation.workspace import upload_jobs  # noqa: F401  (registers annotation.dialogues_upload)
        from core.demo import register_demo_part
        from core.judge_audits import register_calibration

        register_demo_part("annotation", demo.load, order=10)
        register_demo_part("training", training_demo.load, order=20)
        register_demo_part("judge-audits", _load_audit_demo, order=35)  # after layer3 (30): it audits its judge
        register_calibration(batch_calibrations)  # Layer3's batch page, exports and API read the reports


def _load_audit_demo() -> str:
    from annotation.audits import demo

    return demo.load()
