"""The statistics engine's reasons reach the Japanese UI in Japanese, whatever combination the engine writes."""

import re

import numpy as np
import pytest
from django.utils import translation

from annotation.aggregation import weekly
from annotation.aggregation.agreement import (
    axis_report,
    bca_interval,
    bootstrap_kappa_ci,
    krippendorff_alpha,
    leave_one_out_kappa,
)
from annotation.aggregation.agreement.gwet import gwet_ac2
from annotation.aggregation.agreement.kappa import axis_kappa, pairwise_quadratic_kappa
from annotation.aggregation.reason_text import _PLACEHOLDER, TEMPLATES, translate_reason
from annotation.collection.training import gold_agreement

ENGLISH_WORD = re.compile(r"[A-Za-z]{3,}")
KEPT_NAMES = {"Gwet", "BCa"}  # names, not English


def _engine_reasons() -> list[str]:
    """Reasons produced by running the engine on data made to be undefined or failing in every way."""
    constant = np.ones((6, 2), dtype=np.int64)
    no_pairs = np.array([[1, 0], [0, 2], [3, 0]], dtype=np.int64)
    few_common = np.array([[1, 2, 0], [2, 0, 3], [0, 4, 5]], dtype=np.int64)
    skewed = np.array([[1, 1]] * 18 + [[1, 2], [2, 1]], dtype=np.int64)  # high agreement, low kappa
    lonely = np.array([[1, 2, 0], [2, 3, 0], [0, 0, 4]], dtype=np.int64)
    reasons = []
    for ratings in (constant, no_pairs, few_common, skewed):
        report = axis_report(ratings, list(range(ratings.shape[1])), n_boot=50, min_common=2)
        reasons += [report["reason"], report.get("paradox_note")]
        reasons += [entry.get("reason") for entry in report.get("annotators", [])]
        reasons += [pair.get("reason") for pair in report.get("pairs", [])]
    reasons += [krippendorff_alpha(no_pairs)[1], krippendorff_alpha(constant)[1], gwet_ac2(no_pairs)[1]]
    reasons += [bootstrap_kappa_ci(constant, n_boot=20)[2], bootstrap_kappa_ci(no_pairs, n_boot=20)[2]]
    reasons += [axis_kappa(pairwise_quadratic_kappa(no_pairs))[1]]
    three = np.array([[1, 2], [2, 3], [3, 3]], dtype=np.int64)  # any item left out: too few common items
    reasons += [bootstrap_kappa_ci(three, n_boot=50, method="bca", min_common=3)[2]]
    reasons += [bca_interval(0.5, np.full(10, 0.6), np.arange(5.0), 0.95)[2]]
    reasons += [bca_interval(0.5, np.array([0.4, 0.6]), np.ones(5), 0.95)[2]]
    reasons += [axis_kappa(pairwise_quadratic_kappa(few_common, min_common=3))[1]]
    pairwise = pairwise_quadratic_kappa(lonely, min_common=3)
    reasons += [reason for _value, reason in leave_one_out_kappa(pairwise, 3)]
    reasons += pairwise.reason
    _passed, _kappas, gold = gold_agreement({"social": [(1, 1), (1, 1)], "avoidant": [(1, 5), (5, 1), (2, 4)]})
    reasons += list(gold.values())
    reasons += [
        weekly._reason(0, 0, 0, 0, 2),
        weekly._reason(3, 0, 0, 0, 2),
        weekly._reason(3, 2, 1, 1, 2),
    ]
    return [reason for reason in reasons if reason]


def test_every_reason_the_engine_gives_is_read_in_japanese():
    reasons = _engine_reasons()
    assert len(reasons) >= 15
    with translation.override("ja"):
        for reason in reasons:
            japanese = translate_reason(reason)
            leftovers = set(ENGLISH_WORD.findall(japanese)) - KEPT_NAMES
            assert not leftovers, (reason, japanese)
    with translation.override("en"):
        assert [translate_reason(reason) for reason in reasons] == reasons


@pytest.mark.parametrize(("template", "prefix"), TEMPLATES)
def test_every_template_is_translated_with_its_numbers(template, prefix):
    values = {name: str(10 + i) for i, name in enumerate(_PLACEHOLDER.findall(template))}
    english = template % values if values else template
    text = english + ("only 1 common item(s); at least 2 needed" if prefix else "")
    with translation.override("ja"):
        japanese = translate_reason(text)
    assert not set(ENGLISH_WORD.findall(japanese)) - KEPT_NAMES, japanese
    assert all(value in japanese for value in values.values()), japanese


def test_unknown_pieces_stay_as_they_are_and_known_ones_around_them_are_translated():
    text = "something new; no common items; kappa is undefined: a reason from elsewhere"
    with translation.override("ja"):
        assert translate_reason(text) == "something new; 共通項目なし; κ が算出できません: a reason from elsewhere"
    assert translate_reason(None) == "" and translate_reason("") == ""
