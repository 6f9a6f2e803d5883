"""What the run dialog shows (seed 002 §8.2): which metric groups start ticked, which judge is chosen,
and per group what a run would compute, keep or replace, with the warnings to read before it starts."""

from __future__ import annotations

from collections import Counter

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from layer3.metrics.provenance import BASELINE_MODEL
from layer3.models import Batch, TrialLog
from layer3.panel.run_form import BASELINE, judge_value
from layer3.runs.options import TARGET_STAGE, EvaluationOptions
from layer3.runs.plan import BLOCK_FIELDS, PlanCounts
from layer3.runs.reads import grouped_states

FIELD_BLOCKS = {field: block for block, field in BLOCK_FIELDS.items()}
SEED_DEFAULTS = {  # the seed's modal (§8.2): the automatic metrics ticked, the judged ones not
    "evaluateComplexity": True,
    "evaluateDiversity": True,
    "evaluateW2WRType": True,
    "evaluateGV": False,
    "evaluateW2WRSemantic": False,
}
BLOCK_NAMES = {
    "graphComplexity": gettext_lazy("Graph complexity"),
    "widgetDiversity": gettext_lazy("Widget diversity"),
    "w2wrTypeDistribution": gettext_lazy("W2WR type distribution"),
    "generatedValueRelevance": gettext_lazy("generatedValue relevance"),
    "w2wrSemanticCorrectness": gettext_lazy("W2WR semantic correctness"),
}


def dialog_defaults(batch: Batch, judge_models: list[str]) -> dict:
    """``{"checked": {field: bool}, "judge": option value, "present": {field: trials}}`` for the dialog.

    The groups the batch already has start ticked (so a run with nothing changed recomputes nothing and
    erases nothing); a batch never evaluated starts with the seed's defaults. The judge starts at the one
    that judged the batch, when it is still available, so that adding trials does not mix judges.
    """
    states = grouped_states(TrialLog.objects.filter(batch=batch, stage=TARGET_STAGE))
    present: Counter = Counter()
    judges: Counter = Counter()
    for _config, state, n in states:
        for block in state.present:
            present[block] += n
        for _block, label in state.judges:
            judges[label] += n
    checked = dict(SEED_DEFAULTS)
    if present:
        checked = {field: bool(present[block]) for field, block in FIELD_BLOCKS.items()}
    options = [BASELINE, *(judge_value(model) for model in judge_models)]
    judge = options[1] if len(options) > 1 else BASELINE
    for label, _n in judges.most_common():
        kind, _, rest = label.partition(":")
        model = rest.rpartition(":")[0]
        value = BASELINE if kind == "baseline" and model == BASELINE_MODEL else judge_value(model)
        if value in options:
            judge = value
            break
    return {"checked": checked, "judge": judge, "present": {f: present[b] for f, b in FIELD_BLOCKS.items()}}


def plan_rows(plan: PlanCounts) -> list[dict]:
    """One row per metric group asked for: its name and how many trials get it computed, kept, replaced, retried."""
    return [
        {"block": block, "field": BLOCK_FIELDS[block], "name": BLOCK_NAMES[block], **verbs}
        for block, verbs in plan.blocks.items()
    ]


def plan_notes(plan: PlanCounts, options: EvaluationOptions, labels: dict[str, str]) -> list[str]:
    """The warnings a researcher reads before starting, in the page's language."""
    notes = []
    for block, replaced in plan.other_judge.items():
        stored = ", ".join(
            _("%(judge)s (%(n)s trials)") % {"judge": label, "n": n} for label, n in sorted(replaced.items())
        )
        notes.append(
            _(
                "%(group)s: this run replaces the verdicts of %(stored)s with those of %(judge)s. LLM verdicts "
                "stay in the cache: a run with that judge restores them at no cost."
            )
            % {"group": BLOCK_NAMES[block], "stored": stored, "judge": labels.get(block, "")}
        )
    for block, configs in plan.mixed_configs.items():
        notes.append(
            _(
                "%(group)s: model configs %(configs)s would then hold verdicts of more than one judge. Their "
                "figures are shown per judge and are not compared with other configs. Tick “Re-evaluate” to "
                "judge them all with one judge."
            )
            % {"group": BLOCK_NAMES[block], "configs": ", ".join(configs)}
        )
    if plan.errors_skipped and not options.force:
        notes.append(
            _("%(n)s trials whose generated data is not a UISpec are skipped; “Re-evaluate” tries them again.")
            % {"n": plan.errors_skipped}
        )
    return notes
