"""The run's console and log file (seed 002 §6.2 ``Layer3EvaluationLogger``): header, progress, summary.

The console gets a rich progress bar and tables; the log file
(``var/logs/layer3/<batch>-<YYYYmmdd-HHMMSS>.log``) gets the same content as plain text with
timestamps, every per-trial error included, so a run can be audited after the terminal is gone.
"""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path

from django.conf import settings
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from layer3.runs.options import TARGET_STAGE
from layer3.runs.services import RunObserver

MAX_ERRORS_SHOWN = 20  # on the console; the log file has all

SUMMARY_COLUMNS = (
    ("GV_CR", "gvContentRelevance", "avgScore", "{:.3f}"),
    ("GV_UR", "gvContentRelevance", "usefulRate", "{:.1%}"),
    ("W2WR_FR", "w2wrTypeDistribution", "flowRate", "{:.1%}"),
    ("W2WR_MR", "w2wrTypeDistribution", "metaRate", "{:.1%}"),
    ("W2WR_SYR", "w2wrTypeDistribution", "syncRate", "{:.1%}"),
    ("W2WR_SC", "w2wrSemanticCorrectness", "avgScore", "{:.3f}"),
    ("W2WR_CR", "w2wrSemanticCorrectness", "correctnessRate", "{:.1%}"),
    ("WS_ENT", "widgetDiversity", "avgEntropy", "{:.3f}"),
    ("GC_NC", "graphComplexity", "avgNodeCount", "{:.2f}"),
    ("GC_EC", "graphComplexity", "avgEdgeCount", "{:.2f}"),
    ("GC_DEN", "graphComplexity", "avgDensity", "{:.3f}"),
)


BLOCK_NAMES = {
    "graphComplexity": "graph complexity",
    "widgetDiversity": "widget diversity",
    "w2wrTypeDistribution": "W2WR types",
    "generatedValueRelevance": "GV relevance (judged)",
    "w2wrSemanticCorrectness": "W2WR semantic correctness (judged)",
}


def _trials(n: int) -> str:
    return "trial" if n == 1 else "trials"


def plan_lines(plan) -> list[str]:
    """Per metric block: how many trials get it computed, kept, replaced or retried, and who judged what is kept."""
    lines = []
    for block, verbs in plan.blocks.items():
        parts = [f"compute {verbs['compute']}", f"keep {verbs['keep']}", f"replace {verbs['replace']}"]
        if verbs["retry"]:
            parts.append(f"retry failed items in {verbs['retry']}")
        kept = plan.kept_judges.get(block)
        if kept:
            parts.append("kept judged by " + ", ".join(f"{label} ({n})" for label, n in sorted(kept.items())))
        lines.append(f"  {BLOCK_NAMES.get(block, block)}: " + "; ".join(parts))
    if plan.errors_skipped:
        lines.append(
            f"  {plan.errors_skipped} {_trials(plan.errors_skipped)} whose data is not a UISpec: skipped "
            "(--force retries them)"
        )
    return lines


def judge_lines(batch) -> list[str]:
    """Who judged the judged figures of each model config (they are never pooled across judges)."""
    lines = []
    for key, name in (("gv", "GV"), ("w2wr", "W2WR semantic")):
        by_label: dict[str, list[str]] = {}
        for entry in batch.layer3_by_model or []:
            block = entry["layer3"]["gvContentRelevance" if key == "gv" else "w2wrSemanticCorrectness"]
            for label in block.get("judges") or ():
                by_label.setdefault(label, []).append(entry["modelConfig"])
        if by_label:
            lines.append(
                f"{name} judged by "
                + "; ".join(f"{label} ({', '.join(configs)})" for label, configs in sorted(by_label.items()))
            )
    return lines


def log_path(log_dir: Path, batch_name: str, now: datetime) -> Path:
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", batch_name).strip("._") or "batch"
    return log_dir / f"{safe}-{now:%Y%m%d-%H%M%S}.log"


def summary_rows(run) -> list[list[str]]:
    """One row per model config and an overall row: label, trials, evaluated, errors, the eleven figures."""
    batch = run.batch
    rows = []
    for entry in batch.layer3_by_model or []:
        rows.append(
            [
                entry["modelConfig"],
                str(entry["trialCount"]),
                str(entry["evaluatedCount"]),
                str(entry["errorCount"]),
                *_figures(entry["layer3"]),
            ]
        )
    if batch.layer3_results is not None:
        by_model = batch.layer3_by_model or []
        rows.append(
            [
                "overall",
                str(sum(e["trialCount"] for e in by_model)),
                str(sum(e["evaluatedCount"] for e in by_model)),
                str(sum(e["errorCount"] for e in by_model)),
                *_figures(batch.layer3_results),
            ]
        )
    return rows


def _figures(results: dict) -> list[str]:
    out = []
    for _name, block, key, fmt in SUMMARY_COLUMNS:
        value = results[block][key]
        out.append("—" if value is None else fmt.format(value))
    return out


class ConsoleLogger(RunObserver):
    def __init__(self, *, stdout, log_dir: Path, now: datetime, color: bool = True) -> None:
        self.console = Console(file=stdout, highlight=False, no_color=not color, width=140)
        self.log_dir = log_dir
        self.now = now
        self.path: Path | None = None
        self._file = None
        self._progress: Progress | None = None
        self._task = None
        self._errors_shown = 0

    # -- the log file -------------------------------------------------------------------------
    def open(self, batch_name: str) -> Path:
        self.log_dir.mkdir(parents=True, exist_ok=True)
        self.path = log_path(self.log_dir, batch_name, self.now)
        self._file = self.path.open("a", encoding="utf-8")
        return self.path

    def log(self, text: str) -> None:
        if self._file is not None:
            stamp = datetime.now().astimezone().isoformat(timespec="seconds")
            for line in text.splitlines() or [""]:
                self._file.write(f"{stamp} {line}\n")
            self._file.flush()

    def say(self, text: str, style: str | None = None) -> None:
        self.console.print(text, style=style, markup=False)
        self.log(text)

    def close(self) -> None:
        if self._progress is not None:
            self._progress.stop()
            self._progress = None
        if self._file is not None:
            self._file.close()
            self._file = None

    # -- RunObserver --------------------------------------------------------------------------
    def header(self, run, *, options, estimate=None) -> None:
        batch = run.batch
        self.say(f"Layer3 evaluation of batch {batch.name} (experiment {batch.experiment_id or '—'})", "bold")
        judged = []
        if options.judges_gv:
            judged.append("GV relevance")
        if options.judges_w2wr:
            judged.append("W2WR semantic correctness")
        computed = [
            name
            for name, on in (
                ("graph complexity", options.evaluate_complexity),
                ("widget diversity", options.evaluate_diversity),
                ("W2WR types", options.evaluate_w2wr_type),
            )
            if on
        ]
        self.say(f"  metrics: {', '.join(computed) or 'none'}")
        judge = options.judge if options.uses_judge else "none"
        if options.uses_judge and options.judge == "baseline":
            judge += f" ({', '.join(judged)}; the offline lexical judge baseline-tfidf@1, not an LLM)"
        elif options.uses_judge:
            judge += f" ({', '.join(judged)}; model {options.llm_model or settings.LLM_MODEL})"
        self.say(f"  judge: {judge}")
        configs = ", ".join(options.model_configs) if options.model_configs else "all"
        flags = [f for f, on in (("--force", options.force), ("--refresh-judge", options.refresh_judge)) if on]
        self.say(f"  model configs: {configs}{'; ' + ' '.join(flags) if flags else ''}")
        if options.budget is not None:
            self.say(f"  budget: {options.budget:g} {options.budget_currency}")
        if self.path is not None:
            self.say(f"  log file: {self.path}")

    def started(self, run, *, pending, not_targets, plan=None):
        self.say(
            f"  targets: {run.total_targets} trials at stage {TARGET_STAGE}; {pending} to evaluate, "
            f"{run.skipped_count} with nothing to do (skipped)"
            + (f"; {not_targets} other trials not targeted" if not_targets else "")
        )
        if plan is not None:
            for line in plan_lines(plan):
                self.say(line)
        self._progress = Progress(
            TextColumn("[progress.description]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            console=self.console,
            transient=False,
        )
        self._task = self._progress.add_task("evaluating", total=pending)
        self._progress.start()

    def chunk(self, run, outcome):
        done = outcome.evaluated + len(outcome.errors) + outcome.unjudged
        if self._progress is not None:
            self._progress.update(self._task, advance=done)
        self.log(
            f"chunk: {outcome.evaluated} evaluated, {len(outcome.errors)} errors, {outcome.unjudged} left unjudged, "
            f"{outcome.failed_items} judge answers given up on; last trial {outcome.last_trial or '—'}"
        )
        for problem in (*outcome.errors, *outcome.judge_failures):
            what = "error in trial" if problem.kind == "spec" else "judge gave up in trial"
            self.log(f"{what} {problem.external_id}: {problem.message}")
            if self._errors_shown < MAX_ERRORS_SHOWN:
                self.console.print(f"  {what} {problem.external_id}: {problem.message}", style="yellow", markup=False)
            self._errors_shown += 1

    def finished(self, run):
        if self._progress is not None:
            self._progress.stop()
            self._progress = None
        if self._errors_shown > MAX_ERRORS_SHOWN:
            self.console.print(f"  … {self._errors_shown - MAX_ERRORS_SHOWN} more errors in the log file", markup=False)
        self.summary(run)

    def summary(self, run) -> None:
        headers = ["model", "trials", "done", "errors", *(name for name, *_ in SUMMARY_COLUMNS)]
        table = Table(title=f"Layer3 results of batch {run.batch.name}", show_lines=False)
        for name in headers:
            table.add_column(name, justify="left" if name == "model" else "right", no_wrap=True)
        rows = summary_rows(run)
        for row in rows:
            table.add_row(*row)
        self.console.print(table)
        self.log("\t".join(headers))
        for row in rows:
            self.log("\t".join(row))
        for line in judge_lines(run.batch):
            self.say(line)
        seconds = (run.elapsed_ms or 0) / 1000
        problems = [
            text
            for count, text in (
                (run.error_count, f"{run.error_count} {_trials(run.error_count)} not evaluable (data not a UISpec)"),
                (run.judge_failures, f"{run.judge_failures} judge answers given up on"),
            )
            if count
        ]
        self.say(
            f"run {run.pk}: {run.status}; {run.evaluated_count} evaluated, {run.skipped_count} skipped, "
            f"{', '.join(problems) or 'no errors'}; {seconds:.2f} s"
        )
        if run.judge_failures:
            self.say(
                f"the judge gave no verdict for {run.judge_failures} items after the retries (listed per trial in "
                "the log file); run the same command again to ask for them once more",
                "yellow",
            )
        if run.judge_requests or run.judge_cache_hits:
            self.say(
                f"judge: {run.judge_requests} requests, {run.judge_cache_hits} answers from the cache, "
                f"cost ¥{run.cost_jpy:,.2f} (${run.cost_usd:,.4f})"
            )
        if run.unjudged_count:
            self.say(
                f"the budget stopped the judge: {run.unjudged_count} trials stay unevaluated; "
                "run the same command again (with a new budget) to continue them",
                "yellow",
            )
