"""iter_ndjson: one trial per line as the JSON export's trials hold them (normalised), read once, in chunks; and the
per-trial files' names."""

import json
import math

import pytest

from layer3.exports.formats import export_filename, iter_ndjson, trials_filename
from layer3.exports.json_csv import CHUNK_CHARS, normalised_trial
from tests.layer3.exports.samples import ReadOnce, error_metrics, full_metrics, trial, without_items


def test_one_line_per_trial_normalised_and_unevaluated_as_null():
    trials = [trial("t-1", "A", full_metrics()), trial("t-2", "B", without_items()), trial("t-3", "A", None),
              trial("t-4", "C", error_metrics())]  # fmt: skip
    text = "".join(iter_ndjson(ReadOnce(trials)))
    assert text.endswith("\n") and text.count("\n") == 4
    assert [json.loads(line) for line in text.splitlines()] == [normalised_trial(t) for t in trials]
    unscored = json.loads(text.splitlines()[1])["layer3Metrics"]["generatedValueRelevance"]
    assert unscored["avgScore"] is None and unscored["usefulRate"] is None
    assert json.loads(text.splitlines()[2])["layer3Metrics"] is None


def test_no_trials_is_an_empty_file_and_text_stays_utf8():
    assert "".join(iter_ndjson([])) == ""
    line = "".join(iter_ndjson([trial("<script>「試行」</script>", "A", None)]))
    assert "<script>「試行」</script>" in line and json.loads(line)["id"] == "<script>「試行」</script>"


def test_large_batches_come_in_chunks():
    chunks = list(iter_ndjson(trial(f"t-{i:05d}", "A", full_metrics()) for i in range(2_000)))
    assert len(chunks) > 1 and all(len(chunk) >= CHUNK_CHARS for chunk in chunks[:-1])
    assert "".join(chunks).count("\n") == 2_000


def test_a_nan_is_refused():
    metrics = full_metrics()
    metrics["graphComplexity"]["density"] = math.nan
    with pytest.raises(ValueError):
        "".join(iter_ndjson([trial("t-1", "A", metrics)]))


def test_trials_filenames():
    assert trials_filename("b 1/x", ".csv") == export_filename("b 1/x", "csv") == "layer3-b_1_x.csv"
    assert trials_filename("b", ".jsonl", "gpt-4o") == "layer3-b-gpt-4o.jsonl"
    with pytest.raises(ValueError, match=r"\.csv, \.jsonl"):
        trials_filename("b", ".json")
