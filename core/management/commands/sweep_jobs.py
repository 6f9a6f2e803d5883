import json

from django.core.management.base import BaseCommand

from core.job_sweep import jobs_sweep


class Command(BaseCommand):
    help = (
        "Run the job sweep once, as the beat entry core.jobs_sweep does every JOB_SWEEP_SECONDS: hand waiting jobs "
        "to the worker queue, fail running jobs whose worker stopped beating for JOB_CHUNK_STALE_SECONDS, call "
        "workers into chunks nobody works on. For a site without a beat process (cron), or to act at once."
    )

    def add_arguments(self, parser):
        parser.add_argument("--json", action="store_true", dest="as_json", help="print the report as JSON")

    def handle(self, *args, as_json: bool = False, **options):
        report = jobs_sweep().as_dict()
        if as_json:
            self.stdout.write(json.dumps(report, sort_keys=True))
            return
        labels = {
            "dispatched": "handed to the worker queue",
            "still_waiting": "still waiting for the worker queue (unreachable)",
            "failed": "failed: their worker stopped",
            "finished": "finished (their last chunk was stored)",
            "called_in": "workers called into their chunks",
        }
        for key, label in labels.items():
            ids = report[key]
            self.stdout.write(f"{len(ids):>4} {label}" + (f": {', '.join(ids)}" if ids else ""))
