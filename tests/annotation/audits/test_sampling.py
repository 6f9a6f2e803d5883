"""The stratified audit sample: every stratum present, proportional allocation, weights summing to the
batch, seeded reproducibility whatever the input order, and clear refusals."""

import json
import math
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from annotation.audits.sampling import Sample, allocate, stratified_sample


def batch_units(counts: dict[tuple, int]) -> list[tuple[str, tuple]]:
    """Units named like judged items ("trial:item"), ``counts[stratum]`` of each stratum, in a shuffled order."""
    units = [(f"{stratum[0]}-{index:05d}:{stratum[1]}", stratum) for stratum, n in counts.items() for index in range(n)]
    random.Random(0).shuffle(units)
    return units


def sampled_per_stratum(sample: Sample) -> Counter:
    return Counter(unit.stratum for unit in sample.units)


def water_filling(populations: list[int], size: int, minimum: int) -> list[float]:
    """Reference: the unrounded n_h = max(floor_h, λ·N_h) summing to ``size``, λ found by bisection."""
    floors = [min(minimum, n) for n in populations]
    low, high = 0.0, 1.0
    for _ in range(200):
        middle = (low + high) / 2
        if sum(max(f, middle * n) for f, n in zip(floors, populations, strict=True)) < size:
            low = middle
        else:
            high = middle
    return [max(f, high * n) for f, n in zip(floors, populations, strict=True)]


def test_every_stratum_is_sampled_even_a_single_unit_among_thousands():
    counts = {("gpt", 2): 2400, ("gpt", 1): 500, ("gpt", 0): 90, ("llama", 2): 1800, ("llama", 0): 1}
    sample = stratified_sample(batch_units(counts), size=200, seed=11)
    per_stratum = sampled_per_stratum(sample)
    assert set(per_stratum) == set(counts)
    assert per_stratum[("llama", 0)] == 1
    lone = next(unit for unit in sample.units if unit.stratum == ("llama", 0))
    assert lone.weight == 1.0
    assert len(sample.units) == 200


def test_a_small_stratum_gets_the_minimum_of_two_or_is_taken_whole():
    counts = {("A", 2): 5000, ("A", 0): 2, ("B", 0): 3, ("B", 1): 1}
    sample = stratified_sample(batch_units(counts), size=50, seed=1)
    assert sampled_per_stratum(sample) == {("A", 2): 45, ("A", 0): 2, ("B", 0): 2, ("B", 1): 1}
    one = stratified_sample(batch_units(counts), size=50, seed=1, min_per_stratum=1)
    assert sampled_per_stratum(one) == {("A", 2): 47, ("A", 0): 1, ("B", 0): 1, ("B", 1): 1}


def test_allocation_is_proportional_when_no_stratum_needs_its_minimum():
    counts = {("A", 2): 500, ("A", 1): 300, ("B", 2): 200}
    sample = stratified_sample(batch_units(counts), size=50, seed=3)
    assert sampled_per_stratum(sample) == {("A", 2): 25, ("A", 1): 15, ("B", 2): 10}
    uneven = {("A", 2): 337, ("A", 1): 251, ("B", 2): 412, ("B", 0): 61}
    sample = stratified_sample(batch_units(uneven), size=97, seed=3)
    population = sum(uneven.values())
    for stratum, n in sampled_per_stratum(sample).items():
        assert abs(n - 97 * uneven[stratum] / population) < 1


def test_allocation_is_proportional_among_the_strata_above_their_minimum():
    counts = {("A", 2): 6000, ("A", 1): 3000, ("B", 0): 10, ("B", 1): 4}
    sample = stratified_sample(batch_units(counts), size=100, seed=3)
    per_stratum = sampled_per_stratum(sample)
    assert per_stratum[("B", 0)] == per_stratum[("B", 1)] == 2
    for stratum in (("A", 2), ("A", 1)):  # the 96 left, in proportion 2:1
        assert abs(per_stratum[stratum] - 96 * counts[stratum] / 9000) < 1


def test_largest_remainder_ties_go_to_the_stratum_with_the_smallest_key():
    assert allocate([10, 10, 10], 4, 1) == [2, 1, 1]
    assert allocate([10, 10, 10], 5, 1) == [2, 2, 1]
    # the remainders 0.6 (7·0.6 = 4.2 → 4 and .2; 3·0.6 = 1.8 → 1 and .8) decide, not the order
    assert allocate([7, 3], 6, 1) == [4, 2]
    counts = {("b", 0): 10, ("a", 0): 10, ("c", 0): 10}
    sample = stratified_sample(batch_units(counts), size=4, seed=0, min_per_stratum=1)
    assert [(s.stratum, s.sampled) for s in sample.allocation] == [(("a", 0), 2), (("b", 0), 1), (("c", 0), 1)]


def test_weights_sum_to_the_batch_and_to_each_stratum():
    counts = {("gpt", 2): 1234, ("gpt", 1): 321, ("gpt", 0): 17, ("llama", 2): 999, ("llama", 0): 3}
    sample = stratified_sample(batch_units(counts), size=123, seed=5)
    assert math.isclose(sum(unit.weight for unit in sample.units), sum(counts.values()), rel_tol=1e-12)
    for stratum, population in counts.items():
        weights = [unit.weight for unit in sample.units if unit.stratum == stratum]
        assert math.isclose(sum(weights), population, rel_tol=1e-12)
        assert len(set(weights)) == 1
    assert sample.population == sum(counts.values())
    assert {(s.stratum, s.population, s.sampled) for s in sample.allocation} == {
        (stratum, population, sampled_per_stratum(sample)[stratum]) for stratum, population in counts.items()
    }


def test_the_same_seed_gives_the_same_sample_whatever_the_input_order():
    units = batch_units({("gpt", 2): 800, ("gpt", 0): 40, ("llama", 1): 300})
    first = stratified_sample(units, size=60, seed=42)
    for shuffle_seed in range(3):
        shuffled = units[:]
        random.Random(shuffle_seed).shuffle(shuffled)
        assert stratified_sample(shuffled, size=60, seed=42) == first
    assert stratified_sample(list(reversed(units)), size=60, seed=42).as_json() == first.as_json()
    assert list(first.keys) == sorted(first.keys)


def test_another_seed_gives_another_sample():
    units = batch_units({("gpt", 2): 800, ("gpt", 0): 40, ("llama", 1): 300})
    first, second = (stratified_sample(units, size=60, seed=seed) for seed in (1, 2))
    assert set(first.keys) != set(second.keys)
    assert first.allocation == second.allocation


def test_units_are_drawn_uniformly_within_a_stratum():
    """Over 3000 seeds each of ten units is drawn about 3/10 of the time (binomial sd ≈ 0.0084)."""
    units = [(f"k{i}", ("A", 2)) for i in range(10)] + [(f"m{i}", ("B", 0)) for i in range(20)]
    drawn = Counter(key for seed in range(3000) for key in stratified_sample(units, size=9, seed=seed).keys)
    for i in range(10):
        assert abs(drawn[f"k{i}"] / 3000 - 0.3) < 0.035
    for i in range(20):
        assert abs(drawn[f"m{i}"] / 3000 - 0.3) < 0.035


@pytest.mark.parametrize("size", [1130, 1131, 5000])
def test_a_size_of_the_whole_batch_or_more_takes_everything_with_weight_one(size):
    units = batch_units({("gpt", 2): 800, ("gpt", 0): 30, ("llama", 1): 300})
    sample = stratified_sample(units, size=size, seed=9)
    assert sorted(sample.keys) == sorted(key for key, _ in units)
    assert {unit.weight for unit in sample.units} == {1.0}
    assert sample.requested_size == size


def test_as_json_stores_the_design_and_reads_back():
    units = batch_units({("gpt", 2): 80, ("gpt", 0): 3, ("llama", 1): 30})
    sample = stratified_sample(units, size=20, seed=4)
    stored = json.loads(json.dumps(sample.as_json()))
    assert stored["seed"] == 4
    assert stored["requestedSize"] == 20
    assert stored["minPerStratum"] == 2
    assert (stored["population"], stored["sampled"]) == (113, 20)
    assert {(tuple(s["stratum"]), s["population"]) for s in stored["strata"]} == {
        (("gpt", 2), 80),
        (("gpt", 0), 3),
        (("llama", 1), 30),
    }
    first = sample.units[0]
    assert stored["units"][0] == {"key": first.key, "stratum": list(first.stratum), "weight": first.weight}
    assert Sample.from_json(stored) == sample


def test_a_size_below_what_the_strata_need_is_refused_naming_both_numbers():
    units = batch_units({(config, score): 50 for config in "ABCD" for score in (0, 1, 2)})
    with pytest.raises(ValueError, match=r"a sample of 20 cannot hold the 12 strata: they need at least 24 units"):
        stratified_sample(units, size=20, seed=0)
    with pytest.raises(ValueError, match=r"a sample of 11 cannot hold the 12 strata: they need at least 12 units"):
        stratified_sample(units, size=11, seed=0, min_per_stratum=1)
    assert len(stratified_sample(units, size=12, seed=0, min_per_stratum=1).units) == 12


@pytest.mark.parametrize(
    ("units", "size", "seed", "message"),
    [
        ([("a", ("A", 1))], 0, 1, r"size must be an integer of at least 1; got 0"),
        ([("a", ("A", 1))], -3, 1, r"size must be an integer of at least 1; got -3"),
        ([("a", ("A", 1))], 2.5, 1, r"size must be an integer of at least 1; got 2.5"),
        ([("a", ("A", 1))], True, 1, r"size must be an integer of at least 1; got True"),
        ([("a", ("A", 1))], 5, -1, r"seed must be an integer of at least 0; got -1"),
        ([], 5, 1, r"there are no units to sample from"),
        ([("a", ("A", 1)), ("b", ("A", 2)), ("a", ("B", 1))], 5, 1, r"1 duplicate key\(s\), e\.g\. \['a'\]"),
        ([("a", ("A", ["x"]))], 5, 1, r"units\[0\] \('a'\): the stratum \('A', \['x'\]\) is not hashable"),
        ([("a", ("A", 1)), ("b", ["A", 1])], 5, 1, r"units\[1\] \('b'\): the stratum must be a tuple"),
        ([(7, ("A", 1))], 5, 1, r"units\[0\]: the key must be a string; got 7"),
        ([("a", ("A", 1)), "abc"], 5, 1, r"units\[1\] must be a \(key, stratum\) pair; got 'abc'"),
    ],
)
def test_bad_input_is_refused_with_a_clear_message(units, size, seed, message):
    with pytest.raises(ValueError, match=message):
        stratified_sample(units, size=size, seed=seed)


def test_min_per_stratum_below_one_is_refused():
    with pytest.raises(ValueError, match=r"min_per_stratum must be an integer of at least 1; got 0"):
        stratified_sample([("a", ("A", 1))], size=1, seed=0, min_per_stratum=0)


populations = st.lists(st.integers(min_value=1, max_value=400), min_size=1, max_size=12)


@settings(max_examples=150, deadline=None)
@given(populations=populations, data=st.data())
def test_allocation_properties(populations, data):
    minimum = data.draw(st.integers(min_value=1, max_value=3), label="minimum")
    floors = [min(minimum, n) for n in populations]
    size = data.draw(st.integers(min_value=sum(floors), max_value=sum(populations) + 5), label="size")
    counts = allocate(populations, size, minimum)
    assert sum(counts) == min(size, sum(populations))
    assert all(f <= n <= population for f, n, population in zip(floors, counts, populations, strict=True))
    if size < sum(populations):
        for n, target in zip(counts, water_filling(populations, size, minimum), strict=True):
            assert abs(n - target) < 1 + 1e-9


@settings(max_examples=60, deadline=None)
@given(
    counts=st.dictionaries(
        st.tuples(st.sampled_from(["gpt", "llama", "qwen"]), st.integers(min_value=0, max_value=2)),
        st.integers(min_value=1, max_value=60),
        min_size=1,
    ),
    extra=st.integers(min_value=0, max_value=80),
    seed=st.integers(min_value=0, max_value=2**32),
)
def test_sample_properties(counts, extra, seed):
    units = batch_units(counts)
    size = sum(min(2, n) for n in counts.values()) + extra
    sample = stratified_sample(units, size=size, seed=seed)
    assert set(sampled_per_stratum(sample)) == set(counts)
    assert len(sample.units) == min(size, len(units)) == len(set(sample.keys))
    assert math.isclose(sum(unit.weight for unit in sample.units), len(units), rel_tol=1e-12)
    stratum_of = dict(units)
    assert all(stratum_of[unit.key] == unit.stratum for unit in sample.units)
    assert stratified_sample(list(reversed(units)), size=size, seed=seed) == sample
