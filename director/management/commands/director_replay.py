from functools import partial

from django.core.management.base import BaseCommand, CommandError

from core.parallel import map_chunks
from director.management.commands._files import (
    add_jobs_argument,
    checked_output,
    read_utterances,
    rules_or_error,
    write_text,
)
from director.management.commands._jobs import RuleSetChanged, replay_verdicts, replay_worker, source
from director.replay import ReplayLine, RuleSide, changed, iter_report
from director.rules import UnknownCharacter
from director.rules.diff import settings_diff


class Command(BaseCommand):
    help = (
        "How the Director's verdicts change under another rule set: the changed settings, statuses, flags per "
        "rule, the transition table and every changed utterance, as Markdown. The baseline is --baseline RULES, "
        "else the verdicts stored in the input (director_check output), else the shipped rule set."
    )

    def add_arguments(self, parser):
        parser.add_argument("--input", required=True, metavar="FILE", help="utterances or verdicts, JSONL")
        parser.add_argument("--rules", required=True, metavar="NEW", help="the rule set to try")
        parser.add_argument("--baseline", metavar="OLD", help="the rule set to compare with")
        parser.add_argument("--output", default="-", metavar="FILE", help="the report (default: standard output)")
        parser.add_argument("--language", choices=("ja", "en"), default="ja")
        add_jobs_argument(parser)

    def handle(self, *args, input, rules, baseline, output, language, jobs, **options):
        checked_output(output, example="report.md")
        new_rules = rules_or_error(rules, "--rules")
        utterances = read_utterances(input, verdicts=True)
        stored = [u for u in utterances if u.verdict is not None]
        if baseline is None and stored and len(stored) != len(utterances):
            first = next(u for u in utterances if u.verdict is None)
            raise CommandError(
                f"{first.file}:{first.line}: this line has no verdict while others have: give every line its verdict, "
                "or pass --baseline RULES to compute the baseline for all"
            )
        old_rules = rules_or_error(baseline, "--baseline") if baseline or not stored else None
        # Every speaker is known to both rule sets before any work starts.
        judging = [rule_set for rule_set in (old_rules, new_rules) if rule_set is not None]
        for utterance in utterances:
            for rule_set in judging:
                try:
                    rule_set.character(utterance.speaker)
                except UnknownCharacter as exc:
                    raise CommandError(
                        f"{utterance.file}:{utterance.line}: $.speaker: {exc}; nothing was written"
                    ) from None

        chunks = map_chunks(
            replay_worker,
            (source(new_rules), source(old_rules) if old_rules is not None else None, language),
            utterances,
            jobs=jobs,
            local=partial(replay_verdicts, new=new_rules, old=old_rules, language=language),
        )
        try:
            verdicts = [pair for chunk in chunks for pair in chunk]
        except RuleSetChanged as exc:
            raise CommandError(f"{exc}; nothing was written") from None
        lines = [
            ReplayLine(u.id, u.speaker, u.text, old if old is not None else u.verdict, new)
            for u, (old, new) in zip(utterances, verdicts, strict=True)
        ]
        if old_rules is not None:
            label = baseline or "the shipped rule set"
            old_side = RuleSide(label, old_rules.version, old_rules.content_hash)
        else:
            versions = sorted({str(u.verdict.get("rulesVersion", "?")) for u in stored})
            hashes = sorted({str(u.verdict.get("rulesHash", "")) for u in stored})
            old_side = RuleSide(
                f"the verdicts stored in {input}",
                versions[0] if len(versions) == 1 else "mixed: " + ", ".join(versions),
                hashes[0] if len(hashes) == 1 else "mixed",
            )
        new_side = RuleSide(rules, new_rules.version, new_rules.content_hash)
        settings = settings_diff(old_rules, new_rules) if old_rules is not None else None
        write_text(output, iter_report(lines, baseline=old_side, new=new_side, settings=settings))
        if output != "-":
            count = sum(1 for line in lines if changed(line))
            differing = "" if settings is None else f"; {len(settings)} settings differ"
            self.stderr.write(f"wrote {output}: {len(lines)} utterances compared, {count} changed{differing}")
