from django.core.management.base import BaseCommand, CommandError

from director.management.commands._turns import describe_turn
from director.rules import UnknownCharacter
from director.sessions.services import GenerationUnavailable, session_create, turn_run
from llm import services as gateway


class Command(BaseCommand):
    help = (
        "Create a Director session and run a whole dialogue of --turns turns through the LLM endpoint "
        "(seed 004), printing every attempt and verdict as it goes."
    )

    def add_arguments(self, parser):
        parser.add_argument("--scene", required=True, help="the scene, e.g. 雨の日曜日、二人で家にいる")
        parser.add_argument("--turns", type=int, default=10, help="accepted lines to reach (default 10)")
        parser.add_argument("--max-retries", type=int, default=3, help="regenerations per turn (0–10, default 3)")
        parser.add_argument("--speakers", default="yana,ayu", help="who speaks first, then second (default yana,ayu)")
        parser.add_argument("--no-review", action="store_true", help="hard rules only, no LLM review")
        parser.add_argument("--model", default="", help="the LLM model (default LLM_MODEL)")
        parser.add_argument("--title", default="")
        parser.add_argument("--language", choices=("ja", "en"), default="ja", help="of messages and suggestions")

    def handle(self, *args, scene, turns, max_retries, speakers, no_review, model, title, language, **options):
        if not gateway.configured():
            raise CommandError("generating a dialogue needs an LLM endpoint: set LLM_BASE_URL (and LLM_MODEL)")
        if not 1 <= turns <= 200:
            raise CommandError("--turns: a whole number from 1 to 200")
        try:
            session = session_create(
                scene=scene, speakers=[s.strip() for s in speakers.split(",")], title=title,
                max_retries=max_retries, llm_review=not no_review, model=model,
            )  # fmt: skip
        except (UnknownCharacter, ValueError) as exc:
            raise CommandError(f"--speakers/--max-retries: {exc}") from None
        self.stdout.write(f"session {session.pk}: {scene}")
        flagged, tries = 0, 0
        while session.state["turn"] < turns and tries < turns * 2:
            tries += 1
            try:
                outcome = turn_run(session_id=session.pk, language=language)
            except GenerationUnavailable as exc:
                raise CommandError(str(exc)) from None
            describe_turn(outcome, self.stdout.write)
            flagged += bool(outcome.flag)
            session.refresh_from_db()
            if outcome.flag == "generation_failed":
                raise CommandError(f"stopped: {outcome.reason}")
        self.stdout.write(
            f"session {session.pk}: {session.state['turn']} accepted lines, {flagged} turns flagged "
            f"(python manage.py director_turn --session {session.pk} for the next)"
        )
        if session.state["turn"] < turns:
            raise CommandError(f"reached only {session.state['turn']} of {turns} lines: too many turns were RETRY")
