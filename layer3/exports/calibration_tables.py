"""What the judge-calibration exports and the panel's calibration card show, without markup (pure Python).

A calibration report is annotation's account of one judge audit (issue 18): people rated a
stratified sample of the Layer3 LLM judge's verdicts on the 0–2 scale and the agreement engine
compared them (the shape is documented in ``core.judge_audits`` and the README). Layer3 only shows
it: this module reads a report into rows of formatted figures that the Markdown and LaTeX renderers
and the card all use, so that the three never round differently.

Number formats, the same everywhere:

- κ, AC2 and α: 2 decimals (``0.71``); a 95% CI as ``[0.64, 0.78]`` after the value;
- exact agreement and rates: percentages to 1 decimal (``62.0%``);
- mean score differences (judge − people): signed, 2 decimals (``+0.15``);
- a missing value is None (the renderer's dash), with the engine's reason beside it when it gave one.

Every text in a report (model names, annotator names, reasoning, item text) is data: the renderers
escape it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from layer3.exports.tables import fixed

KIND_NAMES = {"gv": "GV", "w2wr": "W2WR"}
RATE_NAMES = {"usefulRate": "GV useful rate", "correctnessRate": "W2WR correctness rate"}
HEAT_LEVELS = 5  # a confusion cell's shade: 0 (empty) to 5 (the largest count of the matrix)
CI_NOTE = "95% bootstrap confidence intervals in brackets"


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or math.isnan(value):
        return None
    return float(value)


def decimals(value: object, places: int = 2) -> str | None:
    """``value`` to ``places`` decimals (``0.71``), None when missing."""
    number = _number(value)
    return None if number is None else fixed(number, places)


def percent(value: object) -> str | None:
    """A share in [0, 1] as a percentage to 1 decimal (``62.0%``), None when missing."""
    number = _number(value)
    return None if number is None else f"{fixed(100 * number, 1)}%"


def signed(value: object) -> str | None:
    """A difference with its sign (``+0.15``, ``-0.20``, ``0.00``), None when missing."""
    text = decimals(value)
    if text is None or text.startswith("-") or float(text) == 0:
        return text
    return "+" + text


@dataclass(frozen=True)
class Figure:
    """A formatted value with its 95% CI, the engine's reason when either is missing, and its n."""

    value: str | None
    ci: tuple[str, str] | None = None
    reason: str | None = None
    n: int | None = None

    def text(self, missing: str) -> str:
        """``0.71 [0.64, 0.78]``; ``missing`` when there is no value."""
        if self.value is None:
            return missing
        return self.value if self.ci is None else f"{self.value} [{self.ci[0]}, {self.ci[1]}]"


def _figure(stat: object, form, n: int | None = None) -> Figure:
    stat = stat if isinstance(stat, dict) else {}
    interval = stat.get("ci")
    ci = None
    if isinstance(interval, list | tuple) and len(interval) == 2:
        low, high = form(interval[0]), form(interval[1])
        ci = (low, high) if low is not None and high is not None else None
    reason = stat.get("reason")
    return Figure(form(stat.get("value")), ci, str(reason) if reason else None, n)


def coefficient(stat: object) -> Figure:
    """κ, AC2 or α (``STAT``), 2 decimals."""
    return _figure(stat, decimals)


def share(stat: object) -> Figure:
    """Exact agreement or a rate (``STAT`` or ``EST``) as a percentage; an ``EST`` brings its n."""
    n = stat.get("n") if isinstance(stat, dict) and isinstance(stat.get("n"), int) else None
    return _figure(stat, percent, n)


def difference(value: object, ci: object) -> Figure:
    return _figure({"value": value, "ci": ci}, signed)


def judge_name(judge: dict) -> str:
    """``<model> @ <prompt version>``, or the model alone when the report names no prompt."""
    model, prompt = str(judge.get("model") or ""), str(judge.get("prompt") or "")
    return f"{model} @ {prompt}" if prompt else model


def judge_key(judge: dict) -> str:
    """The judge as ``rate.judgeBatch`` keys it: ``<model>@<prompt>``."""
    return f"{judge.get('model') or ''}@{judge.get('prompt') or ''}"


def llm_judges(report: dict) -> list[dict]:
    """The judges under calibration (the offline baseline, a floor, is not one of them)."""
    return [judge for judge in report.get("judges") or () if isinstance(judge, dict) and not judge.get("baseline")]


def baseline_judge(report: dict) -> dict | None:
    baseline = report.get("baseline")
    if isinstance(baseline, dict):
        return baseline
    return next((j for j in report.get("judges") or () if isinstance(j, dict) and j.get("baseline")), None)


def calibrated_judges(report: dict) -> list[dict]:
    """The judges whose details are shown: the LLM judges, else the baseline (a batch judged offline)."""
    judges = llm_judges(report)
    baseline = baseline_judge(report)
    return judges or ([baseline] if baseline is not None else [])


def headline_judge(report: dict) -> dict | None:
    """The judge of the headline: the first LLM judge, else the baseline (an audit of a baseline-judged batch)."""
    judges = calibrated_judges(report)
    return judges[0] if judges else None


@dataclass(frozen=True)
class JudgeRow:
    name: str
    baseline: bool
    n: int | None
    kappa_humans: Figure  # vs every human rating
    exact_humans: Figure
    kappa: Figure  # vs the human consensus
    ac2: Figure
    exact: Figure
    exact_reweighted: Figure  # the exact agreement reweighted to the batch by the sampling weights


def judge_row(judge: dict) -> JudgeRow:
    humans = judge.get("vsHumans") or {}
    consensus = judge.get("vsConsensus") or {}
    return JudgeRow(
        name=judge_name(judge),
        baseline=bool(judge.get("baseline")),
        n=judge.get("n"),
        kappa_humans=coefficient(humans.get("kappa")),
        exact_humans=share(humans.get("exact")),
        kappa=coefficient(consensus.get("kappa")),
        ac2=coefficient(consensus.get("ac2")),
        exact=share(consensus.get("exact")),
        exact_reweighted=share(consensus.get("exactReweighted")),
    )


def judge_rows(report: dict) -> list[JudgeRow]:
    """The LLM judges, then the offline baseline (the floor) when the report has one."""
    rows = [judge_row(judge) for judge in llm_judges(report)]
    baseline = baseline_judge(report)
    if baseline is not None:
        rows.append(judge_row({**baseline, "baseline": True}))
    return rows


@dataclass(frozen=True)
class HumanFigures:
    n: int | None
    kappa: Figure
    alpha: Figure
    ac2: Figure
    exact: Figure


def human_figures(report: dict) -> HumanFigures:
    humans = report.get("humans") or {}
    return HumanFigures(
        n=humans.get("n"),
        kappa=coefficient(humans.get("kappa")),
        alpha=coefficient(humans.get("alpha")),
        ac2=coefficient(humans.get("ac2")),
        exact=share(humans.get("exact")),
    )


@dataclass(frozen=True)
class PairRow:
    first: str
    second: str
    n: int | None
    kappa: Figure


def pair_rows(report: dict) -> list[PairRow]:
    rows = []
    for pair in (report.get("humans") or {}).get("pairs") or ():
        names = [str(name) for name in pair.get("annotators") or ()] + ["", ""]
        rows.append(PairRow(names[0], names[1], pair.get("n"), coefficient(pair.get("kappa"))))
    return rows


@dataclass(frozen=True)
class AnnotatorRow:
    annotator: str
    n: int | None
    kappa: Figure
    ac2: Figure
    exact: Figure


def annotator_rows(judge: dict) -> list[AnnotatorRow]:
    return [
        AnnotatorRow(str(entry.get("annotator", "")), entry.get("n"), coefficient(entry.get("kappa")),
                     coefficient(entry.get("ac2")), share(entry.get("exact")))
        for entry in judge.get("vsAnnotators") or ()
    ]  # fmt: skip


def scale_labels(report: dict) -> list[tuple[int, str]]:
    """``[(0, "not_relevant"), (1, "generic"), (2, "useful")]``: the audit's scale."""
    return [(int(point["value"]), str(point.get("label", ""))) for point in report.get("scale") or ()]


def score_text(score: object, report: dict) -> str:
    """``2 useful``: a score with its label on the audit's scale."""
    labels = dict(scale_labels(report))
    return f"{score} {labels[score]}" if score in labels else str(score)


@dataclass(frozen=True)
class ConfusionCell:
    count: int
    level: int  # 0..HEAT_LEVELS, the cell's shade
    agree: bool  # on the diagonal: judge and consensus gave the same score


@dataclass(frozen=True)
class Confusion:
    rows_are: str  # "judge"
    columns_are: str  # "consensus"
    labels: list[tuple[int, str]]
    rows: list[tuple[tuple[int, str], list[ConfusionCell], int]]  # (row label, cells, row total)
    column_totals: list[int]
    total: int


def confusion(judge: dict, report: dict) -> Confusion:
    """The 3×3 matrix with shades relative to its largest count, and row and column totals."""
    matrix_info = judge.get("confusion") or {}
    labels = scale_labels(report)
    matrix = [[int(count or 0) for count in row] for row in matrix_info.get("matrix") or ()]
    largest = max((count for row in matrix for count in row), default=0)
    rows = []
    for i, label in enumerate(labels):
        counts = matrix[i] if i < len(matrix) else []
        counts = counts + [0] * (len(labels) - len(counts))
        cells = [
            ConfusionCell(count, math.ceil(HEAT_LEVELS * count / largest) if largest else 0, i == j)
            for j, count in enumerate(counts)
        ]
        rows.append((label, cells, sum(counts)))
    totals = [sum(row[1][j].count for row in rows) for j in range(len(labels))]
    return Confusion(
        rows_are=str(matrix_info.get("rows") or "judge"),
        columns_are=str(matrix_info.get("columns") or "consensus"),
        labels=labels,
        rows=rows,
        column_totals=totals,
        total=sum(totals),
    )


@dataclass(frozen=True)
class BiasRow:
    model_config: str
    n: int | None
    difference: Figure


def bias_rows(judge: dict) -> list[BiasRow]:
    """The judge's mean score minus the people's, per model configuration."""
    rows = []
    for entry in judge.get("biasByModelConfig") or ():
        figure = difference(entry.get("meanDifference"), entry.get("ci"))
        rows.append(BiasRow(str(entry.get("modelConfig", "")), entry.get("n"), figure))
    return rows


@dataclass(frozen=True)
class Rate:
    name: str  # "usefulRate" | "correctnessRate"
    label: str  # "GV useful rate"
    value: object  # the score the rate counts (2)
    judge_batch: list[tuple[str, str | None]]  # (judge "<model>@<prompt>", its rate over the whole batch)
    headline_batch: str | None  # the headline judge's batch rate
    judge_sample: Figure
    human: Figure


def rate(report: dict) -> Rate | None:
    """The batch rate as the judge measured it beside the people's estimate on the sample (the correction)."""
    block = report.get("rate")
    if not isinstance(block, dict):
        return None
    name = str(block.get("name") or "")
    batch = [(str(key), percent(value)) for key, value in (block.get("judgeBatch") or {}).items()]
    judge = headline_judge(report)
    rates = dict(batch)
    headline = rates.get(judge_key(judge)) if judge is not None else None
    if headline is None and batch:
        headline = batch[0][1]
    return Rate(
        name=name,
        label=RATE_NAMES.get(name, name),
        value=block.get("value"),
        judge_batch=batch,
        headline_batch=headline,
        judge_sample=share(block.get("judgeSample")),
        human=share(block.get("human")),
    )


@dataclass(frozen=True)
class Disagreement:
    key: str
    trial_id: str
    model_config: str
    judge: str  # "0 not_relevant"
    humans: str  # "2, 2, 1"
    item: str  # what was judged, in one line
    reasoning: str


def item_text(kind: str, context: object) -> str:
    """What the judged unit is, in one line: the GV item's text, or the W2WR binding's two ends."""
    context = context if isinstance(context, dict) else {}
    if kind == "w2wr":
        ends = []
        for side in ("source", "target"):
            end = context.get(side) if isinstance(context.get(side), dict) else {}
            ends.append(".".join(str(end[k]) for k in ("widget", "port") if end.get(k) not in (None, "")))
        text = " → ".join(ends)
        description = context.get("description")
        return f"{text} ({description})" if description else text
    where = ".".join(str(context[k]) for k in ("widgetId", "portId") if context.get(k) not in (None, ""))
    text = str(context.get("text") or "")
    return f"{where}: {text}" if where and text else where or text


def disagreements(judge: dict, report: dict) -> list[Disagreement]:
    """The items on which the judge differs from every annotator, for prompt revision."""
    kind = str((report.get("audit") or {}).get("kind") or "")
    rows = []
    for entry in judge.get("disagreements") or ():
        label = entry.get("judgeLabel")
        score = entry.get("judgeScore")
        rows.append(
            Disagreement(
                key=str(entry.get("key", "")),
                trial_id=str(entry.get("trialId", "")),
                model_config=str(entry.get("modelConfig", "")),
                judge=f"{score} {label}" if label else score_text(score, report),
                humans=", ".join(str(score) for score in entry.get("humanScores") or ()),
                item=item_text(kind, entry.get("context")),
                reasoning=str(entry.get("reasoning") or ""),
            )
        )
    return rows


@dataclass(frozen=True)
class Headline:
    """``judge κ 0.71 [0.64, 0.78] vs human–human 0.74``: the judge with every human rating, people with people."""

    judge: str | None
    kappa: Figure
    human_kappa: Figure


def headline(report: dict) -> Headline:
    judge = headline_judge(report)
    kappa = coefficient(((judge or {}).get("vsHumans") or {}).get("kappa"))
    return Headline(judge_name(judge) if judge else None, kappa, coefficient((report.get("humans") or {}).get("kappa")))


def scale_text(report: dict) -> str:
    """``0 = not_relevant, 1 = generic, 2 = useful``."""
    return ", ".join(f"{value} = {label}" for value, label in scale_labels(report))


def audit_facts(report: dict, escape: Callable[[object], str], missing: str) -> dict:
    """The audit's facts as text already escaped by ``escape`` (``escape_markdown`` or ``escape_latex``)."""
    audit = report.get("audit") or {}
    names = [str(name) for name in audit.get("annotators") or ()]
    sample = (
        f"{audit.get('items', 0)} items drawn (requested {audit.get('requestedSize', '?')}, seed "
        f"{audit.get('seed', '?')}), {audit.get('perItem', '?')} ratings wanted per item; "
        f"{audit.get('ratedItems', 0)} rated, {audit.get('completeItems', 0)} complete; "
        f"{audit.get('ratings', 0)} ratings by {len(names)} annotator(s)"
    )
    return {
        "name": escape(audit.get("name", "")),
        "id": escape(audit.get("id", "")),
        "kind": escape(KIND_NAMES.get(audit.get("kind"), str(audit.get("kind", "")))),
        "batch": escape(audit.get("batch", "")),
        "created": escape(audit.get("createdAt") or missing),
        "sample": escape(sample),
        "annotators": escape(", ".join(names)),
        "scale": escape(scale_text(report)),
        "consensus": escape(report.get("consensusRule") or missing),
    }
