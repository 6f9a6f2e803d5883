from django.core.management.base import BaseCommand, CommandError

from director.management.commands._turns import describe_turn
from director.models import DirectorSession
from director.rules import UnknownCharacter
from director.sessions.services import GenerationUnavailable, TurnConflict, turn_run


class Command(BaseCommand):
    help = (
        "Run one turn of a Director session (seed 004): generate the speaker's line through the LLM endpoint, "
        "judge it, regenerate on RETRY up to the session's retries; or judge a given --text. Prints every attempt."
    )

    def add_arguments(self, parser):
        parser.add_argument("--session", required=True, type=int, metavar="ID")
        parser.add_argument("--speaker", metavar="NAME", help="yana or ayu (default: whoever's turn it is)")
        parser.add_argument("--text", help="judge this line instead of generating one")
        parser.add_argument("--language", choices=("ja", "en"), default="ja", help="of messages and suggestions")

    def handle(self, *args, session, speaker, text, language, **options):
        if not DirectorSession.objects.filter(pk=session).exists():
            known = list(DirectorSession.objects.order_by("-pk").values_list("pk", flat=True)[:10])
            hint = f"; sessions: {', '.join(map(str, known))}" if known else "; create one with director_session"
            raise CommandError(f"--session: no session {session}{hint}")
        try:
            outcome = turn_run(session_id=session, speaker=speaker, text=text, language=language)
        except UnknownCharacter as exc:
            raise CommandError(f"--speaker: {exc}") from None
        except (GenerationUnavailable, TurnConflict, ValueError) as exc:
            raise CommandError(str(exc)) from None
        describe_turn(outcome, self.stdout.write)
        if outcome.flag:
            raise CommandError(f"turn {outcome.turn}: {outcome.reason}")
