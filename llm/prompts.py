"""Named, versioned prompts (``layer3.gv_relevance@1``): the registry every LLM call goes through.

Pure (no Django). A prompt is its system text, a user template with ``{{variable}}`` slots, the
JSON Schema of the reply, an optional cross-field check and an optional offline baseline judge.
Its fingerprint (a hash of everything that reaches the model) is recorded per version in
``llm/prompt_versions.json``: changing the text of a released version fails the test suite and
``manage.py llm_prompts --check``; a change needs a new version.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

_SLOT = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")


class PromptError(LookupError):
    pass


@dataclass(frozen=True)
class Prompt:
    name: str
    version: int
    system: str
    user: str
    schema: dict
    description: str = ""
    max_tokens: int = 400
    check: Callable[[dict], str | None] | None = field(default=None, compare=False)
    baseline: Callable[[Mapping[str, str]], dict] | None = field(default=None, compare=False)

    @property
    def ref(self) -> str:
        return f"{self.name}@{self.version}"

    @property
    def variables(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(_SLOT.findall(self.user)))

    @property
    def fingerprint(self) -> str:
        payload = json.dumps(
            {"system": self.system, "user": self.user, "schema": self.schema, "max_tokens": self.max_tokens},
            ensure_ascii=False,
            sort_keys=True,
        )
        return hashlib.sha256(payload.encode()).hexdigest()

    def render(self, variables: Mapping[str, object]) -> list[dict[str, str]]:
        """Chat messages with every slot filled; a missing variable raises ``PromptError`` naming it."""
        missing = [name for name in self.variables if name not in variables]
        if missing:
            raise PromptError(f"{self.ref}: missing variable(s) {', '.join(missing)}")

        def fill(match: re.Match) -> str:
            value = variables[match.group(1)]
            return "" if value is None else str(value)

        return [{"role": "system", "content": self.system}, {"role": "user", "content": _SLOT.sub(fill, self.user)}]

    def validate_reply(self, value: dict) -> None:
        """Cross-field rules beyond the schema (e.g. the label must match the score); raises ``ValueError``."""
        if self.check is not None:
            problem = self.check(value)
            if problem:
                raise ValueError(problem)


_REGISTRY: dict[str, Prompt] = {}


def register(prompt: Prompt) -> Prompt:
    existing = _REGISTRY.get(prompt.ref)
    if existing is not None and existing.fingerprint != prompt.fingerprint:
        raise PromptError(f"{prompt.ref} is already registered with different text; register a new version")
    _REGISTRY[prompt.ref] = prompt
    return prompt


def get(ref: str) -> Prompt:
    """``name@version``, or ``name`` alone for its latest version."""
    if "@" not in ref:
        versions = [p for p in _REGISTRY.values() if p.name == ref]
        if not versions:
            raise PromptError(f"no prompt named {ref!r} (known: {', '.join(sorted(_REGISTRY)) or 'none'})")
        return max(versions, key=lambda p: p.version)
    try:
        return _REGISTRY[ref]
    except KeyError:
        raise PromptError(f"no prompt {ref!r} (known: {', '.join(sorted(_REGISTRY)) or 'none'})") from None


def all_prompts() -> list[Prompt]:
    return [_REGISTRY[ref] for ref in sorted(_REGISTRY)]


def version_problems(prompts: list[Prompt], recorded: Mapping[str, str]) -> list[str]:
    """Prompts whose text changed under a released version, or that are not recorded yet."""
    problems = []
    for prompt in prompts:
        known = recorded.get(prompt.ref)
        if known is None:
            problems.append(f"{prompt.ref} is not recorded in prompt_versions.json (run manage.py llm_prompts --lock)")
        elif known != prompt.fingerprint:
            problems.append(f"{prompt.ref} changed after it was recorded: give the new text a new version")
    return problems
