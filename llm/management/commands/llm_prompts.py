import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from llm import prompt_library  # noqa: F401 - registers the prompts
from llm.prompts import all_prompts, version_problems

VERSIONS_FILE = Path(__file__).resolve().parents[2] / "prompt_versions.json"


def recorded_versions() -> dict[str, str]:
    return json.loads(VERSIONS_FILE.read_text(encoding="utf-8")) if VERSIONS_FILE.exists() else {}


class Command(BaseCommand):
    help = (
        "List the registered prompts; --check fails when a released version's text changed; "
        "--lock records new versions."
    )

    def add_arguments(self, parser):
        group = parser.add_mutually_exclusive_group()
        group.add_argument("--check", action="store_true")
        group.add_argument("--lock", action="store_true")

    def handle(self, *args, check=False, lock=False, **options):
        recorded = recorded_versions()
        prompts = all_prompts()
        for prompt in prompts:
            state = "recorded" if recorded.get(prompt.ref) == prompt.fingerprint else "NOT RECORDED / CHANGED"
            self.stdout.write(f"{prompt.ref:<28} {prompt.fingerprint[:12]}  {state}  {prompt.description}")
        problems = version_problems(prompts, recorded)
        changed = [p for p in prompts if p.ref in recorded and recorded[p.ref] != p.fingerprint]
        if lock:
            if changed:
                raise CommandError(
                    "released versions changed (give them a new version instead): " + ", ".join(p.ref for p in changed)
                )
            recorded.update({p.ref: p.fingerprint for p in prompts})
            VERSIONS_FILE.write_text(json.dumps(recorded, indent=2, sort_keys=True) + "\n", encoding="utf-8")
            self.stdout.write(self.style.SUCCESS(f"recorded {len(prompts)} prompt versions in {VERSIONS_FILE.name}"))
        elif check and problems:
            raise CommandError("\n".join(problems))
