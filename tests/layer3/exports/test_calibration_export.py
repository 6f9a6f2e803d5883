"""export_layer3 --calibration and calibration_export: the batch's judge-calibration reports as files."""

import json

import pytest
from django.core.management import CommandError, call_command

from layer3.exports.calibration_files import calibration_export
from layer3.exports.files import ExportError
from layer3.models import Batch
from tests.layer3.calibration_fixture import gv_report, w2wr_report

pytestmark = pytest.mark.django_db


@pytest.fixture
def batch():
    return Batch.objects.create(name="pilot")


def export(tmp_path, *args, name="out"):
    path = tmp_path / name
    call_command("export_layer3", "pilot", "--calibration", *args, "--output", str(path))
    return path.read_text(encoding="utf-8")


def test_json_holds_every_audit_newest_first_or_one_audit_as_it_is(batch, calibration, tmp_path):
    calibration["pilot"] = [gv_report(), w2wr_report()]
    body = {"batchId": str(batch.pk), "batchName": "pilot", "audits": [gv_report(), w2wr_report()]}
    assert json.loads(export(tmp_path, "--format", "json")) == body
    assert json.loads(export(tmp_path, "--format", "json", "--audit", "5")) == w2wr_report()


def test_markdown_and_latex_hold_one_section_per_audit(batch, calibration, tmp_path):
    calibration["pilot"] = [gv_report(), w2wr_report()]
    markdown = export(tmp_path, "--format", "markdown")
    assert markdown.count("# Judge calibration: ") == 2 and markdown.index("pilot GV") < markdown.index("pilot W2WR")
    latex = export(tmp_path, "--format", "latex", "--audit", "7")
    assert latex.count("\\subsection*{Judge calibration: ") == 1 and "pilot GV audit" in latex


def test_the_results_export_is_unchanged_without_the_switch(batch, calibration, tmp_path, capsys):
    calibration["pilot"] = [gv_report()]
    with pytest.raises(CommandError, match="no Layer3 results yet"):
        call_command("export_layer3", "pilot", "--format", "json", "--output", str(tmp_path / "x"))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--calibration", "--format", "csv"], "--calibration exports json, markdown, latex, not csv"),
        (["--calibration", "--format", "json", "--model-config", "A"], "--model-config do not apply"),
        (["--calibration", "--format", "json", "--include-raw"], "--include-raw do not apply"),
        (["--format", "json", "--audit", "7"], "--audit applies to --calibration only"),
        (["--calibration", "--format", "json", "--audit", "99"], "audit 99: the audits of batch pilot are 7"),
    ],
)
def test_it_refuses_what_does_not_apply_and_names_it(batch, calibration, tmp_path, args, message):
    calibration["pilot"] = [gv_report()]
    with pytest.raises(CommandError, match=message):
        call_command("export_layer3", "pilot", *args, "--output", str(tmp_path / "x"))
    assert not (tmp_path / "x").exists()


def test_a_batch_without_an_audit_says_how_to_create_one(batch, calibration):
    with pytest.raises(ExportError, match=r"no judge audit yet.*create_judge_audit pilot"):
        calibration_export(batch, fmt="markdown")
    with pytest.raises(ExportError, match="format 'csv'"):
        calibration_export(batch, fmt="csv")


def test_standard_output_gets_the_same_bytes(batch, calibration, tmp_path, capsys):
    calibration["pilot"] = [gv_report()]
    call_command("export_layer3", "pilot", "--calibration", "--format", "markdown", "--output", "-")
    assert capsys.readouterr().out == export(tmp_path, "--format", "markdown")
