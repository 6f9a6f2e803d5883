"""Prices, token estimates and costs. Pure (no Django).

Prices are per 1M tokens, input and output, in USD and JPY. Token counts before a run are
estimated from characters (no tokenizer download): CJK characters count ``CJK_TOKENS_PER_CHAR``
tokens each, other characters ``OTHER_TOKENS_PER_CHAR``; the ledger's past usage calibrates the
estimate (actual / estimated input tokens of earlier calls of the same model).
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

CJK_TOKENS_PER_CHAR = 0.9
OTHER_TOKENS_PER_CHAR = 0.3
MESSAGE_OVERHEAD_TOKENS = 4  # role and separators per chat message


@dataclass(frozen=True)
class Price:
    input_usd: float
    output_usd: float
    input_jpy: float
    output_jpy: float

    def cost(self, tokens_in: int, tokens_out: int) -> tuple[float, float]:
        """(USD, JPY) for that many tokens."""
        usd = (tokens_in * self.input_usd + tokens_out * self.output_usd) / 1_000_000
        jpy = (tokens_in * self.input_jpy + tokens_out * self.output_jpy) / 1_000_000
        return usd, jpy


FREE = Price(0.0, 0.0, 0.0, 0.0)


def price_table(config: dict, usd_jpy: float) -> dict[str, Price]:
    """``{"model": {"input_usd": .., "output_usd": .., ["input_jpy": .., "output_jpy": ..]}}`` → Prices.

    JPY prices default to the USD ones times ``usd_jpy``. Raises ValueError naming the bad entry.
    """
    table = {}
    for model, entry in config.items():
        if not isinstance(entry, dict):
            raise ValueError(f"LLM_PRICES[{model!r}] must be an object with input_usd and output_usd")
        try:
            input_usd, output_usd = float(entry["input_usd"]), float(entry["output_usd"])
            input_jpy = float(entry.get("input_jpy", input_usd * usd_jpy))
            output_jpy = float(entry.get("output_jpy", output_usd * usd_jpy))
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(
                f"LLM_PRICES[{model!r}]: {exc!s}; accepted keys: input_usd, output_usd, input_jpy, output_jpy (numbers)"
            ) from None
        if min(input_usd, output_usd, input_jpy, output_jpy) < 0:
            raise ValueError(f"LLM_PRICES[{model!r}]: prices cannot be negative")
        table[model] = Price(input_usd, output_usd, input_jpy, output_jpy)
    return table


def price_for(table: dict[str, Price], model: str) -> Price | None:
    """The model's price; a dated variant (``gpt-4o-2024-08-06``) falls back to its base name."""
    if model in table:
        return table[model]
    candidates = [name for name in table if model.startswith(name + "-")]
    return table[max(candidates, key=len)] if candidates else None


def _is_cjk(char: str) -> bool:
    if "\u3040" <= char <= "\u30ff" or "\u4e00" <= char <= "\u9fff" or "\uff00" <= char <= "\uffef":
        return True
    return unicodedata.east_asian_width(char) in ("W", "F")


def estimate_tokens(messages: list[dict[str, str]]) -> int:
    """Character-based estimate of the input tokens of a chat request (before calibration)."""
    total = 0.0
    for message in messages:
        text = message.get("content") or ""
        cjk = sum(1 for char in text if _is_cjk(char))
        total += cjk * CJK_TOKENS_PER_CHAR + (len(text) - cjk) * OTHER_TOKENS_PER_CHAR + MESSAGE_OVERHEAD_TOKENS
    return max(1, round(total))


@dataclass(frozen=True)
class Estimate:
    calls: int  # requests expected (cache hits excluded)
    cached: int
    tokens_in: int
    tokens_out: int
    cost_usd: float
    cost_jpy: float
    calibration: float  # actual/estimated input tokens from the ledger (1.0 without history)
    priced: bool  # False when the model has no price (cost shown as 0)


def estimate_cost(
    raw_tokens_in: list[int],
    *,
    cached: int,
    output_tokens_per_call: float,
    calibration: float,
    price: Price | None,
) -> Estimate:
    tokens_in = round(sum(raw_tokens_in) * calibration)
    tokens_out = round(output_tokens_per_call * len(raw_tokens_in))
    usd, jpy = (price or FREE).cost(tokens_in, tokens_out)
    return Estimate(len(raw_tokens_in), cached, tokens_in, tokens_out, usd, jpy, calibration, price is not None)
