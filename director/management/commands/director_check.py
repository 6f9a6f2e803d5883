from collections import Counter
from functools import partial

from django.core.management.base import BaseCommand, CommandError

from core.jsonl import InputError, Problem, ProblemLog
from core.parallel import map_chunks
from director.management.commands._files import (
    add_jobs_argument,
    checked_output,
    read_utterances,
    rules_or_error,
    write_text,
)
from director.management.commands._jobs import RuleSetChanged, check_lines, check_worker, source
from director.rules import UnknownCharacter


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
        add_jobs_argument(parser)

    def handle(self, *args, input, output, rules, language, jobs, **options):
        checked_output(output, example="verdicts.jsonl")
        rule_set = rules_or_error(rules, "--rules")
        utterances = read_utterances(input, verdicts=False)
        # Every speaker is known before any work starts (and before anything is written).
        log = ProblemLog()
        for utterance in utterances:
            try:
                rule_set.character(utterance.speaker)
            except UnknownCharacter as exc:
                log.add(Problem(utterance.file, utterance.line, "$.speaker", str(exc)))
        try:
            log.raise_if_any()
        except InputError as exc:
            raise CommandError(f"nothing was written: {exc}") from None
        counts: Counter = Counter()

        def lines():
            chunks = map_chunks(
                check_worker,
                (source(rule_set), language),
                utterances,
                jobs=jobs,
                local=partial(check_lines, rules=rule_set, language=language),
            )
            for chunk in chunks:
                for status, line in chunk:
                    counts[status] += 1
                    yield line

        try:
            write_text(output, lines())
        except RuleSetChanged as exc:
            raise CommandError(f"--rules: {exc}" + ("" if output == "-" else "; nothing was written")) from None
        summary = ", ".join(f"{status} {counts[status]}" for status in ("PASS", "WARN", "RETRY", "MODIFY"))
        destination = "standard output" if output == "-" else output
        self.stderr.write(f"{len(utterances)} utterances to {destination}: {summary} (rules {rule_set.version})")
