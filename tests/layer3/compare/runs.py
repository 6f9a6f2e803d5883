"""A Layer3 run of a batch, created and executed in this process (the comparison tests' two versions)."""

from layer3.runs import services
from layer3.runs.options import EvaluationOptions


def run(batch, **options):
    created = services.layer3_run_create(batch=batch, options=EvaluationOptions(**options))
    return services.layer3_run_execute(run=created)
