"""What a Layer3 evaluation run is asked to do (seed 002 §5.1 ``EvaluateLayer3Request``), pure Python.

The seed's request fields keep their names and defaults (``evaluateGV`` true, ``evaluateW2WRType``
true, ``evaluateW2WRSemantic`` false, ``evaluateDiversity`` true, ``evaluateComplexity`` true,
``useLLMJudge`` false, ``forceReEvaluate`` false, ``modelConfigs`` all). Beside them:

- ``judge``: ``none`` | ``baseline`` | ``llm``. The seed has only ``useLLMJudge``; ``baseline`` is the
  offline lexical judge of ``llm.baseline`` (never presented as an LLM). ``useLLMJudge: true`` means
  ``llm``; the two judge-backed metrics (``evaluateGV``, ``evaluateW2WRSemantic``) run only with a
  judge, as in the seed's ``calculateMetrics``.
- ``refreshJudge``: ask the judge again instead of reading the gateway's cache.
- ``budget`` / ``budgetCurrency``: stop before a judge call that could exceed it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

JUDGES = ("none", "baseline", "llm")
TARGET_STAGE = 3  # the stage evaluated: UI generation (the seed's partial index trial_layer3_unevaluated)
CURRENCIES = ("JPY", "USD")
_BUDGET = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(JPY|USD|円|¥|\$)?\s*$", re.IGNORECASE)
_CURRENCY_ALIASES = {"円": "JPY", "¥": "JPY", "$": "USD"}


@dataclass(frozen=True)
class EvaluationOptions:
    evaluate_gv: bool = True
    evaluate_w2wr_type: bool = True
    evaluate_w2wr_semantic: bool = False
    evaluate_diversity: bool = True
    evaluate_complexity: bool = True
    judge: str = "none"
    llm_model: str = ""  # "" = the configured LLM_MODEL
    force: bool = False
    refresh_judge: bool = False
    model_configs: tuple[str, ...] = field(default=())  # () = every model config of the batch
    budget: float | None = None
    budget_currency: str = "JPY"

    def __post_init__(self):
        if self.judge not in JUDGES:
            raise ValueError(f"judge {self.judge!r}: accepted {', '.join(JUDGES)}")
        if self.budget is not None and self.budget < 0:
            raise ValueError("budget: a budget cannot be negative")
        if self.budget_currency not in CURRENCIES:
            raise ValueError(f"budgetCurrency {self.budget_currency!r}: accepted {', '.join(CURRENCIES)}")

    @property
    def judges_gv(self) -> bool:
        return self.judge != "none" and self.evaluate_gv

    @property
    def judges_w2wr(self) -> bool:
        return self.judge != "none" and self.evaluate_w2wr_semantic

    @property
    def uses_judge(self) -> bool:
        return self.judges_gv or self.judges_w2wr

    def as_request(self) -> dict:
        """The seed's ``EvaluateLayer3Request`` (camelCase) plus this project's fields; stored on the run."""
        return {
            "evaluateGV": self.evaluate_gv,
            "evaluateW2WRType": self.evaluate_w2wr_type,
            "evaluateW2WRSemantic": self.evaluate_w2wr_semantic,
            "evaluateDiversity": self.evaluate_diversity,
            "evaluateComplexity": self.evaluate_complexity,
            "useLLMJudge": self.judge == "llm",
            "llmModel": self.llm_model,
            "forceReEvaluate": self.force,
            "modelConfigs": list(self.model_configs),
            "judge": self.judge,
            "refreshJudge": self.refresh_judge,
            "budget": self.budget,
            "budgetCurrency": self.budget_currency,
        }

    @classmethod
    def from_request(cls, data: dict) -> EvaluationOptions:
        """The inverse of ``as_request`` for stored runs; ``judge`` wins over ``useLLMJudge`` when both are given."""
        judge = data.get("judge") or ("llm" if data.get("useLLMJudge") else "none")
        return cls(
            evaluate_gv=data.get("evaluateGV", True),
            evaluate_w2wr_type=data.get("evaluateW2WRType", True),
            evaluate_w2wr_semantic=data.get("evaluateW2WRSemantic", False),
            evaluate_diversity=data.get("evaluateDiversity", True),
            evaluate_complexity=data.get("evaluateComplexity", True),
            judge=judge,
            llm_model=data.get("llmModel") or "",
            force=data.get("forceReEvaluate", False),
            refresh_judge=data.get("refreshJudge", False),
            model_configs=tuple(data.get("modelConfigs") or ()),
            budget=data.get("budget"),
            budget_currency=data.get("budgetCurrency") or "JPY",
        )


def parse_budget(text: str) -> tuple[float, str]:
    """``(amount, currency)`` from ``"500JPY"``, ``"500 円"``, ``"2.5USD"``, ``"2.5$"`` or ``"500"`` (yen)."""
    match = _BUDGET.match(text)
    if not match:
        raise ValueError(f"budget {text!r}: write an amount and a currency, e.g. 500JPY or 2.5USD")
    amount, currency = float(match.group(1)), (match.group(2) or "JPY")
    currency = _CURRENCY_ALIASES.get(currency, currency.upper())
    return amount, currency
