"""The async client for OpenAI-compatible chat endpoints: bounded concurrency, rate limit, retries, JSON replies.

No Django import: ``llm.services`` builds a ``GatewayConfig`` from the settings. One ``Gateway``
per run (it owns an ``openai.AsyncOpenAI`` client and its ``llm.limits`` limits: per process, or
shared by every worker through Redis); ``ask`` never raises for a failed item: it returns an
``Outcome`` with ``status`` ``ok``, ``parse_error`` or ``error``. Every attempt is logged (prompt,
model, attempt, status, latency) without the key. A 429/503 with ``Retry-After`` pauses every
request of the limits (all workers with shared limits), not only the one that got it.
"""

from __future__ import annotations

import asyncio
import email.utils
import logging
import random
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from llm.limits import DEFAULT_PREFIX, LEASE_SECONDS, Limits, build_limits
from llm.prompts import Prompt
from llm.schema import ReplyError, parse_reply

if TYPE_CHECKING:
    import openai

# openai takes ~0.5 s to import: it is imported where a client is opened or its errors are told apart, not
# at Django start-up (issue 31).

logger = logging.getLogger("llm")

JSON_MODES = ("json_schema", "json_object", "prompt")
REASK = (
    "Your previous reply could not be used: {error}. "
    "Reply again with only one JSON object that follows the required format, nothing else."
)


@dataclass(frozen=True)
class GatewayConfig:
    base_url: str
    api_key: str
    timeout: float = 60.0
    max_retries: int = 4
    max_concurrency: int = 16
    requests_per_minute: int = 0
    backoff_base: float = 0.5  # seconds; attempt n waits up to base * 2**n (full jitter)
    backoff_cap: float = 30.0
    retry_after_cap: float = 120.0
    json_mode: str = "json_schema"  # the first mode tried; falls back along JSON_MODES
    limits: str = "process"  # process | redis (llm.limits)
    limits_redis_url: str = ""
    limits_key_prefix: str = DEFAULT_PREFIX
    limits_lease_seconds: float = LEASE_SECONDS  # a dead worker's slot is free again after this


@dataclass
class Outcome:
    status: str  # ok | parse_error | error
    parsed: dict | None = None
    raw: str = ""
    error: str = ""
    attempts: int = 0  # HTTP requests made, retries and the re-ask included
    tokens_in: int = 0
    tokens_out: int = 0
    latency_ms: float = 0.0
    json_mode: str = ""
    log: list[dict] = field(default_factory=list)


def retry_after_seconds(headers) -> float | None:
    """The wait a 429/503 asks for: ``retry-after-ms``, ``Retry-After`` in seconds or as an HTTP date."""
    if headers is None:
        return None
    value = headers.get("retry-after-ms")
    if value:
        try:
            return max(0.0, float(value) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        parsed = email.utils.parsedate_to_datetime(value) if value else None
        if parsed is None:
            return None
        return max(0.0, parsed.timestamp() - time.time())


def _retryable(exc: Exception) -> bool:
    import openai

    if isinstance(exc, openai.APITimeoutError | openai.APIConnectionError | openai.RateLimitError):
        return True
    return isinstance(exc, openai.APIStatusError) and exc.status_code >= 500


def _mode_rejected(exc: Exception) -> bool:
    """A 400 that says the endpoint does not take this ``response_format``."""
    import openai

    if not isinstance(exc, openai.BadRequestError):
        return False
    text = f"{getattr(exc, 'param', '') or ''} {exc.message or ''}".lower()
    return "response_format" in text or "json_schema" in text or "json mode" in text or "json_object" in text


def open_client(config: GatewayConfig) -> openai.AsyncOpenAI:
    import openai

    return openai.AsyncOpenAI(
        base_url=config.base_url, api_key=config.api_key or "not-needed", timeout=config.timeout, max_retries=0
    )


class Gateway:
    def __init__(self, config: GatewayConfig, limits: Limits | None = None, client=None) -> None:
        """``client``: an ``openai.AsyncOpenAI`` to share (its connections and TLS context outlive this run);
        by default the gateway opens its own and closes it with itself."""
        self.config = config
        self._owns_client = client is None
        self.client = client if client is not None else open_client(config)
        self.limits = (
            limits
            if limits is not None
            else build_limits(
                config.limits,
                requests_per_minute=config.requests_per_minute,
                max_concurrency=config.max_concurrency,
                redis_url=config.limits_redis_url,
                lease_seconds=config.limits_lease_seconds,
                prefix=config.limits_key_prefix,
            )
        )
        self.modes: dict[str, str] = {}  # model → the JSON mode that the endpoint accepted

    async def close(self) -> None:
        try:
            if self._owns_client:
                await self.client.close()
        finally:
            await self.limits.close()

    def _scrub(self, text: str) -> str:
        key = self.config.api_key
        return text.replace(key, "[redacted]") if key and len(key) >= 6 else text

    def _response_format(self, prompt: Prompt, mode: str) -> dict | None:
        if mode == "json_schema":
            return {
                "type": "json_schema",
                "json_schema": {"name": prompt.name.replace(".", "_"), "schema": prompt.schema, "strict": False},
            }
        if mode == "json_object":
            return {"type": "json_object"}
        return None

    async def _pause_for(self, prompt: Prompt, exc: openai.APIStatusError) -> None:
        """A 429/503 with ``Retry-After``: no request of these limits (every worker's, when shared) starts before."""
        wait = retry_after_seconds(exc.response.headers) if exc.status_code in (429, 503) else None
        if not wait:
            return
        pause = min(wait, self.config.retry_after_cap)
        logger.info(
            "llm %s: status %d asks to wait %.1f s; no request starts before (%s limits)",
            prompt.ref, exc.status_code, pause, self.limits.mode,
        )  # fmt: skip
        await self.limits.pause(pause)

    async def _request(self, prompt: Prompt, messages, *, model: str, params: dict, outcome: Outcome):
        """One chat completion with retries and JSON-mode fallback; returns the reply text or raises the last error."""
        import openai
        from openai.types.chat import ChatCompletion

        attempt = 0
        mode = self.modes.get(model, self.config.json_mode)
        while True:
            kwargs = dict(params)
            response_format = self._response_format(prompt, mode)
            if response_format is not None:
                kwargs["response_format"] = response_format
            outcome.attempts += 1
            started = None
            try:
                async with self.limits.slot():
                    await self.limits.ready()
                    started = time.monotonic()
                    try:
                        # Posted as is with the SDK's client.post: ``chat.completions.create`` would first run
                        # its recursive TypedDict transform over ~40 arguments, about a tenth of a worker's CPU
                        # per call in bench/workers.py, for a body that is already what the API takes.
                        response = await self.client.post(
                            "/chat/completions", body={"model": model, "messages": messages, **kwargs},
                            cast_to=ChatCompletion,
                        )  # fmt: skip
                    except openai.APIStatusError as exc:
                        await self._pause_for(prompt, exc)  # before the slot is free: whoever takes it waits too
                        raise
            except Exception as exc:  # sorted below: nothing escapes as an item failure
                elapsed = (time.monotonic() - started) * 1000 if started is not None else 0.0
                status = getattr(exc, "status_code", None)
                entry = {"attempt": outcome.attempts, "status": status or type(exc).__name__, "ms": round(elapsed, 1)}
                outcome.log.append(entry)
                logger.info(
                    "llm %s model=%s attempt=%d failed status=%s in %.0f ms",
                    prompt.ref, model, outcome.attempts, entry["status"], elapsed,
                )  # fmt: skip
                if _mode_rejected(exc) and mode != JSON_MODES[-1]:
                    mode = JSON_MODES[JSON_MODES.index(mode) + 1]  # not a retry: the endpoint told us what it takes
                    logger.info("llm %s model=%s: falling back to JSON mode %s", prompt.ref, model, mode)
                    continue
                if not _retryable(exc) or attempt >= self.config.max_retries:
                    raise
                wait = None
                if isinstance(exc, openai.APIStatusError):
                    wait = retry_after_seconds(exc.response.headers)
                if wait is None:
                    wait = random.uniform(0, min(self.config.backoff_cap, self.config.backoff_base * 2**attempt))  # noqa: S311
                attempt += 1
                await asyncio.sleep(min(wait, self.config.retry_after_cap))
                continue
            elapsed = (time.monotonic() - started) * 1000
            outcome.latency_ms += elapsed
            usage = response.usage
            if usage is not None:
                outcome.tokens_in += usage.prompt_tokens or 0
                outcome.tokens_out += usage.completion_tokens or 0
            outcome.log.append({"attempt": outcome.attempts, "status": 200, "ms": round(elapsed, 1)})
            logger.info("llm %s model=%s attempt=%d ok in %.0f ms", prompt.ref, model, outcome.attempts, elapsed)
            self.modes[model] = mode
            outcome.json_mode = mode
            choice = response.choices[0] if response.choices else None
            return (choice.message.content if choice and choice.message else None) or ""

    async def ask(self, prompt: Prompt, messages: list[dict], *, model: str, params: dict) -> Outcome:
        """Ask once, re-ask once when the reply is not the expected JSON; never raises for the item."""
        outcome = Outcome(status="error")
        conversation = list(messages)
        try:
            for round_ in range(2):
                outcome.raw = await self._request(prompt, conversation, model=model, params=params, outcome=outcome)
                try:
                    value = parse_reply(outcome.raw, prompt.schema)
                    prompt.validate_reply(value)
                except (ReplyError, ValueError) as exc:
                    outcome.error = str(exc)
                    if round_ == 0:
                        conversation = [
                            *conversation,
                            {"role": "assistant", "content": outcome.raw},
                            {"role": "user", "content": REASK.format(error=exc)},
                        ]
                        continue
                    outcome.status = "parse_error"
                    return outcome
                outcome.status, outcome.parsed, outcome.error = "ok", value, ""
                return outcome
        except Exception as exc:  # the final failure is this item's error result
            outcome.status = "error"
            outcome.error = self._scrub(f"{type(exc).__name__}: {getattr(exc, 'message', None) or exc}")
        return outcome
