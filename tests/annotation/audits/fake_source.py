"""A fake Layer3 source of judged units for the judge-audit tests (import the fixtures into a test module).

``fake_source`` registers it through ``core.judge_audits.register_judged_units`` and puts the real
registration back afterwards. Its batch "fake" holds, per (model config, judge score) stratum,
the number of units in ``STRATA``: a rare stratum (B, 0) of one unit, so samples must take it whole.
"""

import pytest

from core import judge_audits
from core.judge_audits import AuditSourceError, JudgedPopulation, JudgedUnit

STRATA = {("A", 0): 6, ("A", 1): 10, ("A", 2): 24, ("B", 0): 1, ("B", 1): 9, ("B", 2): 30}
POPULATION = sum(STRATA.values())  # 80
MINIMUM = 2 * 5 + 1  # two per stratum, the whole of the one-unit stratum
JUDGE = "judge-x"
PROMPT = "layer3.gv_relevance@1"


def fake_units(kind: str = "gv") -> tuple[JudgedUnit, ...]:
    units, trial = [], 0
    for (model_config, score), count in STRATA.items():
        for number in range(count):
            trial += 1
            trial_id = f"{model_config}-{trial:05d}"
            key = f"{trial_id}:g{number}" if kind == "gv" else f"{trial_id}:b{number}"
            context = (
                {"concern": "転職の悩み", "trialId": trial_id, "itemId": f"g{number}", "widgetId": "w1",
                 "widgetType": "list", "portId": "items", "text": f"項目 {trial}", "widget": {"id": "w1"}}
                if kind == "gv"
                else {"concern": "転職の悩み", "trialId": trial_id, "bindingId": f"b{number}", "description": "d",
                      "source": {"widget": "w1", "type": "list", "port": "out", "config": {"id": "w1"}},
                      "target": {"widget": "w2", "type": "memo", "port": "in", "config": {"id": "w2"}}}
            )  # fmt: skip
            units.append(
                JudgedUnit(
                    key=key,
                    trial_id=trial_id,
                    model_config=model_config,
                    judge_model=JUDGE,
                    judge_prompt=PROMPT,
                    score=score,
                    label=["not_relevant", "generic", "useful"][score],
                    reasoning=f"because {trial}",
                    baseline_score=(score + trial) % 3,
                    context=context,
                )
            )
    return tuple(units)


def fake_population(batch: str, kind: str) -> JudgedPopulation:
    if batch != "fake":
        raise AuditSourceError(f"there is no Layer3 batch named {batch!r}")
    units = fake_units(kind)
    rate = sum(unit.score == 2 for unit in units) / len(units)
    return JudgedPopulation(batch=batch, kind=kind, units=units, judge_rates={f"{JUDGE}@{PROMPT}": rate})


@pytest.fixture
def fake_source():
    saved = dict(judge_audits._registry)
    judge_audits.register_judged_units(fake_population)
    yield fake_population
    judge_audits._registry.clear()
    judge_audits._registry.update(saved)


@pytest.fixture
def audit_of(fake_source, db):
    """``audit_of(size=.., per_item=..)``: an audit of the fake batch (GV, seed 1 unless given)."""
    from annotation.audits.services import judge_audit_create

    def make(size: int = 12, per_item: int = 2, **options):
        options.setdefault("seed", 1)
        options.setdefault("kind", "gv")
        return judge_audit_create(batch="fake", size=size, per_item=per_item, **options)

    return make
