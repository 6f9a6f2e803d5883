"""manage.py create_judge_audit: what it prints for good input, and the problem it names for bad input."""

import pytest
from django.core.management import CommandError, call_command

from annotation.models import JudgeAudit
from tests.annotation.audits.fake_source import MINIMUM, POPULATION

pytestmark = pytest.mark.django_db


def test_it_creates_the_audit_and_prints_items_strata_and_seed(fake_source, capsys):
    call_command("create_judge_audit", "fake", "--kind", "gv", "--size", "30", "--per-item", "2", "--seed", "7")
    audit = JudgeAudit.objects.get()
    assert (audit.kind, audit.per_item, audit.seed, audit.items.count()) == ("gv", 2, 7, 30)
    out = capsys.readouterr().out
    assert f"GV audit {audit.name!r} of Layer3 batch 'fake': 30 items sampled from {POPULATION} judged units" in out
    assert "2 ratings wanted per item, seed 7" in out
    assert "  A, 2: 24 -> " in out and "  B, 0: 1 -> 1 (weight 1)" in out
    assert "judge judge-x@layer3.gv_relevance@1: 67.5% useful over the batch" in out
    assert f"created audit {audit.pk}" in out


def test_it_takes_a_name_and_the_w2wr_kind(fake_source, capsys):
    call_command("create_judge_audit", "fake", "--kind", "W2WR", "--name", "pilot", "--size", "20")
    audit = JudgeAudit.objects.get()
    assert (audit.name, audit.kind, audit.per_item) == ("pilot", "w2wr", 3)
    assert "seed " in capsys.readouterr().out  # the random seed drawn is printed


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["nope", "--kind", "gv"], "no audit was created: there is no Layer3 batch named 'nope'"),
        (["fake", "--kind", "graph"], "no audit was created: kind 'graph': accepted gv, w2wr"),
        (["fake", "--kind", "gv", "--size", "3"], f"at least {MINIMUM} items are needed"),
        (["fake", "--kind", "gv", "--per-item", "0"], "ratings per item must be a whole number from 1 to 100; got 0"),
        (["fake", "--kind", "gv", "--seed", "-5"], "seed must be a whole number from 0"),
        (["fake", "--kind", "gv", "--size", "many"], "argument --size: invalid int value: 'many'"),
        (["fake"], "the following arguments are required: --kind"),
    ],
)
def test_bad_input_names_the_problem_and_creates_nothing(fake_source, arguments, message):
    with pytest.raises(CommandError, match=message):
        call_command("create_judge_audit", *arguments)
    assert not JudgeAudit.objects.exists()


def test_a_taken_name_is_refused(fake_source):
    call_command("create_judge_audit", "fake", "--kind", "gv", "--name", "pilot", "--size", "20")
    with pytest.raises(CommandError, match="an audit named 'pilot' exists already"):
        call_command("create_judge_audit", "fake", "--kind", "gv", "--name", "pilot", "--size", "20")
