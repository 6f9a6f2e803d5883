"""``llm_ping``: does the configured endpoint answer, which model, how fast, does JSON mode work."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass

from llm.client import GatewayConfig


@dataclass
class PingReport:
    endpoint: str
    model: str
    ok: bool
    latency_ms: float = 0.0
    models: list[str] | None = None  # what /models lists, when the endpoint has it
    json_modes: dict[str, str] | None = None  # mode → "yes" or the reason it failed
    error: str = ""


PING_MESSAGES = [
    {"role": "system", "content": "Reply with one JSON object only."},
    {"role": "user", "content": 'Reply with exactly this JSON object: {"ok": true}'},
]


def ping(config: GatewayConfig, model: str, endpoint_label: str) -> PingReport:
    import openai  # ~0.5 s: only when the endpoint is pinged (issue 31)

    client = openai.OpenAI(
        base_url=config.base_url, api_key=config.api_key or "not-needed", timeout=config.timeout, max_retries=0
    )
    report = PingReport(endpoint=endpoint_label, model=model, ok=False, json_modes={})
    try:
        report.models = sorted(m.id for m in client.models.list())
    except openai.APIError:
        report.models = None  # many local servers have no /models; not an error
    formats = {
        "json_schema": {
            "type": "json_schema",
            "json_schema": {
                "name": "ping",
                "schema": {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]},
            },
        },
        "json_object": {"type": "json_object"},
        "prompt": None,
    }
    for mode, response_format in formats.items():
        kwargs = {"response_format": response_format} if response_format else {}
        started = time.monotonic()
        try:
            response = client.chat.completions.create(
                model=model, messages=PING_MESSAGES, temperature=0.0, max_tokens=20, **kwargs
            )
        except openai.APIError as exc:
            report.json_modes[mode] = f"no ({type(exc).__name__}: {getattr(exc, 'message', exc)})"
            if isinstance(exc, openai.APIConnectionError | openai.AuthenticationError | openai.NotFoundError):
                report.error = report.json_modes[mode]
                break
            continue
        elapsed = (time.monotonic() - started) * 1000
        if not report.ok:
            report.ok, report.latency_ms = True, elapsed
            report.model = response.model or model
        content = response.choices[0].message.content if response.choices else ""
        try:
            valid = isinstance(json.loads(content or ""), dict)
        except json.JSONDecodeError:
            valid = False
        report.json_modes[mode] = "yes" if valid else f"answered, but not with a JSON object: {content[:60]!r}"
    client.close()
    return report
