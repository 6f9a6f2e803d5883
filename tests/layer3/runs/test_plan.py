"""The per-block plan of a run (pure): compute what is missing, keep what is there, replace only on request."""

from layer3.runs.options import EvaluationOptions
from layer3.runs.plan import (
    AUTOMATIC_BLOCKS,
    GV,
    W2WR,
    TrialState,
    count_plan,
    merge,
    plan_trial,
    plan_warnings,
    requested_blocks,
)

BASE = "baseline:baseline-tfidf@1:layer3.gv_relevance@1"
LLM = "llm:gpt-4o:layer3.gv_relevance@1"
NEVER = TrialState()
AUTOMATIC = TrialState(evaluated=True, present=frozenset(AUTOMATIC_BLOCKS))
JUDGED = TrialState(evaluated=True, present=frozenset((*AUTOMATIC_BLOCKS, GV)), judges=((GV, BASE),))
BROKEN = TrialState(evaluated=True, error=True)


def test_the_blocks_asked_for_need_a_judge_for_the_judged_ones():
    assert requested_blocks(EvaluationOptions()) == AUTOMATIC_BLOCKS  # evaluateGV is on, but there is no judge
    assert requested_blocks(EvaluationOptions(judge="baseline")) == (*AUTOMATIC_BLOCKS, GV)
    asked = requested_blocks(EvaluationOptions(judge="llm", evaluate_complexity=False, evaluate_w2wr_semantic=True))
    assert asked == ("widgetDiversity", "w2wrTypeDistribution", GV, W2WR)


def test_missing_blocks_are_computed_present_ones_kept():
    plan = plan_trial(AUTOMATIC, (*AUTOMATIC_BLOCKS, GV), force=False, judges={GV: BASE})
    assert plan.compute == (GV,) and plan.verbs["graphComplexity"] == "keep"
    assert plan_trial(JUDGED, (*AUTOMATIC_BLOCKS, GV), force=False, judges={GV: LLM}).compute == ()
    assert plan_trial(NEVER, AUTOMATIC_BLOCKS, force=False).compute == AUTOMATIC_BLOCKS


def test_force_replaces_only_the_blocks_asked_for_and_names_another_judge():
    plan = plan_trial(JUDGED, AUTOMATIC_BLOCKS, force=True)
    assert plan.compute == AUTOMATIC_BLOCKS and GV not in plan.verbs
    plan = plan_trial(JUDGED, (GV,), force=True, judges={GV: LLM})
    assert plan.verbs == {GV: "replace"} and plan.other_judge == {GV}
    assert plan_trial(JUDGED, (GV,), force=True, judges={GV: BASE}).other_judge == frozenset()


def test_failed_items_are_retried_by_the_same_judge_only():
    incomplete = TrialState(evaluated=True, present=frozenset((GV,)), judges=((GV, BASE),), incomplete=frozenset((GV,)))
    assert plan_trial(incomplete, (GV,), force=False, judges={GV: BASE}).verbs == {GV: "retry"}
    assert plan_trial(incomplete, (GV,), force=False, judges={GV: LLM}).verbs == {GV: "keep"}


def test_a_trial_whose_data_is_not_a_uispec_is_left_alone_unless_forced():
    plan = plan_trial(BROKEN, AUTOMATIC_BLOCKS, force=False)
    assert plan.skipped_error and plan.compute == () and plan.verbs == {}
    assert plan_trial(BROKEN, AUTOMATIC_BLOCKS, force=True).compute == AUTOMATIC_BLOCKS


def test_counts_group_equal_states_and_say_who_is_kept_replaced_and_mixed():
    options = EvaluationOptions(judge="llm", llm_model="gpt-4o")
    states = [("A", JUDGED, 3), ("A", NEVER, 1), ("B", JUDGED, 2), ("B", JUDGED, 2), ("C", BROKEN, 1)]
    counts = count_plan(states, options, {GV: LLM})
    assert counts.blocks[GV] == {"compute": 1, "keep": 7, "replace": 0, "retry": 0}
    assert counts.blocks["graphComplexity"] == {"compute": 1, "keep": 7, "replace": 0, "retry": 0}
    assert (counts.trials, counts.skipped, counts.errors_skipped) == (1, 8, 1)
    assert counts.kept_judges == {GV: {BASE: 7}} and counts.mixed_configs == {GV: ["A"]}
    forced = count_plan(states, EvaluationOptions(judge="llm", force=True), {GV: LLM})
    assert forced.other_judge == {GV: {BASE: 7}} and forced.mixed_configs == {}
    assert forced.blocks[GV] == {"compute": 2, "keep": 0, "replace": 7, "retry": 0}  # the broken trial is tried
    warnings = plan_warnings(forced, {GV: LLM})
    assert len(warnings) == 1 and f"replaces the verdicts of {BASE} (7 trials) with those of {LLM}" in warnings[0]
    assert "model config(s) A will hold verdicts of more than one judge" in plan_warnings(counts, {GV: LLM})[0]


def test_a_run_of_the_automatic_metrics_warns_of_no_judge():
    counts = count_plan([("A", JUDGED, 2), ("A", NEVER, 1)], EvaluationOptions(force=True))
    assert counts.mixed_configs == {} and plan_warnings(counts, {}) == []


def test_merge_puts_the_computed_blocks_into_the_stored_record_in_the_seed_s_order():
    stored = {"version": "1.0", "evaluatedAt": "old", "graphComplexity": {"n": 1}, GV: {"judge": {"model": "m1"}}}
    merged = merge(stored, {"graphComplexity": {"n": 2}, W2WR: {"judge": {"model": "m2"}}}, "new")
    assert list(merged) == ["version", "evaluatedAt", "graphComplexity", "evaluatorModel", GV, W2WR]
    assert merged["graphComplexity"] == {"n": 2} and merged[GV] == stored[GV]
    assert (merged["evaluatedAt"], merged["evaluatorModel"]) == ("new", "m1, m2")
    assert stored["graphComplexity"] == {"n": 1}  # the stored record itself is not changed
    error = {"version": "1.0", "evaluatedAt": "old", "error": "x", "path": "p"}
    assert merge(error, {"graphComplexity": {"n": 3}}, "t") == {"version": "1.0", "evaluatedAt": "t",
                                                                "graphComplexity": {"n": 3}}  # fmt: skip
    first = merge(None, {"widgetDiversity": {}, "graphComplexity": {}}, "t")
    assert list(first) == ["version", "evaluatedAt", "graphComplexity", "widgetDiversity"]


def test_states_read_from_records_are_hashable_and_equal_for_equal_records():
    judge = {"kind": "baseline", "model": "baseline-tfidf@1", "prompt": "layer3.gv_relevance@1"}
    record = {"graphComplexity": {}, GV: {"judge": judge, "judgeErrors": [{}]}}
    state = TrialState.of(record)
    assert state == TrialState.of(dict(record)) and hash(state) == hash(TrialState.of(dict(record)))
    assert state.judge(GV) == BASE and state.incomplete == {GV} and state.judge(W2WR) is None
    assert TrialState.of(None) == NEVER and TrialState.of({"error": "x"}) == BROKEN
