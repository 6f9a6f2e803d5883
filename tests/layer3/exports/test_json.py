"""iter_json: the results document, and the raw trials streamed as its last key."""

import copy
import json
import math

import pytest

from layer3.exports.formats import iter_json
from layer3.exports.json_csv import CHUNK_CHARS, normalised_metrics, normalised_trial
from tests.layer3.exports.samples import ReadOnce, document, error_metrics, full_metrics, trial, without_items


def sample_trials():
    return [
        trial("t-0001", "A", full_metrics()),
        trial("t-0002", "B", error_metrics()),
        trial("試行-3", "=B", None),
    ]


def test_document_alone_parses_back_to_itself():
    doc = document()
    text = "".join(iter_json(doc))
    assert json.loads(text) == doc
    assert text == json.dumps(doc, ensure_ascii=False, indent=2) + "\n"


def test_document_with_trials_parses_back_to_the_document_plus_the_trials():
    doc, trials = document(), sample_trials()
    text = "".join(iter_json(doc, iter(trials)))
    assert json.loads(text) == {**doc, "trials": trials}
    assert list(json.loads(text))[-1] == "trials"


def test_streamed_text_is_the_same_as_dumping_it_whole():
    doc, trials = document(), sample_trials()
    expected = json.dumps({**doc, "trials": trials}, ensure_ascii=False, indent=2, allow_nan=False) + "\n"
    assert "".join(iter_json(doc, iter(trials))) == expected


def test_japanese_text_is_written_as_utf8_text_not_escapes():
    text = "".join(iter_json(document(batchId="パイロット"), iter(sample_trials())))
    assert "パイロット" in text and "試行-3" in text
    assert "\\u" not in text


def test_no_trials_gives_an_empty_array():
    text = "".join(iter_json(document(), iter([])))
    assert json.loads(text)["trials"] == []
    assert text == json.dumps({**document(), "trials": []}, ensure_ascii=False, indent=2) + "\n"


def test_an_empty_document_with_trials_is_still_valid_json():
    trials = sample_trials()
    assert json.loads("".join(iter_json({}, iter(trials)))) == {"trials": trials}


def test_a_trials_key_of_the_document_is_replaced_by_the_trials():
    doc = {**document(), "trials": "old"}
    trials = sample_trials()
    assert json.loads("".join(iter_json(doc, iter(trials)))) == {**doc, "trials": trials}


def test_none_values_stay_null():
    doc = document(evaluatedAt=None, experimentId="")
    parsed = json.loads("".join(iter_json(doc, iter([trial(metrics=None)]))))
    assert parsed["evaluatedAt"] is None
    assert parsed["trials"][0]["layer3Metrics"] is None


def test_nan_is_refused_because_json_has_no_such_number():
    with pytest.raises(ValueError):
        "".join(iter_json(document(), iter([trial(metrics={"graphComplexity": {"density": math.nan}})])))


def test_the_head_is_yielded_before_any_trial_is_read():
    trials = ReadOnce(trial(f"t-{i}") for i in range(10))
    chunks = iter_json(document(), trials)
    first = next(chunks)
    assert trials.read == 0
    assert first.startswith('{\n  "batchId": "pilot-2026-11"')
    rest = "".join(chunks)
    assert trials.read == 10
    assert len(json.loads(first + rest)["trials"]) == 10


def test_many_trials_are_streamed_in_bounded_chunks_while_reading():
    total = 20_000
    trials = ReadOnce(trial(f"t-{i:05}", "A", full_metrics()) for i in range(total))
    read_when_yielded = []
    sizes = []
    text = []
    for chunk in iter_json(document(), trials):
        read_when_yielded.append(trials.read)
        sizes.append(len(chunk))
        text.append(chunk)
    assert read_when_yielded[1] < total  # the first trials went out before the last was read
    assert max(sizes) < 2 * CHUNK_CHARS
    assert len(json.loads("".join(text))["trials"]) == total


def test_trials_are_iterated_once():
    trials = ReadOnce([trial()])
    "".join(iter_json(document(), trials))
    with pytest.raises(AssertionError):
        list(trials)


def test_raw_trials_without_judged_items_have_null_scores_and_the_input_is_not_changed():
    stored = without_items(stored=0)  # stored under the seed's `|| 1` guard
    before = copy.deepcopy(stored)
    trials = [trial("t-1", "A", stored), trial("t-2", "A", full_metrics()), trial("t-3", "B", error_metrics())]
    parsed = json.loads("".join(iter_json(document(), iter(trials))))
    gv = parsed["trials"][0]["layer3Metrics"]["generatedValueRelevance"]
    semantic = parsed["trials"][0]["layer3Metrics"]["w2wrSemanticCorrectness"]
    assert (gv["evaluatedItems"], gv["avgScore"], gv["usefulRate"]) == (0, None, None)
    assert (semantic["evaluatedBindings"], semantic["avgScore"], semantic["correctnessRate"]) == (0, None, None)
    assert gv["judge"] == stored["generatedValueRelevance"]["judge"]  # everything else as stored
    assert parsed["trials"][0]["layer3Metrics"]["graphComplexity"] == stored["graphComplexity"]
    assert parsed["trials"][1:] == trials[1:]
    assert stored == before and trials[0]["layer3Metrics"] is stored


def test_normalising_leaves_trials_with_judged_items_as_they_are():
    measured = trial("t-1", "A", full_metrics())
    assert normalised_trial(measured) is measured
    assert normalised_trial(trial(metrics=None))["layer3Metrics"] is None
    already = without_items(stored=None)
    assert normalised_metrics(already) is already
    old = without_items(stored=0)
    new = normalised_metrics(old)
    assert new is not old and new["graphComplexity"] is old["graphComplexity"]
    assert old["generatedValueRelevance"]["avgScore"] == 0
