"""What each stored trial holds, read in the database for planning (``trial_states``, ``grouped_states``),
equals ``TrialState.of`` on the record itself, on either backend (PostgreSQL reads a copy of each record)."""

from collections import Counter

import pytest

from layer3.models import Batch, TrialLog
from layer3.runs.plan import GV, W2WR, TrialState
from layer3.runs.reads import grouped_states, trial_states

pytestmark = pytest.mark.django_db

BASELINE = {"kind": "baseline", "model": "baseline-tfidf@1", "prompt": "layer3.gv_relevance@1"}
LLM = {"kind": "llm", "model": "gpt-4o", "prompt": "layer3.w2wr_correctness@2"}
RECORDS = {
    "never": None,
    "broken": {"version": "1.0", "evaluatedAt": "x", "error": "bad spec", "path": "$.widgets"},
    "automatic": {"version": "1.0", "evaluatedAt": "x", "graphComplexity": {"nodeCount": 2}, "widgetDiversity": {}},
    "judged": {"graphComplexity": {}, GV: {"judge": BASELINE, "avgScore": 2}, W2WR: {"judge": LLM, "avgScore": 1}},
    "judge failed": {"graphComplexity": {}, GV: {"judge": BASELINE, "judgeErrors": [{"item": 1}]}},
    "judge unknown": {"graphComplexity": {}, GV: {"avgScore": 2}},  # written before judges were recorded
    "<script>x</script>": {"graphComplexity": {}, W2WR: {"judge": {"kind": "llm", "model": "m'; --", "prompt": "p"}}},
}


def test_the_states_read_in_the_database_are_those_of_the_records():
    batch = Batch.objects.create(name="states")
    for number, (name, record) in enumerate(RECORDS.items()):
        for config in ("A", "B"):
            TrialLog.objects.create(batch=batch, external_id=f"{name}-{config}", model_config=config, stage=3,
                                    input_text="", generated_data={}, layer3_metrics=record)  # fmt: skip
        assert number < 10
    trials = TrialLog.objects.filter(batch=batch)
    expected = [(t.pk, t.model_config, TrialState.of(t.layer3_metrics)) for t in trials.order_by("pk")]
    assert trial_states(trials) == expected
    assert len({state for _pk, _config, state in expected}) == len(RECORDS)  # every record a state of its own
    grouped = Counter({(config, state): n for config, state, n in grouped_states(trials)})
    assert grouped == Counter((config, state) for _pk, config, state in expected)
