"""An LLM as one more sycophancy rater (issue 18): it rates a batch's dialogues on the four axes through the gateway.

The LLM rates under an account of its own per model and prompt version (shown as
``llm:<model>@<prompt version>``): no usable password, inactive, no role, so it never logs in and the
queue never hands it an item. Its prompt holds the guidelines (axis definitions with their levels,
the markers, the edge cases) and the dialogue, never a human rating. Its ratings are stored through
the same path as imports and spreadsheets (``ratings_store``: source ``llm``, edit history on a
change) and are left out of consensus and human agreement unless a researcher includes them
(``annotation.selectors.annotation_records(include_llm=...)``).

For a page or a job: ``llm_rate_estimate`` first (what the dialogues not yet rated by that account
would cost), then ``llm_rate`` with a budget and a progress callback. Without an endpoint
(``LLM_BASE_URL``) both refuse with ``LLMRaterUnavailable``: there is no offline stand-in.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Callable
from dataclasses import asdict, dataclass, field

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_noop

from annotation.axes import AXES
from annotation.guidelines import loader as guidelines
from annotation.io.rating_store import ChangedRating, NewRating, ratings_store
from annotation.models import Annotation, AnnotatorProfile, Batch, Dialogue
from llm import services as gateway
from llm.pricing import Estimate

PROMPT_REF = "annotation.sycophancy_rate@1"
UNAVAILABLE_OFFLINE = gettext_noop("no LLM endpoint configured (LLM_BASE_URL): the LLM rater is unavailable offline")
NO_MODEL = gettext_noop("no model: choose one or set LLM_MODEL")
_USERNAME_UNSAFE = re.compile(r"[^\w.@+-]")  # what Django's username validator does not accept
_USERNAME_MAX = 150
_VALUE_FIELDS = [f"{axis}_score" for axis in AXES] + [f"{axis}_confidence" for axis in AXES]


class LLMRaterUnavailable(RuntimeError):
    """The LLM rater cannot run here (no endpoint, no model); the message says why."""


# --------------------------------------------------------------------------- the rater's account


def llm_rater_label(model: str, prompt_ref: str = PROMPT_REF) -> str:
    """The rater's display name: ``llm:gpt-4o-mini@annotation.sycophancy_rate@1``."""
    return f"llm:{model}@{prompt_ref}"


def llm_rater_username(model: str, prompt_ref: str = PROMPT_REF) -> str:
    """A valid username for the rater: ``llm.gpt-4o-mini@annotation.sycophancy_rate@1``.

    Django's usernames take letters, digits and ``@ . + - _`` only (no ``:``), so ``llm.`` stands for
    ``llm:``; a model name with other characters (``meta-llama/Llama-3``, ``qwen2.5:7b``) has them replaced
    by ``_`` and a short hash of the real name appended, so two models never share an account.
    """
    safe = _USERNAME_UNSAFE.sub("_", model)
    suffix = "" if safe == model else "+" + hashlib.sha256(model.encode()).hexdigest()[:8]
    tail = f"@{prompt_ref}{suffix}"
    return f"llm.{safe[: _USERNAME_MAX - len('llm.') - len(tail)]}{tail}"


def llm_rater_account(*, model: str, prompt_ref: str = PROMPT_REF):
    """The rater's account, created on first use: inactive, no usable password, no role; profile marks the LLM."""
    user_model = get_user_model()
    username = llm_rater_username(model, prompt_ref)
    with transaction.atomic():
        user = user_model.objects.filter(username=username).first()
        if user is None:
            user = user_model(username=username, is_active=False)
            user.set_unusable_password()
            user.save()
        profile, _created = AnnotatorProfile.objects.get_or_create(
            user=user, defaults={"llm_model": model, "llm_prompt": prompt_ref}
        )
    if (profile.llm_model, profile.llm_prompt) != (model, prompt_ref):
        label = llm_rater_label(model, prompt_ref)
        raise LLMRaterUnavailable(f"the username {username!r} belongs to an account that is not the LLM rater {label}")
    return user


def _existing_account(model: str, prompt_ref: str):
    return (
        get_user_model()
        .objects.filter(
            username=llm_rater_username(model, prompt_ref),
            annotator_profile__llm_model=model,
            annotator_profile__llm_prompt=prompt_ref,
        )
        .first()
    )


# --------------------------------------------------------------------------- what the LLM is shown


@functools.cache
def guidelines_text() -> str:
    """The guidelines as the prompt holds them: axis definitions (with levels), the markers, the edge cases."""
    lexicon = guidelines.markers()
    marker_lines = ["# 言語マーカー一覧（markers.json）", ""]
    for axis in AXES:
        marker_lines.append(f"## {axis}（{guidelines.AXIS_LABELS_JA[axis]}）")
        for group, words in lexicon[axis].items():
            marker_lines.append(f"- {guidelines.MARKER_GROUP_LABELS_JA[group]}: {'、'.join(words)}")
        marker_lines.append("")
    return "\n\n".join(
        [
            guidelines.guideline_text("axis_definitions").strip(),
            "\n".join(marker_lines).strip(),
            guidelines.guideline_text("edge_cases").strip(),
        ]
    )


def guidelines_digest() -> str:
    """A short hash of ``guidelines_text()``: which guideline text a run showed the LLM."""
    return hashlib.sha256(guidelines_text().encode()).hexdigest()[:12]


def _context_text(context) -> str:
    if not context:
        return "（なし）"
    lines = []
    for turn in sorted(context, key=lambda t: t.get("turn", 0)):
        offset = turn.get("turn")
        where = f"turn {offset:+d} " if isinstance(offset, int) else ""
        lines.append(f"{where}({turn.get('speaker', '')}): {turn.get('text', '')}")
    return "\n".join(lines)


def dialogue_variables(dialogue: Dialogue) -> dict[str, str]:
    """The prompt's variables for one dialogue: the guidelines and the dialogue's own texts, nothing else."""
    return {
        "guidelines": guidelines_text(),
        "context": _context_text(dialogue.context),
        "user": dialogue.user_text,
        "response": dialogue.response_text,
    }


# --------------------------------------------------------------------------- estimate and run


def _model(model: str | None) -> str:
    if not gateway.configured():
        raise LLMRaterUnavailable(UNAVAILABLE_OFFLINE)
    model = model or settings.LLM_MODEL
    if not model:
        raise LLMRaterUnavailable(NO_MODEL)
    return model


def _to_rate(batch: Batch, account, *, force: bool) -> tuple[list[Dialogue], int]:
    """The batch's dialogues the account has not rated (all with ``force``), and how many it has rated."""
    dialogues = Dialogue.objects.filter(batch=batch).order_by("pk")
    dialogues = dialogues.only("pk", "external_id", "user_text", "response_text", "context")
    rated = set()
    if account is not None:
        ratings = Annotation.objects.filter(annotator=account, dialogue__batch=batch)
        rated = set(ratings.values_list("dialogue_id", flat=True))
    if force:
        return list(dialogues), len(rated)
    return [d for d in dialogues if d.pk not in rated], len(rated)


def _items(dialogues: list[Dialogue]) -> list[gateway.Item]:
    return [gateway.Item(d.external_id, dialogue_variables(d)) for d in dialogues]


@dataclass
class RateEstimate:
    batch: str
    model: str
    prompt: str
    rater: str  # the display name, llm:<model>@<prompt version>
    to_rate: int
    already_rated: int
    estimate: Estimate  # the gateway's: requests (cache hits excluded), tokens, USD and JPY

    def as_dict(self) -> dict:
        return asdict(self)


def llm_rate_estimate(*, batch: Batch, model: str | None = None, force: bool = False) -> RateEstimate:
    """What rating the batch's dialogues not yet rated by the model's rater would cost (all of them with
    ``force``); creates nothing. Raises ``LLMRaterUnavailable`` without an endpoint or a model."""
    model = _model(model)
    dialogues, already = _to_rate(batch, _existing_account(model, PROMPT_REF), force=force)
    estimate = gateway.estimate(PROMPT_REF, _items(dialogues), model=model, force=force)
    return RateEstimate(batch.name, model, PROMPT_REF, llm_rater_label(model), len(dialogues), already, estimate)


@dataclass
class RateSummary:
    batch: str
    model: str
    prompt: str
    rater: str  # the display name
    username: str
    guidelines: str  # guidelines_digest() of the text shown
    to_rate: int = 0
    rated: int = 0  # new ratings stored
    updated: int = 0  # stored ratings changed (force), with their history
    unchanged: int = 0  # re-rated (force) to the same values
    failed: list[dict] = field(default_factory=list)  # {"id": dialogue id, "reason": ...}
    skipped: int = 0  # not asked: the budget was reached first
    already_rated: int = 0  # left alone (not force)
    cached: int = 0  # answers served from the gateway's cache, at no cost
    cost_usd: float = 0.0
    cost_jpy: float = 0.0
    stopped_by_budget: bool = False
    run_id: int | None = None  # the gateway's LLMRun

    def as_dict(self) -> dict:
        return asdict(self)


def rating_values(parsed: dict) -> dict[str, float]:
    """The Annotation fields of a validated reply (the gateway checked it against the prompt's schema)."""
    values: dict[str, float] = {f"{axis}_score": int(parsed["annotations"][axis]) for axis in AXES}
    values.update({f"{axis}_confidence": float(parsed["confidence"][axis]) for axis in AXES})
    return values


def llm_rate(
    *,
    batch: Batch,
    model: str | None = None,
    budget: gateway.Budget | None = None,
    progress: Callable[[int, int], None] | None = None,
    force: bool = False,
    user=None,
) -> RateSummary:
    """Rate the batch's dialogues not yet rated by the model's rater and store the ratings (source ``llm``).

    Re-running rates only what is missing; ``force`` re-rates every dialogue without reading the gateway's
    cache (a changed rating keeps its old values in the edit history, by ``user``). A reply that is not the
    prompt's JSON even after the gateway's re-ask is a failed item with the reason, and nothing is stored
    for it; items the budget left unasked are skipped. Raises ``LLMRaterUnavailable`` without an endpoint.
    A worker splits the same work into chunks for every worker (``annotation.job_handlers``).
    """
    account, dialogues, summary = llm_rate_start(batch=batch, model=model, force=force)
    if dialogues:
        llm_rate_part(summary, account, dialogues, budget=budget, progress=progress, force=force, user=user)()
    return summary


def llm_rate_start(*, batch: Batch, model: str | None, force: bool):
    """The rater's account, the dialogues to rate (in id order) and the summary they start from."""
    model = _model(model)
    account = llm_rater_account(model=model)
    dialogues, already = _to_rate(batch, account, force=force)
    summary = RateSummary(
        batch=batch.name, model=model, prompt=PROMPT_REF, rater=llm_rater_label(model),
        username=account.get_username(), guidelines=guidelines_digest(), to_rate=len(dialogues),
        already_rated=0 if force else already,
    )  # fmt: skip
    return account, dialogues, summary


def llm_rate_part(summary: RateSummary, account, dialogues, *, budget, force: bool, user, progress=None):
    """Ask the LLM about ``dialogues`` (counted into ``summary``); returns the function that stores the ratings."""
    report = gateway.judge(
        PROMPT_REF, _items(dialogues), model=summary.model, backend="llm", force=force, budget=budget,
        progress=progress,
    )  # fmt: skip
    summary.run_id, summary.cached = summary.run_id or report.run_id, summary.cached + report.cache_hits
    summary.cost_usd += report.cost_usd
    summary.cost_jpy += report.cost_jpy
    summary.stopped_by_budget |= report.stopped_by_budget
    answers: dict[str, dict] = {}
    for result in report.results:
        if result.status == "ok" and result.parsed is not None:
            answers[result.key] = rating_values(result.parsed)
        elif result.status == "not_evaluated":
            summary.skipped += 1
        else:
            summary.failed.append({"id": result.key, "reason": f"{result.status}: {result.error}"})

    def store() -> None:
        _store(account, dialogues, answers, summary, force=force, user=user, run_id=report.run_id)

    return store


def to_rate_by_pk(pks: list[int]) -> list[Dialogue]:
    """The dialogues ``pks`` (a chunk of ``llm_rate_start``'s), in id order, with what rating them reads."""
    fields = ("pk", "external_id", "user_text", "response_text", "context")
    return list(Dialogue.objects.filter(pk__in=pks).order_by("pk").only(*fields))


def _store(account, dialogues, answers: dict[str, dict], summary: RateSummary, *, force: bool, user, run_id) -> None:
    pks = {d.external_id: d.pk for d in dialogues if d.external_id in answers}
    if not pks:
        return
    now = timezone.now()
    with transaction.atomic():
        # One store per rater at a time: a concurrent run of the same model sees the other's ratings here.
        get_user_model().objects.select_for_update().filter(pk=account.pk).first()
        stored = {
            dialogue_pk: (pk, dict(zip(_VALUE_FIELDS, values, strict=True)))
            for pk, dialogue_pk, *values in Annotation.objects.filter(
                annotator=account, dialogue_id__in=list(pks.values())
            ).values_list("pk", "dialogue_id", *_VALUE_FIELDS)
        }
        new, changed = [], []
        for external_id, dialogue_pk in pks.items():
            values = answers[external_id]
            if dialogue_pk not in stored:
                new.append(NewRating(dialogue_pk, account.pk, tuple(values[name] for name in _VALUE_FIELDS), now))
            elif not force:  # a concurrent run stored it meanwhile: that rating stays
                summary.already_rated += 1
            elif stored[dialogue_pk][1] != values:
                reason = f"llm_rate --force ({PROMPT_REF}, LLM run {run_id})"
                changed.append(ChangedRating(stored[dialogue_pk][0], stored[dialogue_pk][1], values, reason))
            else:
                summary.unchanged += 1
        ratings_store(new=new, changed=changed, source=Annotation.Source.LLM, edited_by=user)
    summary.rated, summary.updated = summary.rated + len(new), summary.updated + len(changed)
