"""A comparison as CSV, Markdown and LaTeX: content, escaping, and formula-looking ids kept as data."""

import csv
import io

from layer3.compare.exports import CSV_COLUMNS, render
from layer3.compare.matching import match_batches
from layer3.statistics.versions import TrialVersion, changed_trials, compare_versions, sort_changed
from tests.layer3.compare.test_versions import metrics


def document(trial_a='=HYPERLINK("http://x")', unmatched_id="+1+1"):
    a = [TrialVersion(trial_a, 1, "A", metrics(3, [2, 1]), "悩み"), TrialVersion("t2", 2, "A", metrics(4, [1]), "別")]
    b = [TrialVersion(trial_a, 11, "A", metrics(5, [2, 2]), "悩み"), TrialVersion("t2", 12, "A", metrics(4, [1]), "別"),
         TrialVersion(unmatched_id, 13, "B|x", None, "ない")]  # fmt: skip
    matching = match_batches(a, b)
    table = compare_versions(matching.groups)
    side = {"batchId": 1, "batch": "v1_50%", "runId": None, "runStatus": None, "runCreatedAt": None,
            "runJudge": None, "runLlmModel": None}  # fmt: skip
    return {
        "kind": "batches", "a": side, "b": {**side, "batch": "v2"}, "snapshotMissing": [],
        "matching": {"rule": "by id", "pairs": matching.pairs, "pairsById": matching.by_id, "pairsByKey": 0,
                     "unmatchedA": 0, "unmatchedB": 1},
        "unmatched": [{"side": u.side, "trialId": u.trial.trial_id, "modelConfig": u.trial.model_config,
                       "reason": u.reason} for u in matching.unmatched],
        "rows": table["rows"], "summary": table["summary"],
        "changed": sort_changed(changed_trials(matching.groups), "delta"),
    }  # fmt: skip


def test_csv_holds_tests_changed_and_unmatched_rows_and_neutralises_formulas():
    rows = list(csv.DictReader(io.StringIO(render(document(), "csv"))))
    assert list(rows[0]) == list(CSV_COLUMNS)
    sections = [row["section"] for row in rows]
    assert sections.count("test") == 22 and "changed" in sections and sections[-1] == "unmatched"
    changed = next(row for row in rows if row["section"] == "changed" and row["metric"] == "GC_NC")
    assert changed["trialA"] == '\'=HYPERLINK("http://x")' and changed["difference"] == "2.0"
    assert rows[-1]["trialB"] == "'+1+1" and rows[-1]["unmatchedReason"] == "no_counterpart"
    gc = next(
        row for row in rows if row["section"] == "test" and row["metric"] == "GC_NC" and row["modelConfig"] == "A"
    )
    assert (gc["test"], gc["valueA"], gc["valueB"], gc["significant"]) == (
        "wilcoxon_signed_rank",
        "3.5",
        "4.5",
        "false",
    )


def test_markdown_states_the_versions_matching_family_and_changed_trials():
    text = render(document(), "markdown")
    assert "- A: batch v1\\_50%" in text and "- B: batch v2" in text
    assert "| A | GC_NC | Wilcoxon | 2 | 3.5000 | 4.5000 | 1.0000 | 1.00 | 1.00 |" in text
    assert "Bonferroni over 22 tests (11 metrics × 2 model configs), α = 0.05, α′ = 0.00227" in text
    assert "## Changed trials" in text and "=HYPERLINK" in text
    assert "- B: +1+1 (B\\|x, no_counterpart)" in text


def test_latex_escapes_text_and_states_alpha_prime():
    text = render(document(), "latex")
    assert "\\begin{tabular}{llllrrrrl}" in text and "\\toprule" in text
    assert "A & GC\\_NC & Wilcoxon & 2 & $3.5000$ & $4.5000$ & $1.0000$ & $1.00$ &" in text
    assert "v1\\_50\\%" in text and "$\\alpha' = 0.00227$" in text and "McNemar" in text


def test_a_run_without_a_snapshot_is_said_in_every_format():
    doc = {**document(), "snapshotMissing": ["A"], "rows": [], "summary": None, "changed": [], "unmatched": []}
    assert "No per-trial snapshot of run A" in render(doc, "markdown")
    assert "No per-trial snapshot of run A" in render(doc, "latex")
    assert render(doc, "csv").splitlines() == [",".join(CSV_COLUMNS)]
