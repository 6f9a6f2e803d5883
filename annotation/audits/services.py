"""Creating judge audits from a judged Layer3 batch, closing and reopening them (issue 18).

The units come from ``core.judge_audits`` (Layer3 registers the source; this app never imports
Layer3), the sample from ``annotation.audits.sampling``: stratified by (model config, judge score)
so that rare verdicts are in it, with each item's design weight N_h/n_h stored beside it so that
what people say about the sample can be reported for the whole batch. The audit, its design and
its items are written in one transaction: an audit is never seen half made.

``design`` (JSON) is ``{"strata": [{"stratum": [model_config, score], "population": N_h,
"sampled": n_h}], "minPerStratum": 2, "judgeRates": {"<model>@<prompt>": rate}, "population": N}``;
``judgeRates`` is the judge's useful (GV) / correct (W2WR) rate over the whole batch, which the
calibration report sets beside the rate re-estimated from human labels.
"""

from __future__ import annotations

import secrets
from numbers import Integral

from django.db import IntegrityError, transaction
from django.utils import timezone

from annotation.audits.sampling import DEFAULT_MIN_PER_STRATUM, SampledUnit, stratified_sample
from annotation.models import AuditGuidelinesRead, AuditItem, JudgeAudit
from core.judge_audits import AuditSourceError, JudgedPopulation, JudgedUnit, judged_units

MAX_PER_ITEM = 100
MAX_SEED = 2**63 - 1  # JudgeAudit.seed is a BigIntegerField
MAX_NAME = 150
KIND_TITLES = {JudgeAudit.Kind.GV: "GV", JudgeAudit.Kind.W2WR: "W2WR"}


class AuditError(ValueError):
    """The audit cannot be created as asked: the message names what was given and what would do."""


def _integer(name: str, value: object, minimum: int, maximum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, Integral) or not minimum <= value <= maximum:
        raise AuditError(f"{name} must be a whole number from {minimum} to {maximum}; got {value!r}")
    return int(value)


def minimum_size(units: list[JudgedUnit], min_per_stratum: int = DEFAULT_MIN_PER_STRATUM) -> int:
    """The smallest sample that holds every (model config, score) stratum of ``units``."""
    sizes: dict[tuple, int] = {}
    for unit in units:
        stratum = (unit.model_config, unit.score)
        sizes[stratum] = sizes.get(stratum, 0) + 1
    return sum(min(min_per_stratum, size) for size in sizes.values())


def judge_audit_create(
    *,
    batch: str,
    kind: str,
    size: int = 200,
    per_item: int = 3,
    seed: int | None = None,
    name: str | None = None,
    user=None,
) -> JudgeAudit:
    """Draw a stratified sample of ``batch``'s judged units of ``kind`` and store it as an open audit.

    ``seed`` None draws a random one, which is stored (the same batch, size and seed give the same
    sample). ``name`` None makes "<batch> · GV audit · <YYYY-MM-DD HH:MM>" (with " (2)", ... if
    taken). Raises ``AuditError`` for bad arguments, a batch without judged units or a size too small
    to hold every stratum; nothing is stored then.
    """
    if kind not in JudgeAudit.Kind.values:
        raise AuditError(f"kind {kind!r}: accepted {', '.join(JudgeAudit.Kind.values)} (GV items or W2WR bindings)")
    per_item = _integer("ratings per item", per_item, 1, MAX_PER_ITEM)
    size = _integer("sample size", size, 1, 10**9)
    seed = secrets.randbelow(2**31) if seed is None else _integer("seed", seed, 0, MAX_SEED)
    if name is not None:
        name = name.strip()
        if not name or len(name) > MAX_NAME:
            raise AuditError(f"the audit's name must have 1 to {MAX_NAME} characters; got {len(name)}")
        if JudgeAudit.objects.filter(name=name).exists():
            raise AuditError(f"an audit named {name!r} exists already; choose another name")
    try:
        population = judged_units(batch, kind)
    except AuditSourceError as exc:
        raise AuditError(str(exc)) from exc
    units = list(population.units)
    needed = minimum_size(units)
    if size < needed:
        strata = len({(unit.model_config, unit.score) for unit in units})
        raise AuditError(
            f"a sample of {size} cannot hold the {strata} strata (model config × judge score) of batch "
            f"{population.batch!r}: at least {needed} items are needed ({DEFAULT_MIN_PER_STRATUM} per stratum, "
            f"or the whole stratum when smaller); ask for {needed} or more"
        )
    sample = stratified_sample([(u.key, (u.model_config, u.score)) for u in units], size=size, seed=seed)
    by_key = {unit.key: unit for unit in units}
    design = {
        "strata": [
            {"stratum": list(s.stratum), "population": s.population, "sampled": s.sampled} for s in sample.allocation
        ],
        "minPerStratum": sample.min_per_stratum,
        "judgeRates": dict(population.judge_rates),
        "population": sample.population,
    }
    audit = JudgeAudit(
        kind=kind,
        source_batch=population.batch,
        per_item=per_item,
        requested_size=size,
        seed=seed,
        population=sample.population,
        design=design,
        created_by=user if user is not None and user.is_authenticated else None,
    )
    with transaction.atomic():
        _save_with_a_free_name(audit, name, population.batch, kind)
        AuditItem.objects.bulk_create(
            [
                _item(audit, population, by_key[sampled.key], sampled, position=number)
                for number, sampled in enumerate(sample.units, start=1)
            ],
            batch_size=500,
        )
    return audit


def _item(
    audit: JudgeAudit, population: JudgedPopulation, unit: JudgedUnit, sampled: SampledUnit, *, position: int
) -> AuditItem:
    return AuditItem(
        audit=audit,
        position=position,
        key=unit.key,
        trial_id=unit.trial_id,
        model_config=unit.model_config,
        context=unit.context,
        judge_model=unit.judge_model,
        judge_prompt=unit.judge_prompt,
        judge_score=unit.score,
        judge_label=unit.label,
        judge_reasoning=unit.reasoning,
        baseline_score=population.baseline_of(unit),
        stratum=list(sampled.stratum),
        weight=sampled.weight,
    )


def _save_with_a_free_name(audit: JudgeAudit, name: str | None, batch: str, kind: str) -> None:
    """Save ``audit`` as ``name``, or under the default name made unique (a concurrent creation is retried)."""
    if name is not None:
        audit.name = name
        try:
            with transaction.atomic():
                audit.save()
        except IntegrityError:
            raise AuditError(f"an audit named {name!r} exists already; choose another name") from None
        return
    when = timezone.localtime(audit.created_at)
    base = f"{batch} · {KIND_TITLES[kind]} audit · {when:%Y-%m-%d %H:%M}"
    taken = set(JudgeAudit.objects.filter(name__startswith=base).values_list("name", flat=True))
    number = 1
    while True:
        audit.name = base if number == 1 else f"{base} ({number})"
        number += 1
        if audit.name in taken:
            continue
        try:
            with transaction.atomic():
                audit.save()
        except IntegrityError:
            if JudgeAudit.objects.filter(name=audit.name).exists():
                continue  # taken meanwhile by a concurrent creation
            raise
        return


def judge_audit_close(audit: JudgeAudit) -> JudgeAudit:
    """Stop handing out the audit's items (open reservations may still be submitted; nothing is lost)."""
    return _set_status(audit, JudgeAudit.Status.CLOSED)


def judge_audit_reopen(audit: JudgeAudit) -> JudgeAudit:
    """Hand out the audit's items again."""
    return _set_status(audit, JudgeAudit.Status.OPEN)


def _set_status(audit: JudgeAudit, status: str) -> JudgeAudit:
    JudgeAudit.objects.filter(pk=audit.pk).update(status=status)
    audit.status = status
    return audit


def audit_guidelines_acknowledge(*, annotator, kind: str) -> AuditGuidelinesRead:
    """Record that ``annotator`` has read the guidelines of ``kind`` audits (once; a second time changes nothing)."""
    if kind not in JudgeAudit.Kind.values:
        raise AuditError(f"unknown audit kind {kind!r}")
    read, _created = AuditGuidelinesRead.objects.get_or_create(annotator=annotator, kind=kind)
    return read
