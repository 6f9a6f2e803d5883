"""The LLM ledger: every request made (the persistent cache) and every run of many calls."""

from __future__ import annotations

from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class LLMRun(models.Model):
    """One batch of judge calls: what it asked, what it cost, whether the budget stopped it."""

    prompt = models.CharField(_("prompt"), max_length=100)  # name@version
    model = models.CharField(_("model"), max_length=200)
    endpoint = models.CharField(_("endpoint"), max_length=300, blank=True)  # scheme://host[:port]/path, no secrets
    items = models.PositiveIntegerField(_("items"), default=0)
    requests = models.PositiveIntegerField(_("requests"), default=0)  # HTTP requests, retries included
    cache_hits = models.PositiveIntegerField(_("cache hits"), default=0)
    succeeded = models.PositiveIntegerField(_("succeeded"), default=0)
    parse_errors = models.PositiveIntegerField(_("parse errors"), default=0)
    errors = models.PositiveIntegerField(_("errors"), default=0)
    not_evaluated = models.PositiveIntegerField(_("not evaluated"), default=0)
    estimated_cost_usd = models.FloatField(_("estimated cost (USD)"), default=0.0)
    estimated_cost_jpy = models.FloatField(_("estimated cost (JPY)"), default=0.0)
    cost_usd = models.FloatField(_("cost (USD)"), default=0.0)
    cost_jpy = models.FloatField(_("cost (JPY)"), default=0.0)
    budget = models.FloatField(_("budget"), null=True, blank=True)
    budget_currency = models.CharField(_("budget currency"), max_length=3, blank=True)
    stopped_by_budget = models.BooleanField(_("stopped by the budget"), default=False)
    started_at = models.DateTimeField(_("started at"), default=timezone.now)
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True)

    class Meta:
        ordering = ["-started_at"]
        verbose_name = _("LLM run")
        verbose_name_plural = _("LLM runs")

    def __str__(self) -> str:
        return f"{self.prompt} · {self.model} · {self.started_at:%Y-%m-%d %H:%M}"


class LLMCall(models.Model):
    """One judged item sent to an endpoint: request, raw reply, parsed result, usage, cost (also the cache)."""

    class Status(models.TextChoices):
        OK = "ok", _("ok")
        PARSE_ERROR = "parse_error", _("parse error")
        ERROR = "error", _("error")

    cache_key = models.CharField(_("cache key"), max_length=64, db_index=True)
    run = models.ForeignKey(
        LLMRun, verbose_name=_("run"), null=True, blank=True, on_delete=models.SET_NULL, related_name="calls"
    )
    prompt = models.CharField(_("prompt"), max_length=100)
    model = models.CharField(_("model"), max_length=200)
    endpoint = models.CharField(_("endpoint"), max_length=300)
    request = models.JSONField(_("request"))  # messages and generation parameters; never headers or keys
    response_raw = models.TextField(_("raw response"), blank=True)
    parsed = models.JSONField(_("parsed result"), null=True, blank=True)
    status = models.CharField(_("status"), max_length=16, choices=Status.choices)
    error = models.TextField(_("error"), blank=True)
    attempts = models.PositiveIntegerField(_("attempts"), default=0)
    json_mode = models.CharField(_("JSON mode"), max_length=16, blank=True)
    tokens_in = models.PositiveIntegerField(_("input tokens"), default=0)
    tokens_out = models.PositiveIntegerField(_("output tokens"), default=0)
    estimated_tokens_in = models.PositiveIntegerField(_("estimated input tokens"), default=0)
    latency_ms = models.FloatField(_("latency (ms)"), default=0.0)
    cost_usd = models.FloatField(_("cost (USD)"), default=0.0)
    cost_jpy = models.FloatField(_("cost (JPY)"), default=0.0)
    created_at = models.DateTimeField(_("started at"), default=timezone.now)
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        verbose_name = _("LLM call")
        verbose_name_plural = _("LLM calls")
        indexes = [models.Index(fields=["model", "status", "-created_at"], name="llmcall_model_status")]

    def __str__(self) -> str:
        return f"{self.prompt} · {self.model} · {self.status}"


class LLMCacheEntry(models.Model):
    """One cache key of the ledger: who is asking it now, and which call answers it (single-flight).

    A worker claims a key by inserting this row (the key is unique) or by taking over a failed or stale
    claim; only the claimer calls the endpoint, the others wait for ``call``. The claimer refreshes
    ``claimed_at`` while it works, so a claim left older than the stale window means that it died.
    """

    class Status(models.TextChoices):
        PENDING = "pending", _("being asked")
        DONE = "done", _("answered")
        FAILED = "failed", _("failed")

    cache_key = models.CharField(_("cache key"), max_length=64, unique=True)
    status = models.CharField(_("status"), max_length=16, choices=Status.choices)
    claimed_by = models.CharField(_("claimed by"), max_length=200, blank=True)  # host:pid:token of the claimer
    claimed_at = models.DateTimeField(_("claimed at"), default=timezone.now)
    call = models.ForeignKey(
        LLMCall, verbose_name=_("call"), null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )  # done: the answer; failed: the failed call (deleting the call frees the key)

    class Meta:
        verbose_name = _("LLM cache entry")
        verbose_name_plural = _("LLM cache entries")

    def __str__(self) -> str:
        return f"{self.cache_key[:12]} · {self.status}"


class LLMBudget(models.Model):
    """What one run may spend on LLM calls, shared by every worker that takes part of it.

    Before each call a worker reserves the call's estimate with one conditional ``UPDATE`` (``spent +
    reserved + estimate <= amount``); after it, the reservation becomes the call's actual cost. A
    reservation refused marks the budget ``exhausted_at``: the run stops cleanly, whatever the number
    of workers, within one call of its amount (a call may cost more than its estimate).
    """

    key = models.CharField(_("key"), max_length=100, unique=True)  # "layer3.run:12", "annotation.llm_rate:<job>"
    amount = models.FloatField(_("amount"))
    currency = models.CharField(_("currency"), max_length=3)  # JPY | USD
    spent = models.FloatField(_("spent"), default=0.0)
    reserved = models.FloatField(_("reserved"), default=0.0)
    calls = models.PositiveIntegerField(_("calls"), default=0)
    exhausted_at = models.DateTimeField(_("exhausted at"), null=True, blank=True)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        verbose_name = _("LLM budget")
        verbose_name_plural = _("LLM budgets")

    def __str__(self) -> str:
        return f"{self.key}: {self.spent:.2f} of {self.amount:.2f} {self.currency}"
