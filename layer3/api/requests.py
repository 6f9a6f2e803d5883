"""The body of ``POST .../evaluate-layer3`` (seed 002 §5.1 ``EvaluateLayer3Request``), checked strictly (pure).

Every field is optional and has the seed's default; a field of the wrong JSON type (``"true"`` for a
boolean) or an unknown field is refused, naming the field and what is accepted, so a misspelt option
never runs a different evaluation than the one asked for. Beside the seed's fields: ``judge``
(``none`` | ``baseline`` | ``llm``; overrides ``useLLMJudge``, so the offline baseline can be chosen),
``refreshJudge``, ``budget`` and ``budgetCurrency``.
"""

from __future__ import annotations

import re

from layer3.runs.options import CURRENCIES, JUDGES, EvaluationOptions

BOOLEANS = (
    "evaluateGV",
    "evaluateW2WRType",
    "evaluateW2WRSemantic",
    "evaluateDiversity",
    "evaluateComplexity",
    "useLLMJudge",
    "forceReEvaluate",
    "refreshJudge",
)
FIELDS = (*BOOLEANS, "llmModel", "modelConfigs", "judge", "budget", "budgetCurrency")


class RequestError(ValueError):
    def __init__(self, field: str, message: str) -> None:
        self.field = field
        self.message = message
        super().__init__(f"{field}: {message}")


def _type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "a list" if isinstance(value, list) else "an object"


MAX_MODEL_NAME = 200
MODEL_NAME = re.compile(r"[\x20-\x7e]*[\x21-\x7e][\x20-\x7e]*")  # printable ASCII, not only spaces
MAX_BUDGET = 10**12


def parse_evaluate_request(body: object, *, default_model: str) -> EvaluationOptions:
    """``EvaluationOptions`` from the JSON body; ``RequestError`` names the first bad field."""
    if not isinstance(body, dict):  # null too (no body at all reads as {})
        raise RequestError("$", f"expected a JSON object of EvaluateLayer3Request fields, got {_type(body)}")
    for key in body:
        if key not in FIELDS:
            raise RequestError(key, f"unknown field; accepted: {', '.join(FIELDS)}")
    for key in BOOLEANS:
        if key in body and not isinstance(body[key], bool):
            raise RequestError(key, f"expected true or false, got {_type(body[key])}")
    model = body.get("llmModel", default_model)
    if not isinstance(model, str):
        raise RequestError("llmModel", f"expected a string (a model name), got {_type(model)}")
    if "llmModel" in body and (len(model) > MAX_MODEL_NAME or not MODEL_NAME.fullmatch(model)):
        raise RequestError(
            "llmModel", f"expected a model name: 1 to {MAX_MODEL_NAME} printable ASCII characters, e.g. gpt-4o-mini"
        )
    configs = body.get("modelConfigs", [])
    if not isinstance(configs, list) or not all(isinstance(c, str) and c.strip() for c in configs):
        raise RequestError("modelConfigs", 'expected a list of model configuration names, e.g. ["A", "B"]')
    judge = body.get("judge", "llm" if body.get("useLLMJudge") else "none")
    if judge not in JUDGES:
        raise RequestError("judge", f"expected one of {', '.join(JUDGES)}, got {judge!r}")
    budget = body.get("budget")
    if budget is not None and (
        isinstance(budget, bool) or not isinstance(budget, (int, float)) or not 0 <= budget <= MAX_BUDGET
    ):
        raise RequestError("budget", f"expected a number from 0 to {MAX_BUDGET} (in budgetCurrency), got {budget!r}")
    currency = body.get("budgetCurrency", "JPY")
    if currency not in CURRENCIES:
        raise RequestError("budgetCurrency", f"expected one of {', '.join(CURRENCIES)}, got {currency!r}")
    return EvaluationOptions(
        evaluate_gv=body.get("evaluateGV", True),
        evaluate_w2wr_type=body.get("evaluateW2WRType", True),
        evaluate_w2wr_semantic=body.get("evaluateW2WRSemantic", False),
        evaluate_diversity=body.get("evaluateDiversity", True),
        evaluate_complexity=body.get("evaluateComplexity", True),
        judge=judge,
        llm_model=model,
        force=body.get("forceReEvaluate", False),
        refresh_judge=body.get("refreshJudge", False),
        model_configs=tuple(dict.fromkeys(configs)),
        budget=None if budget is None else float(budget),
        budget_currency=currency,
    )
