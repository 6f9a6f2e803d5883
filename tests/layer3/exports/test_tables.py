"""The number formats and rows that the Markdown and LaTeX tables share."""

import math

import pytest

from layer3.exports.tables import (
    JudgeNote,
    comparison_rows,
    correction_note,
    family_phrase,
    fixed,
    judge_notes,
    judge_sentence,
    metrics_rows,
    p_value,
    significant,
)
from tests.layer3.exports.samples import (
    BASELINE,
    BASELINE_W2WR,
    GPT,
    GPT_W2WR,
    batch_results,
    comparison,
    different_judges,
    document,
    judged,
    model_entry,
    summary,
)

GV, W2WR = ("GV_CR", "GV_UR"), ("W2WR_SC", "W2WR_CR")


def plain(text):
    return str(text)


@pytest.mark.parametrize(
    ("value", "decimals", "text"),
    [(1.2345, 3, "1.234"), (1.2355, 3, "1.236"), (0.5, 3, "0.500"), (-0.0001, 3, "0.000"), (-2.345, 2, "-2.35"),
     (None, 3, None), (math.nan, 3, None), (2, 3, "2.000")],
)  # fmt: skip
def test_fixed_decimals(value, decimals, text):
    assert fixed(value, decimals) == text


@pytest.mark.parametrize(
    ("value", "text"),
    [(0.0457, "0.0457"), (0.5, "0.500"), (1.0, "1.00"), (0.001, "0.00100"), (0.012345, "0.0123"),
     (0.00099999, "< 0.001"), (0.0, "< 0.001"), (1e-12, "< 0.001"), (None, None), (0.99999, "1.00")],
)  # fmt: skip
def test_p_values_have_three_significant_digits_and_a_floor(value, text):
    assert p_value(value) == text


def test_significant_digits_never_use_exponent_notation():
    assert significant(0.05 / 110) == "0.000455"
    assert significant(0.05 / 10_000) == "0.00000500"
    assert significant(0.00099996) == "0.00100"


def test_overall_n_is_the_sum_of_the_trial_counts():
    doc = document(models=("A", "B", "C"))
    doc["byModel"][2]["trialCount"] = 7
    rows = metrics_rows(doc)
    assert [row.label for row in rows] == ["A", "B", "C", "Overall"]
    assert rows[-1].is_overall and rows[-1].n == 47


def test_missing_blocks_give_missing_values():
    doc = document(models=("A",), overall=None)
    doc["byModel"][0]["layer3"] = {"gvContentRelevance": None}
    rows = metrics_rows(doc)
    assert all(value is None for row in rows for value in row.values)


def test_a_test_without_p_value_is_not_performed_and_keeps_its_reason():
    doc = document(comparisons=[comparison(test=None, statistic=None, pValue=None, reason="no samples in B")])
    (row,) = comparison_rows(doc)
    assert not row.performed and row.reason == "no samples in B"


def test_holm_has_no_single_adjusted_alpha():
    doc = document()
    doc["statistics"]["summary"] = summary(correction="holm", adjustedAlpha=None)
    note = correction_note(doc)
    assert (note.correction, note.alpha, note.adjusted_alpha) == ("Holm", "0.05", None)


def test_no_statistics_gives_no_rows():
    assert comparison_rows(document(statistics=None)) == []


def test_one_judge_for_every_row_is_one_line():
    rows = metrics_rows(document(models=("A", "B")))
    assert [row.judges[0].judges for row in rows] == [(GPT,)] * 3
    assert [row.judges[1].judges for row in rows] == [()] * 3  # W2WR semantic correctness not evaluated
    assert judge_notes(rows) == [JudgeNote(GV, ((GPT, ("A", "B", "Overall")),), ())]
    (note,) = judge_notes(rows)
    assert judge_sentence(note, plain, "†") == f"GV_CR, GV_UR judged by {GPT} (A, B, Overall)."


def test_different_judges_per_config_name_each_config_and_the_overall_row_has_none():
    doc = document(models=("A", "B", "C", "D", "E"), gv_judges={"A": (GPT,), "B": (GPT,), "C": (BASELINE,),
                                                               "D": (BASELINE,), "E": (BASELINE,)})  # fmt: skip
    rows = metrics_rows(doc)
    overall = rows[-1]
    assert overall.judges[0].several and overall.judges[0].judges == (BASELINE, GPT)
    assert overall.values[:2] == (None, None) and overall.several[:2] == (True, True)
    assert not any(overall.several[2:])
    assert rows[0].values[:2] == ("1.000", "0.500") and not any(rows[0].several)
    (note,) = judge_notes(rows)
    assert judge_sentence(note, plain, "†") == (
        f"GV_CR, GV_UR judged by {GPT} (A, B) and {BASELINE} (C, D, E); several judges, so not shown (†): "
        f"Overall (judged by 2 judges ({BASELINE}; {GPT}): see byJudge)."
    )


def test_a_config_with_several_judges_shows_no_value_even_if_one_is_stored():
    doc = document(models=("A", "B"), gv_judges={"A": (GPT,), "B": (GPT, BASELINE)})
    doc["byModel"][1]["layer3"]["gvContentRelevance"]["avgScore"] = 1.5  # a blend must never be shown
    rows = metrics_rows(doc)
    assert rows[1].values[:2] == (None, None) and rows[1].several[:2] == (True, True)
    (note,) = judge_notes(rows)
    assert note.by_judge == ((GPT, ("A",)),)
    assert [row for row, _ in note.several] == ["B", "Overall"]
    assert judge_sentence(note, plain, "*").startswith(f"GV_CR, GV_UR judged by {GPT} (A); several judges, so not")


def test_both_groups_and_only_mixed_rows():
    entry = model_entry("A", batch_results(sc=1.2, cr=0.5), gv_judges=(GPT, BASELINE), w2wr_judges=(GPT_W2WR,))
    doc = document(models=(), byModel=[entry])
    doc["overall"] = judged(judged(batch_results(sc=1.2, cr=0.5), "gv", (GPT, BASELINE)), "w2wr", (GPT_W2WR,))
    gv, w2wr = judge_notes(metrics_rows(doc))
    assert judge_sentence(gv, plain, "†") == (
        f"GV_CR, GV_UR judged by several judges, so not shown (†): A (judged by 2 judges ({BASELINE}; {GPT}): see "
        f"byJudge); Overall (judged by 2 judges ({BASELINE}; {GPT}): see byJudge)."
    )
    assert judge_sentence(w2wr, plain, "†") == f"W2WR_SC, W2WR_CR judged by {GPT_W2WR} (A, Overall)."


def test_the_judge_of_an_entry_is_read_when_its_block_does_not_list_judges():
    doc = document(models=("A",), gv_judges={})
    doc["byModel"][0]["judge"] = {"gv": None, "w2wr": BASELINE_W2WR}
    (note,) = judge_notes(metrics_rows(doc))
    assert note == JudgeNote(W2WR, ((BASELINE_W2WR, ("A",)),), ())


def test_nothing_judged_gives_no_judge_note():
    assert judge_notes(metrics_rows(document(gv_judges={}))) == []
    assert judge_notes(metrics_rows(document(models=(), overall=None))) == []


def test_judge_sentences_escape_every_data_text():
    rows = metrics_rows(document(models=("<A>",), gv_judges={"<A>": ("<j>",)}))
    (note,) = judge_notes(rows)
    assert judge_sentence(note, lambda text: f"[{text}]", "†") == "[GV_CR], [GV_UR] judged by [<j>] ([<A>], [Overall])."


def test_proportion_rows_carry_the_difference_its_bootstrap_interval_and_the_design_effect():
    mann_whitney, proportion = comparison_rows(document())
    assert not mann_whitney.proportion and mann_whitney.difference is None and mann_whitney.bootstrap_ci is None
    assert proportion.proportion
    assert proportion.difference == "-0.123"
    assert proportion.bootstrap_ci == ("-0.251", "0.005")
    assert proportion.z_ci == ("-0.190", "-0.057")
    assert proportion.design_effect == "3.59"


def test_a_refused_comparison_of_different_judges_keeps_the_engines_reason():
    (row,) = comparison_rows(document(comparisons=[different_judges()]))
    assert not row.performed and row.proportion
    assert row.reason == (
        f"model A was judged by {GPT} and model B by {BASELINE}; figures of different judges are not compared"
    )
    assert row.difference is None and row.bootstrap_ci is None


@pytest.mark.parametrize(
    ("changes", "phrase"),
    [
        ({}, "over the seed's family of m = 110 comparisons (11 metrics × 10 pairs, seed 002 §7.2)"),
        ({"familySize": 11, "comparisons": 11}, "over the seed's family of m = 11 comparisons (11 metrics × 1 pairs"),
        ({"family": "tests-run", "familySize": 7, "comparisons": 7}, "over the m = 7 tests performed"),
        ({"family": 300, "familySize": 300, "comparisons": 300}, "over a family of m = 300 set by the analyst"),
        ({"family": None, "familySize": None}, "for m = 110 comparisons"),  # a document written before families
    ],
)
def test_family_phrases(changes, phrase):
    doc = document()
    doc["statistics"]["summary"] = summary(**changes)
    assert family_phrase(correction_note(doc), lambda size: f"m = {size}").startswith(phrase)


def test_the_note_gives_the_cross_layer_alpha_and_the_bootstrap_settings():
    note = correction_note(document())
    assert (note.adjusted_alpha, note.cross_layer_alpha, note.pairs) == ("0.000455", "0.000238", 10)
    assert (note.bootstrap.replicates, note.bootstrap.seed, note.bootstrap.level) == ("2000", "20260", "95%")
    assert not note.untested_count_as_one
    doc = document()
    doc["statistics"]["summary"] = summary(correction="holm", adjustedAlpha=None)
    assert correction_note(doc).untested_count_as_one
    doc["statistics"]["summary"] = summary(correction="holm", family="tests-run", adjustedAlpha=None, bootstrap=None)
    assert not correction_note(doc).untested_count_as_one and correction_note(doc).bootstrap is None
