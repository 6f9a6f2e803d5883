"""The seed A.6 command-line tools end to end: files in, files out."""

import json

import numpy as np
import pytest
from django.core.management import CommandError, call_command, load_command_class

from annotation.models import AgreementReport
from tests.annotation.conftest import dialogue, rating

AXES = ("social", "avoidant", "mechanical", "self")


def _batch(n_items=40, annotators=("ann_001", "ann_002", "ann_003"), noise=0.1, seed=1, random_annotator=None):
    rng = np.random.default_rng(seed)
    truth = rng.choice([1, 1, 1, 2, 3, 4, 5], size=(n_items, 4))
    rows = []
    for name in annotators:
        for i in range(n_items):
            if name == random_annotator:
                scores = rng.integers(1, 6, size=4)
            else:
                scores = np.clip(truth[i] + (rng.random(4) < noise) * rng.choice([-1, 1], size=4), 1, 5)
            rows.append(rating(i, name, scores=tuple(int(s) for s in scores), conf=(0.9, 0.9, 0.9, 0.9)))
    return rows


def test_kappa_calculator_writes_the_seed_report(jsonl, tmp_path, capsys):
    path = jsonl(_batch())
    out = tmp_path / "quality_reports" / "kappa_report.json"
    out.parent.mkdir()
    call_command("kappa_calculator", "--input", str(path), "--output", str(out), "--n-boot", "200")
    text = out.read_text(encoding="utf-8")
    report = json.loads(text, parse_constant=lambda c: pytest.fail(f"non-strict JSON constant {c}"))
    assert report["min_kappa"] == 0.6 and report["target_kappa"] == 0.8 and report["passed"] is True
    assert set(report["axes"]) == set(AXES)
    social = report["axes"]["social"]
    for key in ("kappa", "ci95", "alpha", "ac2", "agreement_exact", "agreement_within_1", "prevalence", "n_items",
                "passed", "reason", "pairs"):  # fmt: skip
        assert key in social
    assert social["n_items"] == 40 and len(social["pairs"]) == 3
    assert social["ci95"][0] <= social["kappa"] <= social["ci95"][1]
    assert set(social["prevalence"]) == {"1", "2", "3", "4", "5"}
    assert social["pairs"][0]["annotators"] == ["ann_001", "ann_002"]
    assert "PASS" in capsys.readouterr().out


def test_kappa_calculator_fails_under_only_when_asked(jsonl, tmp_path):
    path = jsonl(_batch(noise=0.9, seed=5))
    out = tmp_path / "report.json"
    call_command("kappa_calculator", "--input", str(path), "--output", str(out), "--n-boot", "0", "--min_kappa", "0.99")
    assert json.loads(out.read_text())["passed"] is False
    with pytest.raises(CommandError, match=r"agreement below min_kappa 0\.99 on: social") as error:
        call_command(
            "kappa_calculator", "--input", str(path), "--output", str(out), "--n-boot", "0",
            "--min-kappa", "0.99", "--fail-under",
        )  # fmt: skip
    assert error.value.returncode == 1


def test_kappa_calculator_reports_undefined_kappa_as_null(jsonl, tmp_path):
    rows = [rating(i, name, scores=(1, 1, 1, 1)) for i in range(5) for name in ("a", "b")]
    out = tmp_path / "report.json"
    call_command("kappa_calculator", "--input", str(jsonl(rows)), "--output", str(out), "--n-boot", "50")
    report = json.loads(out.read_text())
    social = report["axes"]["social"]
    assert social["kappa"] is None and social["passed"] is False and social["reason"]
    assert report["passed"] is False
    assert "NaN" not in out.read_text()


def test_kappa_calculator_can_save_the_report(jsonl, tmp_path, db):
    path = jsonl(_batch())
    call_command(
        "kappa_calculator", "--input", str(path), "--output", str(tmp_path / "r.json"), "--n-boot", "0", "--save"
    )
    stored = AgreementReport.objects.get()
    assert stored.passed and stored.axis_kappa("social") == stored.report["axes"]["social"]["kappa"]


def test_kappa_calculator_rejects_bad_input_naming_the_line(jsonl, tmp_path):
    path = jsonl([rating(1), rating(2, scores=(1, 7, 1, 1))])
    out = tmp_path / "r.json"
    with pytest.raises(CommandError, match=r":2: \$\.annotations\.avoidant: must be from 1 to 5, got 7"):
        call_command("kappa_calculator", "--input", str(path), "--output", str(out))
    assert not out.exists()


@pytest.mark.django_db  # accepted quality flags are looked up (none here)
def test_merge_writes_consensus_rejected_and_reports(jsonl, tmp_path, capsys):
    rows = _batch(annotators=("ann_001", "ann_002", "ann_003", "ann_004"), random_annotator="ann_004")
    rows.append(rating(100, "ann_001"))  # one rating only: rejected
    path = jsonl(rows)
    out = tmp_path / "aggregated" / "consensus.jsonl"
    out.parent.mkdir()
    (tmp_path / "quality_reports").mkdir()
    call_command(
        "merge_annotations", "--input", str(path), "--method", "weighted_average", "--min_kappa", "0.60",
        "--output", str(out), "--reports", str(tmp_path / "quality_reports"), "--n-boot", "100",
    )  # fmt: skip
    consensus = [json.loads(line) for line in out.read_text().splitlines()]
    rejected_path = tmp_path / "aggregated" / "rejected" / "low_agreement.jsonl"
    rejected = [json.loads(line) for line in rejected_path.read_text().splitlines()]
    assert {line["id"] for line in consensus} | {line["id"] for line in rejected} == {
        f"dialogue_{i:03d}" for i in [*range(40), 100]
    }
    assert rejected[-1]["id"] == "dialogue_100"
    assert rejected[-1]["reasons"]["social"]["reason"] == "too_few_ratings"
    assert all(line["n_used"]["social"] <= 3 for line in consensus)  # the random annotator is left out
    kappa = json.loads((tmp_path / "quality_reports" / "kappa_report.json").read_text())
    left_out = kappa["merge"]["annotators"]["social"]["excluded"]
    assert [entry["annotator"] for entry in left_out] == ["ann_004"]
    outliers = json.loads((tmp_path / "quality_reports" / "outlier_report.json").read_text())
    assert any(f["subject"] == "ann_004" and f["kind"] == "low_agreement" for f in outliers["flags"])
    assert "left out of social: ann_004" in capsys.readouterr().out


@pytest.mark.django_db
@pytest.mark.parametrize("method", ["weighted_average", "median", "majority"])
def test_merge_methods_write_the_method_on_each_line(jsonl, tmp_path, method):
    out = tmp_path / f"{method}.jsonl"
    call_command("merge_annotations", "--input", str(jsonl(_batch())), "--method", method, "--output", str(out))
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert lines and {line["method"] for line in lines} == {method}


def test_merge_rejects_an_unknown_method(jsonl, tmp_path):
    with pytest.raises(CommandError, match="invalid choice: 'mean'"):
        call_command("merge_annotations", "--input", str(jsonl(_batch())), "--method", "mean", "--output", "x")


def test_validate_passes_good_data(jsonl, tmp_path, capsys):
    dialogues = jsonl([dialogue(i) for i in range(40)])
    call_command("validate_annotations", "--dialogues", str(dialogues), "--input", str(jsonl(_batch())),
                 "--report", str(tmp_path / "v.json"))  # fmt: skip
    out = capsys.readouterr().out
    for check in ("format", "range", "kappa", "completeness", "consistency", "outliers"):
        assert check in out
    assert "all blocking checks passed" in out
    assert json.loads((tmp_path / "v.json").read_text())["passed"] is True


def test_validate_fails_on_range_and_completeness(jsonl, tmp_path):
    dialogues = jsonl([dialogue(i) for i in range(41)])  # dialogue_040 has no ratings
    rows = _batch()
    rows[0] = rating(0, "ann_001", scores=(9, 1, 1, 1))
    report = tmp_path / "v.json"
    with pytest.raises(CommandError, match="blocking check\\(s\\) failed: range, completeness") as error:
        call_command("validate_annotations", "--dialogues", str(dialogues), "--input", str(jsonl(rows)),
                     "--report", str(report))  # fmt: skip
    assert error.value.returncode == 1
    checks = {c["check"]: c for c in json.loads(report.read_text())["checks"]}
    assert checks["range"]["items"][0].endswith(":1: $.annotations.social: must be from 1 to 5, got 9")
    assert "dialogue_040: 0 rating(s), needs 2" in checks["completeness"]["items"]
    assert checks["format"]["status"] == "PASS"


def test_export_consensus_from_the_database_matches_the_file_merge(jsonl, tmp_path, db):
    rows = _batch()
    call_command("import_dialogues", str(jsonl([dialogue(i) for i in range(40)])), batch="b")
    ratings = jsonl(rows)
    call_command("import_annotations", str(ratings))
    from_db, from_files = tmp_path / "db.jsonl", tmp_path / "files.jsonl"
    call_command("export_consensus", "--output", str(from_db), "--batch", "b", "--method", "median")
    call_command("merge_annotations", "--input", str(ratings), "--output", str(from_files), "--method", "median")

    def without_time(path):
        return [
            {k: v for k, v in json.loads(line).items() if k != "timestamp"} for line in path.read_text().splitlines()
        ]

    assert without_time(from_db) == without_time(from_files)
    assert (tmp_path / "rejected" / "low_agreement.jsonl").exists()


@pytest.mark.parametrize("command", ["kappa_calculator", "merge_annotations"])
def test_missing_input_file_is_named(command, tmp_path):
    with pytest.raises(CommandError, match=r"nope\.jsonl: \$: file not found"):
        call_command(command, "--input", str(tmp_path / "nope.jsonl"), "--output", str(tmp_path / "out"))


@pytest.mark.django_db  # merge looks up accepted quality flags (none here)
@pytest.mark.parametrize("command", ["kappa_calculator", "merge_annotations", "validate_annotations"])
def test_the_seed_file_tools_do_not_run_the_site_checks(command, jsonl, tmp_path, monkeypatch):
    def checked(*args, **kwargs):
        raise AssertionError("system checks ran")

    monkeypatch.setattr("django.core.management.base.BaseCommand.check", checked)
    path = jsonl(_batch())
    options = {
        "kappa_calculator": ["--output", str(tmp_path / "k.json"), "--n-boot", "50"],
        "merge_annotations": ["--output", str(tmp_path / "c.jsonl")],
        "validate_annotations": ["--dialogues", str(jsonl([dialogue(i) for i in range(40)]))],
    }[command]
    tool = load_command_class("annotation", command)
    # As `manage.py <command>` runs it (run_from_argv without closing the test's connection); with
    # requires_system_checks = [] the command has no --skip-checks option at all.
    parsed = vars(tool.create_parser("manage.py", command).parse_args(["--input", str(path), *options]))
    assert "skip_checks" not in parsed
    try:
        tool.execute(*parsed.pop("args", ()), **parsed)
    except CommandError as error:  # validate's verdict on the data is not what this test is about
        assert "system checks" not in str(error)
