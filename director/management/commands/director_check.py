import json
from collections import Counter

from django.core.management.base import BaseCommand, CommandError

from core.jsonl import InputError, Problem, ProblemLog
from director.io.utterances import verdict_line
from director.management.commands._files import checked_output, read_utterances, rules_or_error, write_text
from director.rules import UnknownCharacter, check_utterance


class Command(BaseCommand):
    help = (
        "Check utterances against the Director's hard rules (seed 004): one verdict line per input line "
        '{"id", "speaker", "text", "history"?}, in input order. Any bad line writes nothing.'
    )

    def add_arguments(self, parser):
        parser.add_argument("--input", required=True, metavar="FILE", help="utterances, JSONL")
        parser.add_argument("--output", required=True, metavar="FILE", help='verdicts, JSONL ("-": standard output)')
        parser.add_argument("--rules", metavar="FILE", help="a rule set file (default: the shipped rule set)")
        parser.add_argument("--language", choices=("ja", "en"), default="ja", help="of messages and suggestions")

    def handle(self, *args, input, output, rules, language, **options):
        checked_output(output, example="verdicts.jsonl")
        rule_set = rules_or_error(rules, "--rules")
        utterances = read_utterances(input, verdicts=False)
        log, lines = ProblemLog(), []
        for utterance in utterances:
            try:
                verdict = check_utterance(
                    utterance.text,
                    speaker=utterance.speaker,
                    rules=rule_set,
                    history=list(utterance.history) or None,
                    language=language,
                )
            except UnknownCharacter as exc:
                log.add(Problem(utterance.file, utterance.line, "$.speaker", str(exc)))
                continue
            lines.append(verdict_line(utterance, verdict.to_dict()))
        try:
            log.raise_if_any()
        except InputError as exc:
            raise CommandError(f"nothing was written: {exc}") from None
        write_text(output, (json.dumps(line, ensure_ascii=False) + "\n" for line in lines))
        counts = Counter(line["status"] for line in lines)
        summary = ", ".join(f"{status} {counts[status]}" for status in ("PASS", "WARN", "RETRY", "MODIFY"))
        destination = "standard output" if output == "-" else output
        self.stderr.write(f"{len(lines)} utterances to {destination}: {summary} (rules {rule_set.version})")
