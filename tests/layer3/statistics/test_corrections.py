"""adjust_p_values against statsmodels' multipletests; the significance marks."""

import math
from itertools import pairwise

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from layer3.statistics import CORRECTIONS, adjust_p_values
from layer3.statistics.corrections import adjusted_alpha, check_correction, significance_mark
from tests.layer3.statistics.reference import multipletests

TOL = 1e-9


def assert_matches_statsmodels(p_values, method):
    adjusted = adjust_p_values(p_values, method)
    expected = multipletests(p_values, method=method)[1]
    assert len(adjusted) == len(p_values)
    assert all(type(value) is float for value in adjusted)
    assert adjusted == pytest.approx(expected.tolist(), abs=TOL, rel=0)
    return adjusted


def test_bonferroni_by_hand():
    assert adjust_p_values([0.01, 0.2, 0.0001, 0.5], "bonferroni") == pytest.approx([0.04, 0.8, 0.0004, 1.0], abs=1e-15)


def test_holm_by_hand():
    # Sorted 0.005, 0.01, 0.03, 0.04 times 4, 3, 2, 1 = 0.02, 0.03, 0.06, 0.04; running maximum 0.02, 0.03, 0.06, 0.06.
    adjusted = adjust_p_values([0.01, 0.04, 0.03, 0.005], "holm")
    assert adjusted == pytest.approx([0.03, 0.06, 0.06, 0.02], abs=1e-15)


@pytest.mark.parametrize("method", CORRECTIONS)
@pytest.mark.parametrize(
    "p_values",
    [
        [0.01, 0.04, 0.03, 0.005],
        [0.3, 0.3, 0.3, 0.001],  # ties
        [0.9, 0.6, 0.8],  # all capped at 1 under bonferroni
        [0.0, 1.0, 0.5],
        [0.04],
        [1e-300, 2e-300, 0.01],
    ],
)
def test_it_equals_statsmodels_on_hand_made_p_values(p_values, method):
    assert_matches_statsmodels(p_values, method)


@pytest.mark.parametrize("method", CORRECTIONS)
def test_no_p_values_give_no_adjusted_ones(method):
    assert adjust_p_values([], method) == []


# multipletests costs about 20 ms a call whatever the size, so fewer examples than elsewhere.
@settings(max_examples=120, deadline=None)
@given(
    st.lists(
        st.one_of(st.sampled_from([0.0, 0.001, 0.01, 0.05, 0.5, 1.0]), st.floats(min_value=0, max_value=1)),
        min_size=1,
        max_size=120,
    ),
    st.sampled_from(CORRECTIONS),
)
def test_it_equals_statsmodels_on_random_p_values(p_values, method):
    adjusted = assert_matches_statsmodels(p_values, method)
    assert all(value <= 1.0 for value in adjusted)
    assert all(adj >= p for adj, p in zip(adjusted, p_values, strict=True))
    order = np.argsort(p_values, kind="stable")
    assert all(adjusted[i] <= adjusted[j] for i, j in pairwise(order))  # monotone in p


def test_holm_never_exceeds_bonferroni_on_110_tests():
    p_values = np.random.default_rng(110).uniform(0, 0.01, 110).tolist()
    holm = adjust_p_values(p_values, "holm")
    bonferroni = adjust_p_values(p_values, "bonferroni")
    assert all(h <= b for h, b in zip(holm, bonferroni, strict=True))
    assert_matches_statsmodels(p_values, "holm")


@pytest.mark.parametrize("correction", ["fdr_bh", "Bonferroni", None, ""])
def test_an_unknown_correction_names_the_accepted_ones(correction):
    with pytest.raises(ValueError, match=r"correction must be one of 'bonferroni', 'holm'; got "):
        check_correction(correction)
    with pytest.raises(ValueError, match="'bonferroni', 'holm'"):
        adjust_p_values([0.1], correction)


@pytest.mark.parametrize("p_values", [[0.1, 1.5], [-0.1], [math.nan]])
def test_p_values_outside_0_1_are_refused(p_values):
    with pytest.raises(ValueError, match=r"p_values must lie in \[0, 1\]"):
        adjust_p_values(p_values, "holm")


def test_adjusted_alpha_is_alpha_over_m():
    assert adjusted_alpha(0.05, 110, "bonferroni") == 0.05 / 110
    assert adjusted_alpha(0.05, 110, "holm") == 0.05 / 110
    assert adjusted_alpha(0.05, 0, "bonferroni") is None


@pytest.mark.parametrize(
    ("adjusted_p", "alpha", "mark"),
    [
        (0.0, 0.05, "***"),
        (0.000999, 0.05, "***"),
        (0.001, 0.05, "**"),
        (0.00999, 0.05, "**"),
        (0.01, 0.05, "*"),
        (0.0499, 0.05, "*"),
        (0.05, 0.05, ""),
        (1.0, 0.05, ""),
        (None, 0.05, ""),
        (0.08, 0.1, "*"),  # "*" goes up to alpha
        (0.008, 0.005, ""),  # not significant, so no mark even below 0.01
        (0.004, 0.005, "**"),
    ],
)
def test_significance_marks(adjusted_p, alpha, mark):
    assert significance_mark(adjusted_p, alpha) == mark
