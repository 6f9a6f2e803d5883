from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from core.endpoints import endpoint_label
from llm.ping import ping
from llm.services import gateway_config


class Command(BaseCommand):
    help = "Check the configured LLM endpoint: model, latency, and which structured-output (JSON) modes work."

    def add_arguments(self, parser):
        parser.add_argument("--model", help="model to ask (default: LLM_MODEL)")

    def handle(self, *args, model=None, **options):
        if not settings.LLM_BASE_URL:
            raise CommandError(
                "LLM_BASE_URL is not set: the judges use the offline baseline (baseline-tfidf@1). "
                "Set LLM_BASE_URL, LLM_API_KEY and LLM_MODEL to use an endpoint."
            )
        model = model or settings.LLM_MODEL
        if not model:
            raise CommandError("no model: pass --model or set LLM_MODEL")
        report = ping(gateway_config(), model, endpoint_label(settings.LLM_BASE_URL))
        self.stdout.write(f"endpoint:  {report.endpoint}")
        if report.models is not None:
            shown = ", ".join(report.models[:10]) + (" ..." if len(report.models) > 10 else "")
            self.stdout.write(f"models:    {shown or '(none listed)'}")
        if not report.ok:
            raise CommandError(
                f"the endpoint did not answer a chat request for {model}: {report.error or report.json_modes}"
            )
        self.stdout.write(f"model:     {report.model}")
        self.stdout.write(f"latency:   {report.latency_ms:.0f} ms")
        for mode, verdict in report.json_modes.items():
            self.stdout.write(f"JSON mode {mode:<12} {verdict}")
        working = [mode for mode, verdict in report.json_modes.items() if verdict == "yes"]
        self.stdout.write(
            self.style.SUCCESS(f"JSON mode works: {'yes (' + working[0] + ')' if working else 'no'}")
            if working
            else self.style.WARNING("JSON mode works: no (replies are parsed from plain text and re-asked once)")
        )
