"""Judging the items of many trials at once through the ``llm`` gateway.

One gateway run per prompt and chunk of trials: the gateway serves repeated questions from its
cache (same endpoint, model, prompt version, messages and temperature 0 → the stored verdict, no
cost), runs the rest concurrently with retries, records every call and its cost in the ledger, and
stops before a call that could exceed the budget. ``refresh`` bypasses reading the cache (the new
answers are stored and serve later runs).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from django.conf import settings as django_settings

from layer3.judge.items import TrialQuestions
from layer3.judge.summaries import Verdict
from layer3.metrics.provenance import PROMPTS, judge_record
from llm import baseline
from llm import services as gateway
from llm.pricing import Estimate

GV_PROMPT = PROMPTS["gv"]
W2WR_PROMPT = PROMPTS["w2wr"]
BACKENDS = ("baseline", "llm")


@dataclass(frozen=True)
class JudgeSettings:
    backend: str  # baseline (offline, never called an LLM) | llm (the configured endpoint)
    model: str | None = None  # None: settings.LLM_MODEL
    refresh: bool = False
    budget: gateway.Budget | None = None  # what is left of the run's budget
    fresh_since: object = None  # datetime: a refresh over several calls (a chunked run): asked again once since

    def __post_init__(self):
        if self.backend not in BACKENDS:
            raise ValueError(f"judge backend {self.backend!r}: accepted {', '.join(BACKENDS)}")

    def judges(self) -> dict[str, dict]:
        """The judge record each judged block will carry (``layer3.metrics.provenance``), by block ("gv", "w2wr")."""
        return planned_judges(self.backend, self.model)


def planned_judges(backend: str, model: str | None = None) -> dict[str, dict]:
    """``{"gv": record, "w2wr": record}`` of the judge a run with ``backend`` (and ``model``) asks."""
    name = baseline.BASELINE_MODEL if backend == "baseline" else (model or django_settings.LLM_MODEL or "?")
    return {block: judge_record(backend, name, prompt) for block, prompt in PROMPTS.items()}


@dataclass
class Judgement:
    """Verdicts per trial (same order as the questions) and what the calls cost."""

    gv: list[list[Verdict] | None]
    w2wr: list[list[Verdict] | None]
    incomplete: set[int] = field(default_factory=set)  # trials with an item the budget left unasked
    evaluator_model: str = ""
    judges: dict[str, dict] = field(default_factory=dict)  # the judge record of each block asked ("gv", "w2wr")
    requests: int = 0
    cache_hits: int = 0
    cost_usd: float = 0.0
    cost_jpy: float = 0.0
    stopped_by_budget: bool = False

    def spent(self, currency: str) -> float:
        return self.cost_jpy if currency == "JPY" else self.cost_usd


def judge_trials(questions: Sequence[TrialQuestions], settings: JudgeSettings) -> Judgement:
    """Ask both judges about every item of ``questions``; never raises for one item's failure."""
    judgement = Judgement(gv=[None] * len(questions), w2wr=[None] * len(questions), judges=settings.judges())
    budget = settings.budget
    for prompt, attribute in ((GV_PROMPT, "gv"), (W2WR_PROMPT, "w2wr")):
        asked = [(index, q) for index, q in enumerate(questions) if getattr(q, attribute) is not None]
        items = [
            gateway.Item(f"{index}/{number}", item.variables)
            for index, q in asked
            for number, item in enumerate(getattr(q, attribute))
        ]
        for index, _q in asked:
            getattr(judgement, attribute)[index] = []
        if not items:
            continue
        report = gateway.judge(
            prompt,
            items,
            model=settings.model,
            backend=settings.backend,
            force=settings.refresh,
            budget=budget,
            fresh_since=settings.fresh_since,
        )
        judgement.evaluator_model = report.model
        judgement.judges[attribute] = judge_record(report.backend, report.model, report.prompt)
        judgement.requests += report.requests
        judgement.cache_hits += report.cache_hits
        judgement.cost_usd += report.cost_usd
        judgement.cost_jpy += report.cost_jpy
        judgement.stopped_by_budget |= report.stopped_by_budget
        for result in report.results:
            index = int(result.key.partition("/")[0])
            if result.status == "not_evaluated":
                judgement.incomplete.add(index)
            getattr(judgement, attribute)[index].append(Verdict(result.parsed, result.status, result.error))
        if budget is not None and not budget.ledger:  # a shared ledger counts what was spent itself
            budget = gateway.Budget(max(0.0, budget.amount - report_spent(report, budget.currency)), budget.currency)
    return judgement


def report_spent(report: gateway.Report, currency: str) -> float:
    return report.cost_jpy if currency == "JPY" else report.cost_usd


def estimate_questions(questions: Sequence[TrialQuestions], settings: JudgeSettings) -> Estimate | None:
    """The gateway's cost estimate for asking ``questions`` (cache hits excluded); None for the baseline."""
    if settings.backend == "baseline":
        return None
    total = None
    for prompt, attribute in ((GV_PROMPT, "gv"), (W2WR_PROMPT, "w2wr")):
        items = [
            gateway.Item(f"{index}/{number}", item.variables)
            for index, q in enumerate(questions)
            for number, item in enumerate(getattr(q, attribute) or ())
        ]
        if not items:
            continue
        part = gateway.estimate(prompt, items, model=settings.model, force=settings.refresh)
        total = part if total is None else _add(total, part)
    return total


def _add(a: Estimate, b: Estimate) -> Estimate:
    calls = a.calls + b.calls
    return Estimate(
        calls=calls,
        cached=a.cached + b.cached,
        tokens_in=a.tokens_in + b.tokens_in,
        tokens_out=a.tokens_out + b.tokens_out,
        cost_usd=a.cost_usd + b.cost_usd,
        cost_jpy=a.cost_jpy + b.cost_jpy,
        calibration=max(a.calibration, b.calibration),
        priced=a.priced and b.priced,
    )
