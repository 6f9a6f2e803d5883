from django.core.management.base import BaseCommand, CommandError

from annotation.audits.services import KIND_TITLES, AuditError, judge_audit_create
from annotation.models import JudgeAudit


class Command(BaseCommand):
    help = (
        "Create a judge audit from a judged Layer3 batch: a sample of the LLM judge's GV items (--kind gv) or "
        "W2WR bindings (--kind w2wr), stratified by model config and judge score, for people to rate 0-2 in "
        "the browser (each item --per-item times). Prints the strata (N_h in the batch, n_h sampled) and the "
        "seed, which reproduces the same sample."
    )

    def add_arguments(self, parser):
        parser.add_argument("batch", metavar="BATCH", help="the Layer3 batch's name (as given to import_trials)")
        parser.add_argument("--kind", required=True, help="gv (GV items) or w2wr (W2WR bindings)")
        parser.add_argument("--size", type=int, default=200, help="items in the sample (default 200)")
        parser.add_argument("--per-item", type=int, default=3, help="ratings wanted per item (default 3)")
        parser.add_argument("--seed", type=int, help="random seed (default: a random one, printed)")
        parser.add_argument("--name", help="the audit's name (default: '<batch> · GV audit · <date time>')")

    def handle(self, *args, batch, kind, size, per_item, seed, name, **options):
        try:
            audit = judge_audit_create(
                batch=batch, kind=kind.strip().lower(), size=size, per_item=per_item, seed=seed, name=name
            )
        except AuditError as exc:
            raise CommandError(f"no audit was created: {exc}") from None
        items = audit.items.count()
        self.stdout.write(
            f"{KIND_TITLES[audit.kind]} audit {audit.name!r} of Layer3 batch {audit.source_batch!r}: "
            f"{items} items sampled from {audit.population} judged units, {audit.per_item} ratings wanted per item, "
            f"seed {audit.seed}"
        )
        self.stdout.write("strata (model config, judge score): N_h in the batch -> n_h sampled, weight N_h/n_h")
        for stratum in audit.design["strata"]:
            model_config, score = stratum["stratum"]
            self.stdout.write(
                f"  {model_config}, {score}: {stratum['population']} -> {stratum['sampled']}"
                f" (weight {stratum['population'] / stratum['sampled']:.3g})"
            )
        for judge, rate in audit.design["judgeRates"].items():
            share = "useful" if audit.kind == JudgeAudit.Kind.GV else "correct"
            self.stdout.write(f"judge {judge}: {rate:.1%} {share} over the batch")
        self.stdout.write(self.style.SUCCESS(f"created audit {audit.pk}, open to raters"))
