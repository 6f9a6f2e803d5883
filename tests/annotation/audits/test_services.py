"""Creating a judge audit: the stratified sample stored with its design, argument checks, names, status."""

import dataclasses
import json
from datetime import datetime

import pytest
from django.core.management import call_command
from django.utils import timezone

from annotation.audits import services
from annotation.audits.sampling import stratified_sample
from annotation.audits.services import AuditError, judge_audit_close, judge_audit_create, judge_audit_reopen
from annotation.models import AuditItem, JudgeAudit
from core import judge_audits
from tests.annotation.audits.fake_source import JUDGE, MINIMUM, POPULATION, PROMPT, STRATA, fake_units
from tests.helpers import make_user

pytestmark = pytest.mark.django_db


def test_the_sample_is_stored_with_its_strata_weights_and_what_the_judge_said(fake_source):
    researcher = make_user("res", "researcher")
    audit = judge_audit_create(batch="fake", kind="gv", size=30, per_item=3, seed=5, user=researcher)
    items = list(audit.items.all())
    assert len(items) == 30 and audit.population == POPULATION and audit.requested_size == 30
    assert (audit.kind, audit.source_batch, audit.per_item, audit.seed) == ("gv", "fake", 3, 5)
    assert audit.status == "open" and audit.created_by == researcher
    assert {tuple(item.stratum) for item in items} == set(STRATA)  # every stratum, the rare one too
    assert sum(item.weight for item in items) == pytest.approx(POPULATION)
    units = {unit.key: unit for unit in fake_units()}
    for item in items:
        unit = units[item.key]
        assert (item.trial_id, item.model_config, item.context) == (unit.trial_id, unit.model_config, unit.context)
        assert (item.judge_model, item.judge_prompt, item.judge_score) == (JUDGE, PROMPT, unit.score)
        assert (item.judge_label, item.judge_reasoning, item.baseline_score) == (unit.label, unit.reasoning,
                                                                                unit.baseline_score)  # fmt: skip
        assert item.stratum == [unit.model_config, unit.score] and item.taken_count == 0
    sample = stratified_sample([(u.key, (u.model_config, u.score)) for u in units.values()], size=30, seed=5)
    assert sorted(item.key for item in items) == sorted(sample.keys)
    for item in items:
        allocation = next(a for a in sample.allocation if list(a.stratum) == item.stratum)
        assert item.weight == pytest.approx(allocation.population / allocation.sampled)


def test_the_design_holds_each_stratum_the_minimum_and_the_judge_rates(fake_source):
    audit = judge_audit_create(batch="fake", kind="gv", size=30, seed=5)
    design = audit.design
    assert set(design) == {"strata", "minPerStratum", "judgeRates", "population"}
    assert design["minPerStratum"] == 2 and design["population"] == POPULATION
    assert {tuple(s["stratum"]): s["population"] for s in design["strata"]} == STRATA
    assert sum(s["sampled"] for s in design["strata"]) == 30
    assert {tuple(s["stratum"]): s["sampled"] for s in design["strata"]}[("B", 0)] == 1  # taken whole
    assert design["judgeRates"] == {f"{JUDGE}@{PROMPT}": pytest.approx(54 / 80)}
    json.dumps(design, allow_nan=False)  # stored as strict JSON


def test_the_same_seed_draws_the_same_sample_and_no_seed_stores_the_one_drawn(fake_source):
    first = judge_audit_create(batch="fake", kind="gv", size=20, seed=42)
    again = judge_audit_create(batch="fake", kind="gv", size=20, seed=42)
    keys = lambda audit: sorted(audit.items.values_list("key", flat=True))  # noqa: E731
    assert keys(first) == keys(again)
    drawn = judge_audit_create(batch="fake", kind="gv", size=20)
    assert 0 <= drawn.seed < 2**31
    assert keys(judge_audit_create(batch="fake", kind="gv", size=20, seed=drawn.seed)) == keys(drawn)


def test_a_size_of_the_whole_batch_or_more_takes_every_unit_with_weight_one(fake_source):
    audit = judge_audit_create(batch="fake", kind="w2wr", size=500, seed=1)
    assert audit.items.count() == POPULATION and set(audit.items.values_list("weight", flat=True)) == {1.0}
    assert audit.items.filter(key__contains=":b").count() == POPULATION  # the W2WR units


def test_a_size_too_small_for_the_strata_names_the_minimum_and_stores_nothing(fake_source):
    with pytest.raises(AuditError, match=rf"a sample of 10 cannot hold the 6 strata .*at least {MINIMUM} items"):
        judge_audit_create(batch="fake", kind="gv", size=MINIMUM - 1)
    assert not JudgeAudit.objects.exists()
    assert judge_audit_create(batch="fake", kind="gv", size=MINIMUM).items.count() == MINIMUM


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"kind": "graph"}, "kind 'graph': accepted gv, w2wr"),
        ({"per_item": 0}, "ratings per item must be a whole number from 1 to 100; got 0"),
        ({"per_item": 2.5}, "ratings per item must be a whole number"),
        ({"size": 0}, "sample size must be a whole number from 1"),
        ({"size": True}, "sample size must be a whole number"),
        ({"seed": -1}, "seed must be a whole number from 0"),
        ({"name": "  "}, "the audit's name must have 1 to 150 characters"),
        ({"batch": "nope"}, "there is no Layer3 batch named 'nope'"),
    ],
)
def test_bad_arguments_are_refused_with_what_would_do(fake_source, arguments, message):
    with pytest.raises(AuditError, match=message):
        judge_audit_create(**{"batch": "fake", "kind": "gv", "size": 20, **arguments})
    assert not JudgeAudit.objects.exists() and not AuditItem.objects.exists()


def test_without_a_source_the_audit_says_layer3_is_missing(fake_source):
    judge_audits._registry.pop("source")
    with pytest.raises(AuditError, match=r"no app provides judged units \(is layer3 installed\?\)"):
        judge_audit_create(batch="fake", kind="gv")


def test_the_default_name_names_batch_kind_and_time_and_is_made_unique(fake_source, monkeypatch):
    fixed = timezone.make_aware(datetime(2026, 3, 4, 5, 6))
    monkeypatch.setattr(services.timezone, "localtime", lambda value=None: fixed)
    names = [judge_audit_create(batch="fake", kind="gv", size=20, seed=1).name for _ in range(3)]
    assert names == [
        "fake · GV audit · 2026-03-04 05:06",
        "fake · GV audit · 2026-03-04 05:06 (2)",
        "fake · GV audit · 2026-03-04 05:06 (3)",
    ]
    assert judge_audit_create(batch="fake", kind="w2wr", size=20, seed=1).name == "fake · W2WR audit · 2026-03-04 05:06"


def test_a_given_name_is_kept_and_a_taken_one_refused(fake_source):
    assert judge_audit_create(batch="fake", kind="gv", size=20, name=" pilot ").name == "pilot"
    with pytest.raises(AuditError, match="an audit named 'pilot' exists already"):
        judge_audit_create(batch="fake", kind="gv", size=20, name="pilot")
    assert JudgeAudit.objects.count() == 1


def test_closing_and_reopening(audit_of):
    audit = audit_of()
    assert judge_audit_close(audit).status == "closed"
    assert JudgeAudit.objects.get(pk=audit.pk).status == "closed"
    assert judge_audit_reopen(audit).status == "open"
    assert JudgeAudit.objects.get(pk=audit.pk).status == "open"


# The real Layer3 source ------------------------------------------------------------------------------------


@pytest.fixture
def baseline_judged_batch(tmp_path, settings):
    from layer3.demo.generator import generate_trials

    settings.VAR_DIR = tmp_path
    path = tmp_path / "trials.jsonl"
    trials = generate_trials(15, seed=3, broken_share=0.0)
    path.write_text("".join(json.dumps(t, ensure_ascii=False) + "\n" for t in trials), encoding="utf-8")
    call_command("import_trials", str(path), "--batch", "l3")
    call_command("evaluate_layer3", "l3", "--judge", "baseline", "--w2wr-semantic")
    return "l3"


def test_an_audit_of_a_baseline_judged_layer3_batch(baseline_judged_batch):
    from layer3.models import TrialLog

    population = judge_audits.judged_units("l3", "w2wr")
    audit = judge_audit_create(batch="l3", kind="w2wr", size=25, seed=9)
    assert audit.population == len(population.units) > 25
    items = list(audit.items.all())
    assert len(items) == 25 and sum(item.weight for item in items) == pytest.approx(audit.population)
    trials = {t.external_id: t for t in TrialLog.objects.all()}
    for item in items:
        trial = trials[item.trial_id]
        evaluation = next(
            e
            for e in trial.layer3_metrics["w2wrSemanticCorrectness"]["bindingEvaluations"]
            if f"{trial.external_id}:{e['bindingId']}" == item.key
        )
        assert item.judge_score == evaluation["score"] == item.baseline_score  # the judge is the baseline
        assert item.judge_model == "baseline-tfidf@1" and item.judge_prompt == "layer3.w2wr_semantic@1"
        assert item.context["concern"] == trial.input_text and item.context["source"]["config"] is not None
        assert item.model_config == trial.model_config
    assert audit.design["judgeRates"] == population.judge_rates
    with pytest.raises(AuditError, match="there is no Layer3 batch named 'missing'"):
        judge_audit_create(batch="missing", kind="gv")


def test_a_lazy_baseline_is_asked_for_the_sampled_units_only(fake_source):
    asked = []

    def lazy(batch, kind):
        units = tuple(dataclasses.replace(unit, baseline_score=None) for unit in fake_units(kind))
        return judge_audits.JudgedPopulation(batch, kind, units, {}, baseline=lambda u: asked.append(u.key) or 1)

    judge_audits.register_judged_units(lazy)
    audit = judge_audit_create(batch="fake", kind="gv", size=MINIMUM, seed=3)
    items = AuditItem.objects.filter(audit=audit)
    assert sorted(asked) == sorted(items.values_list("key", flat=True)) and len(asked) == MINIMUM < POPULATION
    assert set(items.values_list("baseline_score", flat=True)) == {1}


def test_each_item_is_numbered_from_one_in_the_order_it_was_drawn(fake_source):
    audit = judge_audit_create(batch="fake", kind="gv", size=30, per_item=3, seed=5)
    positions = list(audit.items.order_by("id").values_list("position", flat=True))
    assert positions == list(range(1, 31))


def test_the_migration_numbers_the_items_of_audits_drawn_before_it_within_each_audit(fake_source):
    from importlib import import_module

    from django.apps import apps

    migration = import_module("annotation.migrations.0022_audit_item_position_and_guidelines_read")
    first = judge_audit_create(batch="fake", kind="gv", size=12, per_item=3, seed=5)
    second = judge_audit_create(batch="fake", kind="w2wr", size=11, per_item=3, seed=6)
    AuditItem.objects.update(position=0)  # as they were before the field existed
    migration.number_audit_items(apps, None)
    for audit, size in ((first, 12), (second, 11)):
        assert list(audit.items.order_by("id").values_list("position", flat=True)) == list(range(1, size + 1))


def test_the_demo_s_finished_audit_is_closed_and_its_open_one_offered(monkeypatch, fake_source):
    """Issue 30 point 7: "GV audit (finished)" showed 受付中 (open) although every item had its ratings."""
    from annotation.audits import demo

    monkeypatch.setattr(demo, "LAYER3_BATCH", "fake")
    demo.load()
    finished, still_open = JudgeAudit.objects.get(name=demo.FINISHED), JudgeAudit.objects.get(name=demo.OPEN)
    assert finished.status == JudgeAudit.Status.CLOSED and still_open.status == JudgeAudit.Status.OPEN
    assert set(finished.items.values_list("taken_count", flat=True)) == {finished.per_item}
