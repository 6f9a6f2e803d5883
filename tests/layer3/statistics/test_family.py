"""The multiple-comparison family: the seed's 11 × C(k, 2), the tests run, or N; Holm and Bonferroni over a family
larger than the tests performed, against statsmodels' multipletests on the p-values padded with 1."""

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from layer3.statistics import compare_model_configs
from layer3.statistics.corrections import (
    CORRECTIONS,
    adjust_p_values,
    check_family,
    family_size,
    parse_family,
)
from tests.layer3.statistics.reference import multipletests
from tests.layer3.statistics.trials import error_trial, layer3_trial

TOL = 1e-9


def padded_reference(p_values, m, method):
    """multipletests over the p-values followed by m - k untested hypotheses (p = 1), cut back to the k."""
    padded = list(p_values) + [1.0] * (m - len(p_values))
    return multipletests(padded, method=method)[1][: len(p_values)].tolist()


@pytest.mark.parametrize("method", CORRECTIONS)
@pytest.mark.parametrize(
    ("p_values", "m"),
    [
        ([0.01, 0.04, 0.03, 0.005], 4),
        ([0.01, 0.04, 0.03, 0.005], 110),
        ([0.0001, 0.0004, 0.2], 5),
        ([0.3, 0.3, 0.3, 0.001], 7),  # ties
        ([1.0, 0.5, 1.0], 9),  # p = 1 ties with the padding
        ([0.0, 1e-300], 3),
        ([], 110),
        ([0.04], 1),
    ],
)
def test_a_larger_family_equals_statsmodels_on_the_padded_p_values(p_values, m, method):
    adjusted = adjust_p_values(p_values, method, m)
    assert all(type(value) is float for value in adjusted)
    assert adjusted == pytest.approx(padded_reference(p_values, m, method), abs=TOL, rel=0)


# multipletests costs about 20 ms a call: fewer examples than elsewhere (test_corrections has 120 more).
@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.floats(min_value=0, max_value=1), min_size=1, max_size=60),
    st.integers(min_value=0, max_value=80),
    st.sampled_from(CORRECTIONS),
)
def test_random_p_values_in_a_larger_family_equal_statsmodels(p_values, extra, method):
    m = len(p_values) + extra
    adjusted = adjust_p_values(p_values, method, m)
    assert adjusted == pytest.approx(padded_reference(p_values, m, method), abs=TOL, rel=0)
    assert adjusted == adjust_p_values(p_values, method, m)  # deterministic
    assert all(new >= old for new, old in zip(adjusted, adjust_p_values(p_values, method), strict=True))


def test_bonferroni_and_holm_by_hand_in_the_seeds_family():
    assert adjust_p_values([0.0001, 0.01], "bonferroni", 110) == pytest.approx([0.011, 1.0], abs=1e-15)
    # Holm: 0.0001·110 = 0.011, then 0.0002·109 = 0.0218 (untested hypotheses sort last, as p = 1).
    assert adjust_p_values([0.0002, 0.0001], "holm", 110) == pytest.approx([0.0218, 0.011], abs=1e-15)


@pytest.mark.parametrize("m", [2, -1, 1.5, True])
def test_a_family_smaller_than_the_p_values_is_refused(m):
    with pytest.raises(ValueError, match=r"m must be an integer at least the 3 p-values given; got "):
        adjust_p_values([0.1, 0.2, 0.3], "holm", m)


@pytest.mark.parametrize(
    ("text", "family"),
    [("seed", "seed"), ("tests-run", "tests-run"), ("110", 110), (" Seed ", "seed"), ("TESTS-RUN", "tests-run")],
)
def test_the_family_is_read_from_text(text, family):
    assert parse_family(text) == family
    assert type(parse_family(text)) is type(family)


@pytest.mark.parametrize("text", ["", "0", "-5", "1.5", "1e3", "+3", "all", "tests_run", "seed,110", "１１０"])
def test_unreadable_family_text_names_what_is_accepted(text):
    message = "family must be 'seed', 'tests-run' or a whole number of tests (at least 1); got " + repr(text)
    with pytest.raises(ValueError, match=re.escape(message)):
        parse_family(text)


@pytest.mark.parametrize("value", ["seed", "tests-run", 1, 110, np.int64(7)])
def test_valid_families_pass_the_check(value):
    assert check_family(value) == value
    assert parse_family(value) == value


@pytest.mark.parametrize("value", [True, False, 0, -1, 1.0, 110.0, "110", None, "Seed"])
def test_bools_floats_non_positive_and_text_numbers_are_not_families(value):
    with pytest.raises(ValueError, match=re.escape(f"got {value!r}")):
        check_family(value)


def test_family_sizes():
    assert family_size("seed", seed_size=110, performed=17) == 110
    assert family_size("tests-run", seed_size=110, performed=17) == 17
    assert family_size(17, seed_size=110, performed=17) == 17
    assert family_size(210, seed_size=110, performed=17) == 210
    with pytest.raises(ValueError, match="family 16 is smaller than the 17 tests performed"):
        family_size(16, seed_size=110, performed=17)


def five_configs_with_gaps():
    """Five configs, none judged (so the judged metrics are not tested) and E with errors only."""
    configs = {}
    for index, label in enumerate("ABCD"):
        configs[label] = [
            layer3_trial(types=["flow"] * (n % 3) + ["meta"] * index, widgets=["a", "b"][: 1 + n % 2], graph=(n, index))
            for n in range(2, 12)
        ]
    configs["E"] = [error_trial()]
    return configs


def test_the_seeds_family_is_110_for_five_configs_whatever_was_performed():
    result = compare_model_configs(five_configs_with_gaps())
    summary = result["summary"]
    assert summary["performedTests"] < 110
    assert (summary["family"], summary["familySize"], summary["comparisons"]) == ("seed", 110, 110)
    assert summary["adjustedAlpha"] == 0.05 / 110
    for row in result["layer3Comparisons"]:
        if row["pValue"] is not None:
            assert row["adjustedPValue"] == pytest.approx(min(1.0, row["pValue"] * 110), abs=1e-15)
            assert row["significant"] is (row["pValue"] * 110 < 0.05)


def test_holm_in_the_seeds_family_equals_statsmodels_padded_to_110():
    result = compare_model_configs(five_configs_with_gaps(), correction="holm")
    rows = [row for row in result["layer3Comparisons"] if row["pValue"] is not None]
    expected = padded_reference([row["pValue"] for row in rows], 110, "holm")
    assert [row["adjustedPValue"] for row in rows] == pytest.approx(expected, abs=TOL, rel=0)
    assert result["summary"]["adjustedAlpha"] == 0.05 / 110


def test_a_given_family_size_is_used_and_reported():
    result = compare_model_configs(five_configs_with_gaps(), family=210)
    summary = result["summary"]
    assert (summary["family"], summary["familySize"], summary["comparisons"]) == (210, 210, 210)
    assert summary["adjustedAlpha"] == 0.05 / 210
    for row in result["layer3Comparisons"]:
        if row["pValue"] is not None:
            assert row["adjustedPValue"] == pytest.approx(min(1.0, row["pValue"] * 210), abs=1e-15)


def test_a_family_smaller_than_the_tests_performed_is_refused_naming_both():
    performed = compare_model_configs(five_configs_with_gaps())["summary"]["performedTests"]
    message = f"family {performed - 1} is smaller than the {performed} tests performed"
    with pytest.raises(ValueError, match=message):
        compare_model_configs(five_configs_with_gaps(), family=performed - 1)
    assert compare_model_configs(five_configs_with_gaps(), family=performed)["summary"]["familySize"] == performed


@pytest.mark.parametrize("family", [True, 0, -3, 110.0, "110", "all"])
def test_compare_refuses_a_bad_family(family):
    with pytest.raises(ValueError, match=r"family must be 'seed', 'tests-run' or a whole number"):
        compare_model_configs({"A": [], "B": []}, family=family)
