"""Matching two batches' trials: by trial id, then by a unique (input text, model config); the rest listed."""

from layer3.compare.matching import match_batches, match_runs
from layer3.statistics.versions import TrialVersion


def trial(pk, trial_id, config="A", text="悩み"):
    return TrialVersion(trial_id, pk, config, None, text)


def pairs(matching):
    return sorted((a.trial_id, b.trial_id) for group in matching.groups.values() for a, b in group.pairs)


def unmatched(matching):
    return [(row.side, row.trial.trial_id, row.reason) for row in matching.unmatched]


def test_trials_with_the_same_id_and_model_config_are_pairs():
    matching = match_batches([trial(1, "t1", text="x"), trial(2, "t2", text="y")],
                             [trial(11, "t1", text="changed"), trial(12, "t2", text="y")])  # fmt: skip
    assert pairs(matching) == [("t1", "t1"), ("t2", "t2")]
    assert (matching.by_id, matching.by_key, matching.unmatched) == (2, 0, [])


def test_where_ids_differ_a_unique_input_text_and_model_config_pairs_them():
    a = [trial(1, "v1-1", text="転職"), trial(2, "v1-2", text="眠れない"), trial(3, "v1-3", "B", text="転職")]
    b = [trial(11, "v2-1", text="転職"), trial(12, "v2-9", "B", text="転職"), trial(13, "v2-2", text="眠れない")]
    matching = match_batches(a, b)
    assert pairs(matching) == [("v1-1", "v2-1"), ("v1-2", "v2-2"), ("v1-3", "v2-9")]
    assert (matching.by_id, matching.by_key) == (0, 3)
    assert sorted(matching.groups) == ["A", "B"]


def test_a_key_held_twice_on_either_side_leaves_its_trials_unmatched_and_says_so():
    a = [trial(1, "a1", text="same"), trial(2, "a2", text="same"), trial(3, "a3", text="once")]
    b = [trial(11, "b1", text="same"), trial(12, "b3", text="once"), trial(13, "b4", text="once")]
    matching = match_batches(a, b)
    assert pairs(matching) == []
    assert unmatched(matching) == [
        ("A", "a1", "duplicate_key"), ("A", "a2", "duplicate_key"), ("A", "a3", "duplicate_key"),
        ("B", "b1", "duplicate_key"), ("B", "b3", "duplicate_key"), ("B", "b4", "duplicate_key"),
    ]  # fmt: skip


def test_trials_without_a_counterpart_are_listed_per_side():
    matching = match_batches(
        [trial(1, "t1"), trial(2, "only-a", text="a")], [trial(11, "t1"), trial(12, "only-b", "C")]
    )
    assert pairs(matching) == [("t1", "t1")]
    assert unmatched(matching) == [("A", "only-a", "no_counterpart"), ("B", "only-b", "no_counterpart")]
    assert [t.trial_id for t in matching.groups["C"].only_b] == ["only-b"]


def test_the_same_id_under_another_model_config_falls_back_to_the_key():
    matching = match_batches([trial(1, "t1", "A", text="k")], [trial(11, "t1", "B", text="k")])
    assert pairs(matching) == [] and len(matching.unmatched) == 2


def test_runs_pair_the_same_stored_trial():
    matching = match_runs([trial(1, "t1"), trial(2, "t2")], [trial(2, "t2"), trial(3, "t3")])
    assert pairs(matching) == [("t2", "t2")]
    assert unmatched(matching) == [("A", "t1", "no_counterpart"), ("B", "t3", "no_counterpart")]
