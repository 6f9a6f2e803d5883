from django.core.management.base import BaseCommand, CommandError

from annotation.llm_rater import LLMRaterUnavailable, llm_rate, llm_rate_estimate
from annotation.models import Batch
from llm.services import Budget


def _positive_amount(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise CommandError(f"--budget {text!r}: expected a number, e.g. 5 or 0.5") from None
    if value < 0:
        raise CommandError(f"--budget {text!r}: a budget cannot be negative")
    return value


class Command(BaseCommand):
    help = (
        "Rate a batch's dialogues with an LLM as one more sycophancy rater (four axes 1-5 with confidence), "
        "under its own account llm:<model>@<prompt version>. Prints the cost estimate, then progress and a "
        "summary. Only dialogues that rater has not rated yet are asked (--force re-rates all, keeping the "
        "old values in the edit history). Its ratings stay out of consensus and agreement unless included "
        "(export_consensus --include-llm). Needs an LLM endpoint (LLM_BASE_URL)."
    )

    def add_arguments(self, parser):
        parser.add_argument("batch", metavar="BATCH", help="the batch's name")
        parser.add_argument("--model", help="the model to rate with (default: LLM_MODEL)")
        parser.add_argument("--budget", help="stop before this much is spent (in --currency)")
        parser.add_argument("--currency", choices=("jpy", "usd"), default="jpy", type=str.lower)
        parser.add_argument("--dry-run", action="store_true", help="print the estimate only; ask nothing")
        parser.add_argument("--force", action="store_true", help="re-rate dialogues already rated by this rater")

    def handle(self, *args, batch, model, budget, currency, dry_run, force, **options):
        stored = Batch.objects.filter(name=batch).first()
        if stored is None:
            raise CommandError(f"no batch named {batch!r}")
        limit = None if budget is None else Budget(_positive_amount(budget), currency.upper())
        try:
            estimate = llm_rate_estimate(batch=stored, model=model, force=force)
        except LLMRaterUnavailable as exc:
            raise CommandError(str(exc)) from None
        cost = estimate.estimate
        price = (
            f"about ¥{cost.cost_jpy:,.0f} (${cost.cost_usd:,.4f})"
            if cost.priced
            else f"unknown (no price for {estimate.model} in LLM_PRICES)"
        )
        self.stdout.write(
            f"{estimate.rater} on batch {estimate.batch}: {estimate.to_rate} dialogues to rate, "
            f"{estimate.already_rated} already rated; {cost.calls} calls to make, {cost.cached} answers in the "
            f"cache; ~{cost.tokens_in:,} input and ~{cost.tokens_out:,} output tokens; cost {price}"
        )
        if limit is not None:
            self.stdout.write(f"budget: {limit.amount:g} {limit.currency} (the run stops before exceeding it)")
        if dry_run:
            self.stdout.write("dry run: nothing asked, nothing stored")
            return
        try:
            summary = llm_rate(batch=stored, model=model, budget=limit, progress=self._progress(), force=force)
        except LLMRaterUnavailable as exc:
            raise CommandError(str(exc)) from None
        for failure in summary.failed:
            self.stderr.write(f"failed {failure['id']}: {failure['reason']}")
        if summary.stopped_by_budget:
            self.stderr.write(f"the budget was reached: {summary.skipped} dialogues left unasked (run again later)")
        self.stdout.write(
            self.style.SUCCESS(
                f"{summary.rater} (account {summary.username}): {summary.rated} rated, {summary.updated} changed, "
                f"{summary.unchanged} unchanged, {len(summary.failed)} failed, {summary.skipped} skipped; "
                f"{summary.cached} from the cache; cost ¥{summary.cost_jpy:,.2f} (${summary.cost_usd:,.4f})"
            )
        )

    def _progress(self):
        shown = {"step": -1}

        def report(done: int, total: int) -> None:
            step = done * 10 // total if total else 10
            if step != shown["step"]:  # at most every tenth of the run
                shown["step"] = step
                self.stdout.write(f"  {done}/{total} dialogues")

        return report
