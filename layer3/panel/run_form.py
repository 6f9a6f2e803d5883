"""The run modal's form (seed 002 §8.2) as ``EvaluationOptions``, checked field by field (pure).

Fields: the five metric checkboxes (``evaluateComplexity``, ``evaluateDiversity``, ``evaluateW2WRType``,
``evaluateGV``, ``evaluateW2WRSemantic``), ``judge`` (``baseline`` or ``llm:<model>``, used when a
judged metric is ticked), ``forceReEvaluate``, ``modelConfigs`` (ticked configs; all ticked = all),
and ``budget`` (an optional amount in JPY for an LLM judge). Problems come back per field as a code
and its values (``PROBLEMS`` says each in English; the page translates them), so the modal shows
each beside its control.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from layer3.runs.options import EvaluationOptions

METRIC_FIELDS = ("evaluateComplexity", "evaluateDiversity", "evaluateW2WRType", "evaluateGV", "evaluateW2WRSemantic")
JUDGED_FIELDS = ("evaluateGV", "evaluateW2WRSemantic")
BASELINE = "baseline"
LLM_PREFIX = "llm:"


PROBLEMS = {
    "no_metric": "tick at least one metric",
    "unknown_judge": "unknown judge {value}; accepted: {accepted}",
    "unknown_config": "unknown model config {value}; the batch has {accepted}",
    "no_config": "tick at least one model config",
    "bad_budget": "expected an amount in yen such as 500, got {value}",
}


class RunFormError(ValueError):
    """``problems``: ``{field: (code, values)}`` with a code of ``PROBLEMS``."""

    def __init__(self, problems: dict[str, tuple[str, dict[str, str]]]) -> None:
        self.problems = problems
        super().__init__(
            "; ".join(f"{field}: {PROBLEMS[code].format(**values)}" for field, (code, values) in problems.items())
        )


def judge_value(model: str) -> str:
    return f"{LLM_PREFIX}{model}"


def parse_run_form(
    data: Mapping[str, Sequence[str]], *, model_configs: Sequence[str], llm_models: Sequence[str]
) -> EvaluationOptions:
    """Options from the form's ``{name: [values]}``; ``RunFormError`` holds ``{field: message}`` otherwise.

    ``model_configs`` are the batch's, ``llm_models`` the models a judge may use ([] without an endpoint).
    """
    ticked = {name: bool(data.get(name)) for name in METRIC_FIELDS}
    problems: dict[str, tuple[str, dict[str, str]]] = {}
    if not any(ticked.values()):
        problems["metrics"] = ("no_metric", {})
    judge, model = "none", ""
    if any(ticked[name] for name in JUDGED_FIELDS):
        choice = (data.get("judge") or [BASELINE])[-1]
        if choice == BASELINE:
            judge = BASELINE
        elif choice.startswith(LLM_PREFIX) and choice[len(LLM_PREFIX) :] in llm_models:
            judge, model = "llm", choice[len(LLM_PREFIX) :]
        else:
            accepted = [BASELINE, *(judge_value(m) for m in llm_models)]
            problems["judge"] = ("unknown_judge", {"value": choice, "accepted": ", ".join(accepted)})
    chosen = [value for value in data.get("modelConfigs", ()) if value]
    unknown = [value for value in chosen if value not in model_configs]
    if unknown:
        values = {"value": ", ".join(unknown), "accepted": ", ".join(model_configs)}
        problems["modelConfigs"] = ("unknown_config", values)
    elif not chosen:
        problems["modelConfigs"] = ("no_config", {})
    budget = None
    text = ((data.get("budget") or [""])[-1]).strip()
    if text and judge == "llm":
        try:
            budget = float(text)
        except ValueError:
            problems["budget"] = ("bad_budget", {"value": text})
        else:
            if not budget >= 0:  # also NaN
                problems["budget"] = ("bad_budget", {"value": text})
    if problems:
        raise RunFormError(problems)
    every = set(chosen) == set(model_configs)
    return EvaluationOptions(
        evaluate_gv=ticked["evaluateGV"],
        evaluate_w2wr_type=ticked["evaluateW2WRType"],
        evaluate_w2wr_semantic=ticked["evaluateW2WRSemantic"],
        evaluate_diversity=ticked["evaluateDiversity"],
        evaluate_complexity=ticked["evaluateComplexity"],
        judge=judge,
        llm_model=model,
        force=bool(data.get("forceReEvaluate")),
        model_configs=() if every else tuple(sorted(chosen)),
        budget=budget,
        budget_currency="JPY",
    )
