import sys

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from layer3.api.requests import MAX_MODEL_NAME
from layer3.models import Layer3Run, TrialLog
from layer3.runs.console import ConsoleLogger
from layer3.runs.options import JUDGES, EvaluationOptions, parse_budget
from layer3.runs.plan import plan_warnings, run_judge_labels
from layer3.runs.services import (
    RunInFlight,
    check_judge_available,
    layer3_run_create,
    layer3_run_execute,
    run_cost_estimate,
    run_judges,
    run_plan,
)
from layer3.selectors import BatchNotFound, batch_get


class Command(BaseCommand):
    help = (
        "Compute the Layer3 metrics of a batch's trials (seed 002): graph complexity, widget diversity, W2WR "
        "types, and with a judge the GV relevance and W2WR semantic correctness. A run adds what each trial "
        "lacks and erases nothing: metrics a trial has are kept unless --force, which recomputes only the "
        "metrics asked for (a judged metric only with --judge baseline|llm)."
    )

    def add_arguments(self, parser):
        parser.add_argument("batch", metavar="BATCH", help="batch name (as given to import_trials) or id")
        parser.add_argument(
            "--judge",
            choices=JUDGES,
            default="none",
            help="none: the non-LLM metrics only (default); baseline: the offline lexical judge; llm: the "
            "configured LLM endpoint (LLM_BASE_URL)",
        )
        parser.add_argument("--model", default="", help="the judge's model (default: LLM_MODEL)")
        parser.add_argument(
            "--force", action="store_true", help="recompute the metrics asked for where a trial already has them"
        )
        parser.add_argument(
            "--refresh-judge", action="store_true", help="ask the judge again instead of using cached verdicts"
        )
        parser.add_argument("--model-configs", default="", help="comma-separated model configs (default: all)")
        parser.add_argument("--gv", dest="gv", action="store_true", default=True, help="judge GV relevance (default)")
        parser.add_argument("--no-gv", dest="gv", action="store_false", help="do not judge GV relevance")
        parser.add_argument("--w2wr-semantic", action="store_true", help="judge W2WR semantic correctness")
        parser.add_argument("--budget", help="stop the judge before this is spent, e.g. 500JPY or 3USD")
        parser.add_argument(
            "--yes",
            action="store_true",
            help="do not ask before spending on LLM calls or replacing judged results with another judge's",
        )

    def handle(self, *args, **opts):
        try:
            batch = batch_get(opts["batch"])
        except BatchNotFound as exc:
            raise CommandError(str(exc)) from None
        options = self._options(batch, opts)
        try:
            check_judge_available(options)
            estimate = run_cost_estimate(batch=batch, options=options)
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        plan = run_plan(batch=batch, options=options)
        for warning in plan_warnings(plan, run_judge_labels(run_judges(options))):
            self.stdout.write(self.style.WARNING(f"warning: {warning}"))
        if estimate is not None:
            self._confirm(estimate, options, opts["yes"])
        elif plan.other_judge:
            self._ask("Replace them?", opts["yes"])
        try:
            run = layer3_run_create(batch=batch, options=options)
        except RunInFlight as exc:
            raise CommandError(f"{exc}; wait for it to finish (or cancel its job) and run again") from None
        except ValueError as exc:
            raise CommandError(str(exc)) from None

        now = timezone.localtime()
        logger = ConsoleLogger(
            stdout=self.stdout, log_dir=settings.VAR_DIR / "logs" / "layer3", now=now, color=not opts["no_color"]
        )
        path = logger.open(batch.name)
        Layer3Run.objects.filter(pk=run.pk).update(log_file=str(path))
        logger.header(run, options=options, estimate=estimate)
        try:
            run = layer3_run_execute(run=run, observer=logger)
        except Exception as exc:
            logger.log(f"run {run.pk} failed: {type(exc).__name__}: {exc}")
            logger.close()
            raise CommandError(f"the run failed: {exc} (log: {path})") from exc
        logger.close()

    def _options(self, batch, opts) -> EvaluationOptions:
        configs = tuple(c.strip() for c in opts["model_configs"].split(",") if c.strip())
        if configs:
            known = set(TrialLog.objects.filter(batch=batch).values_list("model_config", flat=True).distinct())
            unknown = [c for c in configs if c not in known]
            if unknown:
                raise CommandError(
                    f"--model-configs: batch {batch.name} has no model config {', '.join(unknown)}; "
                    f"it has {', '.join(sorted(known)) or 'no trials'}"
                )
        model = opts["model"]
        if model and (len(model) > MAX_MODEL_NAME or not model.isprintable()):
            raise CommandError(f"--model: expected 1 to {MAX_MODEL_NAME} printable characters, e.g. gpt-4o-mini")
        budget, currency = None, "JPY"
        if opts["budget"]:
            try:
                budget, currency = parse_budget(opts["budget"])
            except ValueError as exc:
                raise CommandError(f"--budget: {exc}") from None
        if opts["judge"] == "none" and (opts["w2wr_semantic"] or opts["budget"] or opts["refresh_judge"]):
            raise CommandError("--w2wr-semantic, --budget and --refresh-judge need a judge: add --judge baseline|llm")
        return EvaluationOptions(
            evaluate_gv=opts["gv"],
            evaluate_w2wr_semantic=opts["w2wr_semantic"],
            judge=opts["judge"],
            llm_model=opts["model"],
            force=opts["force"],
            refresh_judge=opts["refresh_judge"],
            model_configs=configs,
            budget=budget,
            budget_currency=currency,
        )

    def _confirm(self, estimate, options, yes: bool) -> None:
        model = options.llm_model or settings.LLM_MODEL
        cost = (
            f"about ¥{estimate.cost_jpy:,.0f} (${estimate.cost_usd:,.2f})"
            if estimate.priced
            else f"unknown (no price for {model} in LLM_PRICES)"
        )
        self.stdout.write(
            f"LLM judge ({model}): {estimate.calls} calls to make, {estimate.cached} answers in the cache; "
            f"~{estimate.tokens_in:,} input and ~{estimate.tokens_out:,} output tokens; cost {cost}"
        )
        if options.budget is not None:
            self.stdout.write(
                f"budget: {options.budget:g} {options.budget_currency} (the run stops before exceeding it)"
            )
        if estimate.calls == 0:
            return
        self._ask("Start the run?", yes)

    def _ask(self, question: str, yes: bool) -> None:
        if yes:
            return
        if not sys.stdin.isatty():
            raise CommandError("not started: confirm on a terminal, or pass --yes (scripts, cron)")
        answer = input(f"{question} [y/N] ").strip().lower()
        if answer not in ("y", "yes"):
            raise CommandError("not started (answered no)")
