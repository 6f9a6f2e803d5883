"""What a Layer3 run does to each trial: compute what is missing, keep what is there, replace only on request.

A trial's stored ``Layer3MetricsV1`` holds up to five metric blocks. A run is asked for some of them
(``EvaluationOptions``: the three automatic ones, and GV relevance / W2WR semantic correctness when it
has a judge). For each block asked for, a trial gets one verb:

- ``compute``: the trial lacks the block (never evaluated, or evaluated without it);
- ``keep``: the trial has it and re-evaluation was not asked for;
- ``replace``: the trial has it and ``force`` (the seed's ``forceReEvaluate``) asks to recompute it;
  ``replace`` by a *different* judge is counted apart (``otherJudge``), so the run can say so first;
- ``retry``: a judged block with items whose judge call failed (``judgeErrors``), asked again with the
  same judge (the answered items come from the gateway's cache at no cost).

Blocks not asked for are never touched. A trial whose generated data is not a UISpec (an ``error``
record) is skipped unless ``force``; a run never writes part of a block. ``merge`` builds the new
record from the old one and the blocks computed now. Pure: the run service and the run dialog's counts
both use it, the dialog on grouped states (``TrialState`` with a multiplicity), the run per trial.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from layer3.metrics.provenance import JUDGED_BLOCKS, block_judge, evaluator_model, judge_label
from layer3.metrics.trial import LAYER3_METRICS_VERSION
from layer3.runs.options import EvaluationOptions

AUTOMATIC_BLOCKS = ("graphComplexity", "widgetDiversity", "w2wrTypeDistribution")
GV, W2WR = JUDGED_BLOCKS["gv"], JUDGED_BLOCKS["w2wr"]
BLOCKS = (*AUTOMATIC_BLOCKS, GV, W2WR)
# The seed's request field of each block (EvaluateLayer3Request) and the short judge key of the judged ones.
BLOCK_FIELDS = {
    "graphComplexity": "evaluateComplexity",
    "widgetDiversity": "evaluateDiversity",
    "w2wrTypeDistribution": "evaluateW2WRType",
    GV: "evaluateGV",
    W2WR: "evaluateW2WRSemantic",
}
JUDGE_KEYS = {block: key for key, block in JUDGED_BLOCKS.items()}
# Key order of a stored record: the seed's calculateMetrics order, this project's keys after.
RECORD_ORDER = ("version", "evaluatedAt", *AUTOMATIC_BLOCKS, "evaluatorModel", GV, W2WR)
VERBS = ("compute", "keep", "replace", "retry")


def requested_blocks(options: EvaluationOptions) -> tuple[str, ...]:
    """The blocks a run with ``options`` computes where needed (judged blocks only with a judge)."""
    asked = {
        "graphComplexity": options.evaluate_complexity,
        "widgetDiversity": options.evaluate_diversity,
        "w2wrTypeDistribution": options.evaluate_w2wr_type,
        GV: options.judges_gv,
        W2WR: options.judges_w2wr,
    }
    return tuple(block for block in BLOCKS if asked[block])


@dataclass(frozen=True)
class TrialState:
    """What the plan needs to know of a stored record: which blocks it has and who judged them.

    ``judges``: ``(block, judge label)`` of each present judged block (``judge(block)`` reads it);
    ``incomplete`` the judged blocks with failed items (``judgeErrors``). Hashable: a batch's trials
    hold a handful of distinct states, and a run plans each state once.
    """

    evaluated: bool = False  # a record is stored (metrics or an error)
    error: bool = False  # the stored record says the data is not a UISpec
    present: frozenset[str] = frozenset()
    judges: tuple[tuple[str, str], ...] = ()
    incomplete: frozenset[str] = frozenset()

    def judge(self, block: str, default: str | None = None) -> str | None:
        """The judge label of the stored ``block`` (``default`` when it has none)."""
        return next((label for name, label in self.judges if name == block), default)

    @classmethod
    def of(cls, metrics: Mapping | None) -> TrialState:
        """The state of a stored ``Layer3MetricsV1`` (or None for a trial never evaluated)."""
        if metrics is None:
            return cls()
        if "error" in metrics:
            return cls(evaluated=True, error=True)
        present = frozenset(block for block in BLOCKS if isinstance(metrics.get(block), Mapping))
        judged = [block for block in JUDGE_KEYS if block in present]
        return cls(
            evaluated=True,
            present=present,
            judges=tuple((block, block_judge(metrics[block])) for block in judged),
            incomplete=frozenset(block for block in judged if metrics[block].get("judgeErrors")),
        )


@dataclass(frozen=True)
class TrialPlan:
    """The verb of each block asked for (``verbs``) and the blocks to compute now (``compute``)."""

    verbs: Mapping[str, str]
    other_judge: frozenset[str]  # replaced blocks whose stored judge differs from the run's
    skipped_error: bool = False  # an error record left alone (no force)
    compute: tuple[str, ...] = field(init=False)

    def __post_init__(self):
        object.__setattr__(self, "compute", tuple(block for block, verb in self.verbs.items() if verb != "keep"))


def plan_trial(
    state: TrialState, blocks: Iterable[str], *, force: bool, judges: Mapping[str, str] | None = None
) -> TrialPlan:
    """The plan for one trial: ``blocks`` asked for, ``judges`` the run's judge label per judged block."""
    judges = judges or {}
    if state.error and not force:
        return TrialPlan({}, frozenset(), skipped_error=True)
    verbs: dict[str, str] = {}
    other: set[str] = set()
    for block in blocks:
        if state.error or block not in state.present:
            verbs[block] = "compute"
        elif force:
            verbs[block] = "replace"
            if block in JUDGE_KEYS and state.judge(block) != judges.get(block):
                other.add(block)
        elif block in state.incomplete and state.judge(block) == judges.get(block):
            verbs[block] = "retry"
        else:
            verbs[block] = "keep"
    return TrialPlan(verbs, frozenset(other))


@dataclass
class PlanCounts:
    """Per block, how many trials each verb applies to; ``other_judge`` per judged block with the
    labels replaced; ``trials`` to evaluate (any block computed) and ``skipped`` (nothing to do)."""

    blocks: dict[str, dict[str, int]] = field(default_factory=dict)
    other_judge: dict[str, dict[str, int]] = field(default_factory=dict)  # block -> {stored judge: trials}
    kept_judges: dict[str, dict[str, int]] = field(default_factory=dict)  # block -> {kept judge: trials}
    mixed_configs: dict[str, list[str]] = field(default_factory=dict)  # block -> configs left with two judges
    trials: int = 0
    skipped: int = 0
    errors_skipped: int = 0

    def as_dict(self) -> dict:
        """camelCase, for the API reply, the run row and the console."""
        return {
            "blocks": self.blocks,
            "replacedJudges": self.other_judge,
            "keptJudges": self.kept_judges,
            "mixedJudgeConfigs": self.mixed_configs,
            "trialsToEvaluate": self.trials,
            "trialsSkipped": self.skipped,
            "errorTrialsSkipped": self.errors_skipped,
        }


def count_plan(
    states: Iterable[tuple[str, TrialState, int]],
    options: EvaluationOptions,
    judges: Mapping[str, str] | None = None,
) -> PlanCounts:
    """What a run with ``options`` would do, from ``(model config, state, number of trials)`` groups.

    ``mixed_configs`` names, per judged block the run is asked for, the model configs whose trials would
    afterwards carry that block from more than one judge (their figures are then reported per judge, not
    pooled).
    """
    judges = judges or {}
    blocks = requested_blocks(options)
    judged_blocks = [block for block in blocks if block in JUDGE_KEYS]
    counts = PlanCounts(blocks={block: dict.fromkeys(VERBS, 0) for block in blocks})
    after: dict[str, dict[str, set[str]]] = {block: {} for block in JUDGE_KEYS}  # block -> config -> judges
    grouped: dict[tuple[str, TrialState], int] = {}
    for config, state, n in states:
        grouped[config, state] = grouped.get((config, state), 0) + n
    plans: dict[TrialState, TrialPlan] = {}
    for (config, state), n in grouped.items():
        plan = plans.get(state)
        if plan is None:
            plan = plans[state] = plan_trial(state, blocks, force=options.force, judges=judges)
        if plan.skipped_error:
            counts.errors_skipped += n
        if plan.compute:
            counts.trials += n
        else:
            counts.skipped += n
        for block, verb in plan.verbs.items():
            counts.blocks[block][verb] += n
        for block in plan.other_judge:
            stored = state.judge(block, "")
            bucket = counts.other_judge.setdefault(block, {})
            bucket[stored] = bucket.get(stored, 0) + n
        for block in judged_blocks:  # who judges what, after the run, of the judged blocks it is asked for
            verb = plan.verbs.get(block)
            if verb is None or state.error:  # an error record, left alone or tried again: no judged block
                continue
            if verb == "keep":
                label = state.judge(block, "")
                bucket = counts.kept_judges.setdefault(block, {})
                bucket[label] = bucket.get(label, 0) + n
            else:
                label = judges.get(block, "")
            after[block].setdefault(config, set()).add(label)
    counts.mixed_configs = {
        block: sorted(config for config, labels in by_config.items() if len(labels) > 1)
        for block, by_config in after.items()
        if any(len(labels) > 1 for labels in by_config.values())
    }
    return counts


def run_judge_labels(judges: Mapping[str, Mapping]) -> dict[str, str]:
    """``{block name: label}`` from the run's judge records keyed "gv" / "w2wr"."""
    return {JUDGED_BLOCKS[key]: judge_label(record) for key, record in judges.items()}


def merge(stored: Mapping | None, computed: Mapping[str, dict], evaluated_at: str) -> dict:
    """The record to store: ``stored`` with the ``computed`` blocks put in (an error record is replaced).

    ``evaluatedAt`` becomes the time of this computation and ``evaluatorModel`` is re-derived from the
    judged blocks, so a kept block keeps its own ``judge``.
    """
    if stored is None and GV not in computed and W2WR not in computed:  # a first run without a judge: the common case
        record = {"version": LAYER3_METRICS_VERSION, "evaluatedAt": evaluated_at}
        record.update((block, computed[block]) for block in AUTOMATIC_BLOCKS if block in computed)
        return record
    record: dict = {} if stored is None or "error" in stored else dict(stored)
    record.update(computed)
    record["version"] = LAYER3_METRICS_VERSION
    record["evaluatedAt"] = evaluated_at
    model = evaluator_model(record)
    if model is None:
        record.pop("evaluatorModel", None)
    else:
        record["evaluatorModel"] = model
    ordered = {key: record[key] for key in RECORD_ORDER if key in record}
    ordered.update((key, value) for key, value in record.items() if key not in ordered)
    return ordered


def plan_warnings(counts: PlanCounts, labels: Mapping[str, str]) -> list[str]:
    """What to know before a run starts (English): judged results it replaces with another judge's, and
    model configs it leaves judged by more than one judge (reported per judge, not pooled or compared)."""
    warnings = []
    for block, replaced in counts.other_judge.items():
        stored = ", ".join(f"{label} ({n} trials)" for label, n in sorted(replaced.items()))
        warnings.append(
            f"{block}: replaces the verdicts of {stored} with those of {labels.get(block)}; the replaced LLM "
            "verdicts stay in the gateway's cache, so a run with that judge restores them at no cost"
        )
    for block, configs in counts.mixed_configs.items():
        warnings.append(
            f"{block}: model config(s) {', '.join(configs)} will hold verdicts of more than one judge; their "
            "figures are then reported per judge, not pooled, and not compared with other configs"
        )
    return warnings
