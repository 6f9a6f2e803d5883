"""The monthly feedback figures against independent computations on the fixture month (March 2026).

Pair kappas come from sklearn on the common items, the consensus is rebuilt by hand (plain mean of the item's
ratings, every confidence being 0.9; none with fewer than two ratings or a spread over two points), and the
engine's own functions are called directly on a matrix built from the fixture's raw ratings.
"""

from __future__ import annotations

from datetime import date, timedelta

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from annotation.aggregation.agreement import bootstrap_kappa_ci, leave_one_out_kappa, pairwise_quadratic_kappa
from annotation.feedback.selectors import compute_month, compute_month_with_trend, month_figures
from tests.annotation.feedback.conftest import AXES

MARCH = date(2026, 3, 1)
N_BOOT = 200


def _items(month) -> list[str]:
    return sorted({item for items in month.ratings.values() for item in items})


def _score(month, name, item, axis) -> int | None:
    entry = month.ratings.get(name, {}).get(item)
    return None if entry is None else entry[0][AXES.index(axis)]


def _consensus(month) -> dict[str, dict[str, float]]:
    """Item -> axis -> unrounded consensus, for the items that have one."""
    out = {}
    for item in _items(month):
        per_axis = {}
        for axis in AXES:
            values = [s for name in month.ratings if (s := _score(month, name, item, axis)) is not None]
            if len(values) < 2 or max(values) - min(values) > 2:
                break
            per_axis[axis] = float(np.mean(values))
        else:
            out[item] = per_axis
    return out


def _half_up(value: float) -> int:
    return int(np.floor(round(value, 9) + 0.5))


@pytest.fixture
def march(feedback_data, settings):
    settings.AGREEMENT_MONITOR_N_BOOT = N_BOOT
    return compute_month_with_trend(MARCH, n_boot=N_BOOT)


def test_each_pair_kappa_per_axis_is_sklearns_on_the_items_both_rated_that_month(feedback_data, march):
    data = feedback_data.march
    for name in data.ratings:
        for axis in AXES:
            pairs = {p["other"]: p for p in march["people"][name]["axes"][axis]["pairs"]}
            assert set(pairs) == set(data.ratings) - {name}
            for other, pair in pairs.items():
                common = sorted(set(data.ratings[name]) & set(data.ratings[other]))
                a = [_score(data, name, i, axis) for i in common]
                b = [_score(data, other, i, axis) for i in common]
                expected = cohen_kappa_score(a, b, weights="quadratic", labels=[1, 2, 3, 4, 5])
                assert pair["kappa"] == pytest.approx(expected, abs=1e-9)
                assert pair["n_items"] == len(common)
                # One interval per pair, whoever's page shows it: the columns in the annotators' order.
                columns = [a, b] if name < other else [b, a]
                low, high, _ = bootstrap_kappa_ci(np.array(columns).T, n_boot=N_BOOT, seed=0)
                assert pair["ci95"] == pytest.approx([low, high], abs=1e-12)


def test_kappa_with_the_rest_is_the_engines_leave_one_out_kappa_on_that_month_only(feedback_data, march):
    data = feedback_data.march
    names, items = sorted(data.ratings), _items(data)
    for axis in AXES:
        matrix = np.array([[_score(data, n, i, axis) or 0 for n in names] for i in items])
        expected = leave_one_out_kappa(pairwise_quadratic_kappa(matrix), len(names))
        for r, name in enumerate(names):
            assert march["people"][name]["axes"][axis]["vs_rest"]["kappa"] == pytest.approx(expected[r][0], abs=1e-9)
    assert march["n_ratings"] == sum(len(items) for items in data.ratings.values())  # February's are not in


def test_kappa_with_the_consensus_and_the_bias_match_a_consensus_rebuilt_by_hand(feedback_data, march):
    data = feedback_data.march
    consensus = _consensus(data)
    assert march["n_consensus"] == len(consensus)
    for name in data.ratings:
        for axis in AXES:
            items = [i for i in consensus if i in data.ratings[name]]
            own = [_score(data, name, i, axis) for i in items]
            rounded = [_half_up(consensus[i][axis]) for i in items]
            figures = march["people"][name]["axes"][axis]
            expected = cohen_kappa_score(own, rounded, weights="quadratic", labels=[1, 2, 3, 4, 5])
            assert figures["vs_consensus"]["kappa"] == pytest.approx(expected, abs=1e-9)
            assert figures["vs_consensus"]["n_items"] == len(items)
            bias = np.mean([o - consensus[i][axis] for o, i in zip(own, items, strict=True)])
            assert figures["bias"]["mean"] == pytest.approx(bias, abs=1e-9)
            assert figures["bias"]["n_items"] == len(items)
        means = [march["people"][name]["axes"][a]["vs_consensus"]["kappa"] for a in AXES]
        assert march["people"][name]["kappa_consensus_mean"] == pytest.approx(np.mean(means), abs=1e-12)


def test_straight_lining_is_found_on_the_axis_where_one_annotator_never_varies(feedback_data, march):
    straight = {
        (name, axis): march["people"][name]["axes"][axis]["straight_lining"]
        for name in march["people"]
        for axis in AXES
    }
    assert straight[("ann_d", "social")]["flagged"] is True
    assert straight[("ann_d", "social")]["own_variance"] == 0.0
    assert straight[("ann_d", "social")]["modal_share"] == 1.0
    others = [
        feedback_data.march.ratings[n][i][0][0]
        for n in ("ann_a", "ann_b", "ann_c")
        for i in feedback_data.march.ratings[n]
    ]
    assert straight[("ann_d", "social")]["others_variance"] == pytest.approx(np.var(others), abs=1e-9)
    assert [key for key, value in straight.items() if value["flagged"]] == [("ann_d", "social")]


def test_speed_is_the_median_of_the_seconds_spent_that_month(feedback_data, march):
    for name, items in feedback_data.march.ratings.items():
        seconds = [s for _, s in items.values()]
        speed = march["people"][name]["speed"]
        assert speed["median_seconds"] == pytest.approx(np.median(seconds), abs=1e-9)
        assert speed["n_timed"] == len(seconds)
        assert speed["fast_share"] == pytest.approx(np.mean(np.array(seconds) < 5.0), abs=1e-12)
    assert march["people"]["ann_c"]["speed"]["fast_share"] == 1.0


def test_the_item_that_differed_most_comes_first_with_both_scores_side_by_side(feedback_data, march):
    data = feedback_data.march
    consensus = _consensus(data)
    top = march["people"]["ann_a"]["differences"][0]
    distances = {
        i: sum(abs(_score(data, "ann_a", i, a) - _half_up(consensus[i][a])) for a in AXES)
        for i in consensus
        if i in data.ratings["ann_a"]
    }
    assert top["distance"] == max(distances.values())
    assert top["own"] == {a: _score(data, "ann_a", top["item"], a) for a in AXES}
    assert top["consensus"] == {a: _half_up(consensus[top["item"]][a]) for a in AXES}
    listed = [d["distance"] for d in march["people"]["ann_a"]["differences"]]
    assert listed == sorted(listed, reverse=True) and len(listed) <= 10


def test_the_trend_holds_the_previous_month_as_computed_on_its_own_ratings(feedback_data, march):
    february = compute_month(date(2026, 2, 1), n_boot=0, details=False)
    trend = {point["month"]: point for point in march["trend"]["ann_a"]}
    assert set(trend) == {"2026-02", "2026-03"}  # months without any rating are left out
    assert trend["2026-02"]["n_ratings"] == len(feedback_data.february.ratings["ann_a"])
    assert trend["2026-02"]["kappa_consensus_mean"] == pytest.approx(
        february["people"]["ann_a"]["kappa_consensus_mean"], abs=1e-12
    )
    assert trend["2026-03"]["kappa_consensus_mean"] == march["people"]["ann_a"]["kappa_consensus_mean"]
    assert [p["month"] for p in march["trend"]["ann_d"]] == ["2026-02", "2026-03"]
    assert march["trend"]["ann_d"][0]["n_ratings"] == 0  # ann_d did not rate in February


def test_a_month_that_was_not_prepared_is_computed_on_demand_and_not_stored(feedback_data, settings):
    from annotation.models import MonthlyFeedback

    settings.AGREEMENT_MONITOR_N_BOOT = N_BOOT
    figures = month_figures(MARCH)
    assert figures.prepared is None and figures.content["month"] == "2026-03"
    assert not MonthlyFeedback.objects.exists()
    assert month_figures(date(2025, 12, 1)).content is None


def test_figures_computed_on_demand_follow_an_edited_rating(feedback_data, settings):
    from django.db.models import F

    from annotation.models import Annotation

    settings.AGREEMENT_MONITOR_N_BOOT = N_BOOT
    before = month_figures(MARCH).content["people"]["ann_d"]["axes"]["social"]["straight_lining"]
    assert before["flagged"] is True
    rating = Annotation.objects.filter(annotator__username="ann_d", created_at__month=3).order_by("pk").first()
    Annotation.objects.filter(pk=rating.pk).update(social_score=5, updated_at=F("updated_at") + timedelta(seconds=1))
    after = month_figures(MARCH).content["people"]["ann_d"]["axes"]["social"]["straight_lining"]
    assert after["own_variance"] > 0 and after["modal_share"] < 1.0
