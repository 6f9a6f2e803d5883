"""Writes for Layer3 runs: start a run, execute it chunk by chunk, refresh a batch's results.

A run adds and never erases (``layer3.runs.plan``): each target trial gets the metric blocks asked for
that it lacks; a block it has is kept unless re-evaluation (``force``) is asked for, and then only the
blocks asked for are recomputed; blocks not asked for are never touched. Resumable (seed 002 §6,
§11.2): each chunk's records and the run's counters are written in one transaction, so a run that
dies loses at most the chunk in flight, and a rerun computes what is still missing. Judge calls of the
lost chunk were stored by the gateway as they finished and are served from its cache on the rerun, so
none is paid twice; the batch figures are recomputed from the stored trials, so none is counted twice.
Targets are the batch's trials at stage 3 (the stage the seed's partial index
``trial_layer3_unevaluated`` serves), of the chosen model configs.
"""

from __future__ import annotations

import contextlib
from contextlib import nullcontext
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from core.bulk import bulk_update_json
from core.jobs import JobCancelled
from core.jsonl import gc_paused
from layer3.judge.services import JudgeSettings, judge_trials, planned_judges
from layer3.metrics.batch import RESULTS_VERSION, aggregate_by_model
from layer3.metrics.widget_types import available_types
from layer3.models import Batch, Layer3Run, Layer3RunProblem, TrialLog
from layer3.runs.chunk import ChunkOutcome, TrialRow, evaluate_chunk, progress_metrics
from layer3.runs.options import TARGET_STAGE, EvaluationOptions
from layer3.runs.plan import PlanCounts, count_plan, plan_trial, requested_blocks, run_judge_labels
from layer3.runs.reads import grouped_states, metric_summaries, trial_states, without_details
from layer3.runs.snapshots import SNAPSHOT_STATUSES, run_results_snapshot
from layer3.statistics import compare_model_configs
from llm import budgets
from llm import services as gateway

IN_MEMORY_SUMMARIES = 50_000  # a run over at most this many trials aggregates what it computed, unread
STALE_AFTER = timedelta(minutes=10)  # a running run without progress for this long has died


class RunInFlight(Exception):
    """Another run of the batch is queued or running."""

    def __init__(self, run: Layer3Run) -> None:
        self.run = run
        super().__init__(f"run {run.pk} of batch {run.batch} is {run.status} (started {run.created_at:%Y-%m-%d %H:%M})")


class RunObserver:
    """Hooks a caller passes to ``layer3_run_execute``: the command's console, the job's progress."""

    def started(self, run: Layer3Run, *, pending: int, not_targets: int, plan: PlanCounts | None = None) -> None: ...

    def chunk(self, run: Layer3Run, outcome: ChunkOutcome) -> None: ...

    def finished(self, run: Layer3Run) -> None: ...


def targets(batch: Batch, options: EvaluationOptions):
    trials = TrialLog.objects.filter(batch=batch, stage=TARGET_STAGE)
    if options.model_configs:
        trials = trials.filter(model_config__in=options.model_configs)
    return trials


def batch_catalogue(batch: Batch) -> tuple[str, ...]:
    """The catalogue of ``batch`` (its own, or the configured default for a batch without one)."""
    return tuple(batch.widget_catalogue or settings.LAYER3_WIDGET_CATALOGUE)


def batch_widget_types(batch: Batch) -> tuple[str, ...]:
    """The widget types of ``batch``: its catalogue and the types its trials use outside it (its one ``|W|``)."""
    return available_types(batch_catalogue(batch), batch.widget_types_seen)


def run_judges(options: EvaluationOptions) -> dict[str, dict]:
    """The judge record each judged block gets from a run with ``options`` ({} without a judge)."""
    if not options.uses_judge:
        return {}
    return planned_judges(options.judge, options.llm_model or None)


def run_plan(*, batch: Batch, options: EvaluationOptions) -> PlanCounts:
    """What a run with ``options`` would compute, keep and replace, per metric block (one grouped query)."""
    labels = run_judge_labels(run_judges(options))
    return count_plan(grouped_states(targets(batch, options)), options, labels)


def check_judge_available(options: EvaluationOptions) -> None:
    """Refuse an LLM-judged run that cannot call an LLM, before anything is stored."""
    if options.uses_judge and options.judge == "llm":
        if not gateway.configured():
            raise ValueError("--judge llm needs an endpoint: set LLM_BASE_URL (or use --judge baseline)")
        if not (options.llm_model or settings.LLM_MODEL):
            raise ValueError("--judge llm needs a model: pass --model or set LLM_MODEL")


def runs_in_flight(batch: Batch):
    """Queued or running runs of ``batch`` that are alive (recent progress, or queued recently)."""
    alive_since = timezone.now() - STALE_AFTER
    return Layer3Run.objects.filter(batch=batch, status__in=Layer3Run.IN_FLIGHT).exclude(
        status=Layer3Run.Status.RUNNING, heartbeat_at__lt=alive_since
    )


@transaction.atomic
def layer3_run_create(*, batch: Batch, options: EvaluationOptions, user=None, enqueue: bool = False) -> Layer3Run:
    """A new run of ``batch`` (queued for a worker when ``enqueue``); ``RunInFlight`` if one is alive."""
    check_judge_available(options)
    Batch.objects.select_for_update().filter(pk=batch.pk).first()  # one starter at a time per batch
    running = runs_in_flight(batch).first()
    if running is not None:
        raise RunInFlight(running)
    Layer3Run.objects.filter(batch=batch, status__in=Layer3Run.IN_FLIGHT).update(
        status=Layer3Run.Status.INTERRUPTED,
        finished_at=timezone.now(),
        error="no progress: the process running it ended",
    )
    run = Layer3Run.objects.create(batch=batch, options=options.as_request(), created_by=user)
    if enqueue:
        from core.services import job_enqueue

        job = job_enqueue(kind="layer3.evaluate", params={"run_id": run.pk}, user=user)
        Layer3Run.objects.filter(pk=run.pk).update(job_id=job.pk)
        run.job_id = job.pk
    return run


def budget_key(run: Layer3Run) -> str:
    """The ``llm.LLMBudget`` a run's judge calls reserve from, whichever worker makes them."""
    return f"layer3.run:{run.pk}"


def layer3_run_execute(*, run: Layer3Run, observer: RunObserver | None = None) -> Layer3Run:
    """Evaluate the run's pending trials chunk by chunk in this process, then refresh the batch's results.

    Per-trial problems (data that is not a UISpec, a judge call that failed) are recorded on the
    trial and counted; anything else fails the run (recorded, then raised). A worker splits the same
    chunks over every worker instead (``layer3.runs.job_handlers``).
    """
    observer = observer or RunObserver()
    run = layer3_run_claim(run)
    options = EvaluationOptions.from_request(run.options)
    try:
        _execute(run, options, observer)
    except JobCancelled:
        layer3_run_finish(run, Layer3Run.Status.CANCELLED)
        raise
    except Exception as exc:
        layer3_run_finish(run, Layer3Run.Status.FAILED, error=f"{type(exc).__name__}: {exc}")
        raise
    observer.finished(run)
    return run


def layer3_run_claim(run: Layer3Run) -> Layer3Run:
    """Mark the queued ``run`` running (``ValueError`` if it is not queued: another worker has it)."""
    claimed = Layer3Run.objects.filter(pk=run.pk, status=Layer3Run.Status.QUEUED).update(
        status=Layer3Run.Status.RUNNING, started_at=timezone.now(), heartbeat_at=timezone.now()
    )
    if not claimed:
        raise ValueError(f"run {run.pk} is {run.status}, not queued")
    run.refresh_from_db()
    return run


@dataclass
class Pending:
    """What a started run still has to compute: ``(trial pk, blocks, has a stored record)`` in id order."""

    trials: list[tuple[int, tuple[str, ...], bool]]
    plan: PlanCounts
    not_targets: int
    uses_judge: bool

    @property
    def chunk_size(self) -> int:
        return settings.LAYER3_JUDGED_CHUNK_SIZE if self.uses_judge else settings.LAYER3_CHUNK_SIZE

    def parts(self) -> list[list[tuple[int, tuple[str, ...], bool]]]:
        size = self.chunk_size
        return [self.trials[start : start + size] for start in range(0, len(self.trials), size)]


def layer3_run_plan(run: Layer3Run, options: EvaluationOptions) -> Pending:
    """Plan a claimed run: its pending trials, stored counters and plan, and its budget's ledger."""
    check_judge_available(options)
    batch = run.batch
    blocks = requested_blocks(options)
    labels = run_judge_labels(run_judges(options))
    states = trial_states(targets(batch, options))
    plan = count_plan(((config, state, 1) for _pk, config, state in states), options, labels)
    plans: dict = {}  # a batch's trials hold a handful of distinct states: each is planned once
    pending: list[tuple[int, tuple[str, ...], bool]] = []
    for pk, _config, state in states:
        compute = plans.get(state)
        if compute is None:
            compute = plans[state] = plan_trial(state, blocks, force=options.force, judges=labels).compute
        if compute:
            pending.append((pk, compute, state.evaluated))
    run.total_targets = len(states)
    run.skipped_count = run.total_targets - len(pending)
    run.plan = plan.as_dict()
    Layer3Run.objects.filter(pk=run.pk).update(
        total_targets=run.total_targets, skipped_count=run.skipped_count, plan=run.plan
    )
    if options.uses_judge and options.budget is not None:
        budgets.shared_budget(budget_key(run), options.budget, options.budget_currency)
    not_targets = TrialLog.objects.filter(batch=batch).count() - run.total_targets
    uses_judge = bool(labels) and any(block in labels for _pk, compute, _stored in pending for block in compute)
    return Pending(pending, plan, not_targets, uses_judge)


def _execute(run: Layer3Run, options: EvaluationOptions, observer: RunObserver) -> None:
    pending = layer3_run_plan(run, options)
    observer.started(run, pending=len(pending.trials), not_targets=pending.not_targets, plan=pending.plan)
    # What this run wrote, for the batch figures without reading it back (a whole batch's run)
    computed: dict[int, tuple[str, dict]] | None = {} if len(pending.trials) <= IN_MEMORY_SUMMARIES else None
    for part in pending.parts():
        outcome = layer3_run_evaluate_part(run, options, part, uses_judge=pending.uses_judge)
        store_chunk(run, outcome)
        if computed is not None:
            with gc_paused():  # summaries of every trial so far stay alive: the collector would scan them all
                configs = outcome.model_configs
                computed.update((pk, (configs[pk], without_details(metrics))) for pk, metrics in outcome.written)
        observer.chunk(run, outcome)  # after a budget stop the rest still gets its automatic blocks
    whole_batch = (
        computed is not None and len(computed) == TrialLog.objects.filter(batch=run.batch, stage=TARGET_STAGE).count()
    )
    layer3_run_complete(run, summaries=list(computed.values()) if whole_batch else None)


def layer3_run_evaluate_part(
    run: Layer3Run, options: EvaluationOptions, part: list[tuple[int, tuple[str, ...], bool]], *, uses_judge: bool
) -> ChunkOutcome:
    """Compute one chunk of a run's pending trials (nothing stored but the judge's ledger; see ``store_chunk``)."""
    rows = _chunk_rows(run.batch, part)
    judge = None
    if uses_judge:
        budget = None
        if options.budget is not None:
            budget = gateway.Budget(options.budget, options.budget_currency, ledger=budget_key(run))
        # A refresh asks each question again once in this run, whichever chunk or worker meets it first.
        judge_settings = JudgeSettings(
            backend=options.judge, model=options.llm_model or None, budget=budget,
            fresh_since=run.started_at if options.refresh_judge else None,
        )  # fmt: skip

        def judge(questions):
            return judge_trials(questions, judge_settings)

    # The cycle collector is paused while rows are decoded and metrics built: with 10,000 specs and
    # their metrics alive its scans cost more than the metrics (a chunk of 10,000: 0.63 s, 0.27 s
    # paused). Nothing built there forms a cycle. The judge's HTTP client does build cycles, so the
    # collector stays on for judged chunks.
    # Read for every chunk: an import that adds a widget type to the batch changes its |W|.
    batch = Batch.objects.only("widget_catalogue", "widget_types_seen").get(pk=run.batch_id)
    catalogue, types = batch_catalogue(batch), batch_widget_types(batch)
    with nullcontext() if uses_judge else gc_paused():
        outcome = evaluate_chunk(rows, now=timezone.now(), judge=judge, catalogue=catalogue, available_types=types)
    outcome.model_configs = {row.pk: row.model_config for row in rows}
    return outcome


def layer3_run_complete(run: Layer3Run, *, summaries: list[tuple[str, dict | None]] | None = None) -> Layer3Run:
    """End a run whose chunks are all stored: what the budget left for later, the batch figures, the status."""
    stopped = options_budget_spent(run)
    if stopped:
        run.refresh_from_db(fields=["evaluated_count", "error_count"])
        run.unjudged_count = run.total_targets - run.skipped_count - run.evaluated_count - run.error_count
    batch_results_refresh(batch=run.batch, summaries=summaries)
    layer3_run_finish(run, Layer3Run.Status.STOPPED_BY_BUDGET if stopped else Layer3Run.Status.SUCCEEDED)
    return run


def options_budget_spent(run: Layer3Run) -> bool:
    """True if the run's budget refused a call (its remaining trials are left for a later run)."""
    return budgets.exhausted(budget_key(run))


def _chunk_rows(batch: Batch, part: list[tuple[int, tuple[str, ...], bool]]) -> list[TrialRow]:
    """The trials of one chunk with what the run needs of them: one range scan by id (the pending ids are
    sorted), and the stored records only when some trial of the chunk has one to merge into."""
    wanted = {pk: compute for pk, compute, _stored in part}
    fields = ["pk", "external_id", "model_config", "input_text", "generated_data"]
    stored = any(has_record for _pk, _compute, has_record in part)
    if stored:
        fields.append("layer3_metrics")
    trials = TrialLog.objects.filter(batch=batch, pk__gte=part[0][0], pk__lte=part[-1][0]).order_by("pk")
    with gc_paused():
        return [
            TrialRow(*values, blocks=wanted[values[0]]) if stored else TrialRow(*values, None, wanted[values[0]])
            for values in trials.values_list(*fields)
            if values[0] in wanted
        ]


def store_chunk(run: Layer3Run, outcome: ChunkOutcome) -> None:
    judgement = outcome.judgement
    requests = judgement.requests if judgement is not None else 0
    hits = judgement.cache_hits if judgement is not None else 0
    usd = judgement.cost_usd if judgement is not None else 0.0
    jpy = judgement.cost_jpy if judgement is not None else 0.0
    failed = outcome.failed_items
    problems = [
        Layer3RunProblem(
            run_id=run.pk,
            trial_id=problem.pk,
            external_id=problem.external_id[:200],
            kind=problem.kind,
            path=problem.path[:500],
            message=problem.message,
            items=problem.items,
        )
        for problem in (*outcome.errors, *outcome.judge_failures)
    ]
    with transaction.atomic():
        bulk_update_json(TrialLog, "layer3_metrics", outcome.written)
        if problems:
            Layer3RunProblem.objects.bulk_create(problems)
        Layer3Run.objects.filter(pk=run.pk).update(
            evaluated_count=F("evaluated_count") + outcome.evaluated,
            error_count=F("error_count") + len(outcome.errors),
            unjudged_count=F("unjudged_count") + outcome.unjudged,
            judge_failures=F("judge_failures") + failed,
            judge_requests=F("judge_requests") + requests,
            judge_cache_hits=F("judge_cache_hits") + hits,
            cost_usd=F("cost_usd") + usd,
            cost_jpy=F("cost_jpy") + jpy,
            current_trial=outcome.last_trial[:200],
            last_metrics=progress_metrics(outcome.last_metrics),
            heartbeat_at=timezone.now(),
        )
    run.evaluated_count += outcome.evaluated
    run.error_count += len(outcome.errors)
    run.unjudged_count += outcome.unjudged
    run.judge_failures += failed
    run.judge_requests += requests
    run.judge_cache_hits += hits
    run.cost_usd += usd
    run.cost_jpy += jpy
    run.current_trial = outcome.last_trial[:200]
    run.last_metrics = progress_metrics(outcome.last_metrics)


def layer3_run_cancel(*, run: Layer3Run) -> Layer3Run:
    """Stop ``run``: a queued run is cancelled at once (its job never starts it), a running one at its next chunk.

    Nothing evaluated is lost: every stored chunk stays, and the next run continues with the rest.
    """
    from core.models import Job
    from core.services import job_cancel

    job = Job.objects.filter(pk=run.job_id).first() if run.job_id else None
    if job is not None:
        job_cancel(job=job)
    Layer3Run.objects.filter(pk=run.pk, status=Layer3Run.Status.QUEUED).update(
        status=Layer3Run.Status.CANCELLED, finished_at=timezone.now(), elapsed_ms=0
    )
    run.refresh_from_db()
    return run


def layer3_run_finish(run: Layer3Run, status: str, *, error: str = "") -> None:
    """Record the run's end; a run that did not succeed refreshes the batch figures with what it stored."""
    if status in (Layer3Run.Status.CANCELLED, Layer3Run.Status.FAILED):
        _refresh_quietly(run.batch)
    run.status = status
    run.error = error
    run.finished_at = timezone.now()
    run.elapsed_ms = round((run.finished_at - (run.started_at or run.finished_at)).total_seconds() * 1000)
    Layer3Run.objects.filter(pk=run.pk).update(
        status=status,
        error=error,
        finished_at=run.finished_at,
        elapsed_ms=run.elapsed_ms,
        unjudged_count=run.unjudged_count,
    )
    if status in SNAPSHOT_STATUSES:
        run_results_snapshot(run)


def _refresh_quietly(batch: Batch) -> None:
    with contextlib.suppress(Exception):
        batch_results_refresh(batch=batch)


def batch_results_refresh(*, batch: Batch, summaries: list[tuple[str, dict | None]] | None = None) -> Batch:
    """Recompute and store the batch's ``layer3_results`` (overall), per model config and statistics.

    ``summaries``: every target trial's ``(model config, metrics without the per-item lists)`` when
    the caller has them all (a run that evaluated the whole batch); otherwise they are read.
    """
    with gc_paused():
        pairs = summaries
        if pairs is None:
            pairs = metric_summaries(TrialLog.objects.filter(batch=batch, stage=TARGET_STAGE))
    overall, by_model = aggregate_by_model(pairs)
    grouped: dict[str, list[dict]] = {}
    for model_config, metrics in pairs:
        if metrics is not None and "error" not in metrics:
            grouped.setdefault(model_config, []).append(metrics)
    evaluated = any(metrics is not None for _config, metrics in pairs)
    batch.layer3_results = overall if evaluated else None
    batch.layer3_by_model = by_model if evaluated else None
    batch.layer3_statistics = compare_model_configs(grouped) if evaluated else None
    batch.layer3_evaluated_at = timezone.now() if evaluated else None
    batch.results_version = RESULTS_VERSION
    batch.save(
        update_fields=[
            "layer3_results",
            "layer3_by_model",
            "layer3_statistics",
            "layer3_evaluated_at",
            "results_version",
        ]
    )
    return batch


def run_cost_estimate(*, batch: Batch, options: EvaluationOptions):
    """The gateway's estimate for the judge calls a run would make (cache hits excluded); None without an LLM judge.

    Only the judged blocks the plan computes are asked about: a trial whose GV is kept costs nothing.
    """
    if not (options.uses_judge and options.judge == "llm"):
        return None
    from layer3.judge.items import TrialQuestions, gv_items, w2wr_items
    from layer3.judge.services import estimate_questions
    from layer3.metrics import UISpecError, parse_ui_spec
    from layer3.runs.plan import GV, W2WR

    blocks = requested_blocks(options)
    labels = run_judge_labels(run_judges(options))
    wanted, plans = {}, {}
    for pk, _config, state in trial_states(targets(batch, options)):
        if state not in plans:
            plans[state] = plan_trial(state, blocks, force=options.force, judges=labels).compute
        if GV in plans[state] or W2WR in plans[state]:
            wanted[pk] = plans[state]
    questions = []
    pks = list(wanted)
    for start in range(0, len(pks), 2000):  # a bounded IN list: SQLite caps the parameters of a statement
        rows = TrialLog.objects.filter(pk__in=pks[start : start + 2000]).values_list(
            "pk", "input_text", "generated_data"
        )
        for pk, concern, data in rows:
            try:
                spec = parse_ui_spec(data)
            except UISpecError:
                continue
            compute = wanted[pk]
            questions.append(
                TrialQuestions(
                    gv=gv_items(spec, concern) if GV in compute else None,
                    w2wr=w2wr_items(spec, concern) if W2WR in compute else None,
                )
            )
    settings_ = JudgeSettings(backend="llm", model=options.llm_model or None, refresh=options.refresh_judge)
    return estimate_questions(questions, settings_)
