"""Every command that writes a file refuses a path it cannot write before any work: a CommandError naming the
option and the path, no traceback, nothing written and no folder created (issue #27)."""

import json
from pathlib import Path
from types import SimpleNamespace

import pytest
from django.core.management import CommandError, call_command

import director.rules
from layer3.demo.generator import generate_trials
from tests.annotation.conftest import dialogue, rating, write_jsonl
from tests.helpers import make_user

pytestmark = pytest.mark.django_db

SHIPPED_RULES = Path(director.rules.__file__).parent / "rulesets" / "default.yaml"
UTTERANCES = [{"id": "u1", "speaker": "やな", "text": "えー、ほんと？すっごいね！"}]


@pytest.fixture
def inputs(tmp_path):
    """Small input files for every command, in their own folder."""
    folder = tmp_path / "inputs"
    folder.mkdir()
    rows = [rating(i, name, scores=(1 + i % 3, 1, 1, 1)) for i in range(4) for name in ("ann_a", "ann_b")]
    trials = folder / "trials.jsonl"
    trials.write_text("".join(json.dumps(t, ensure_ascii=False) + "\n" for t in generate_trials(5, seed=3)))
    return SimpleNamespace(
        dialogues=write_jsonl(folder / "dialogues.jsonl", [dialogue(i) for i in range(4)]),
        ratings=write_jsonl(folder / "ratings.jsonl", rows),
        utterances=write_jsonl(folder / "utterances.jsonl", UTTERANCES),
        trials=trials,
        elsewhere=tmp_path / "elsewhere",  # a writable folder for the other outputs of a command
    )


@pytest.fixture
def ratings(inputs):
    """Batch "b" with the ratings stored, and an annotator who could rate it."""
    call_command("import_dialogues", str(inputs.dialogues), batch="b")
    call_command("import_annotations", str(inputs.ratings))
    make_user("ann_t", "annotator")


@pytest.fixture
def layer3(inputs):
    """Layer3 batch "l3", evaluated (an export of it would succeed)."""
    call_command("import_trials", str(inputs.trials), "--batch", "l3")
    call_command("evaluate_layer3", "l3")


def _elsewhere(i, name):
    i.elsewhere.mkdir(exist_ok=True)
    return str(i.elsewhere / name)


def _case(command, arguments, option="--output", ending="", stored=None, name=None):
    """A command, the arguments around the path under test, the option given it, the file ending the command
    checks first, and what must be stored for it to get as far as writing with a good path."""
    return pytest.param(command, arguments, option, ending, stored, id=name or command)


COMMANDS = [
    _case("export_annotations", lambda i: ["--batch", "b"], stored="ratings"),
    _case("export_annotations", lambda i: ["--format", "csv"], ending=".csv", stored="ratings", name="ratings csv"),
    _case("export_consensus", lambda i: [], stored="ratings"),
    _case(
        "export_consensus",
        lambda i: ["--output", _elsewhere(i, "c.jsonl")],
        "--rejected",
        stored="ratings",
        name="export_consensus --rejected",
    ),
    _case("export_consensus", lambda i: ["--format", "xlsx"], ending=".xlsx", stored="ratings", name="consensus xlsx"),
    _case("export_template", lambda i: ["--batch", "b", "--annotator", "ann_t"], ending=".xlsx", stored="ratings"),
    _case("kappa_calculator", lambda i: ["--input", str(i.ratings), "--n-boot", "0"]),
    _case("merge_annotations", lambda i: ["--input", str(i.ratings)]),
    _case(
        "merge_annotations",
        lambda i: ["--input", str(i.ratings), "--output", _elsewhere(i, "c.jsonl")],
        "--rejected",
        name="merge_annotations --rejected",
    ),
    _case("validate_annotations", lambda i: ["--dialogues", str(i.dialogues), "--input", str(i.ratings)], "--report"),
    _case("export_layer3", lambda i: ["l3", "--format", "json"], stored="layer3"),
    _case("export_layer3", lambda i: ["l3", "--format", "markdown"], stored="layer3", name="layer3 markdown"),
    _case("director_check", lambda i: ["--input", str(i.utterances)]),
    _case("director_replay", lambda i: ["--input", str(i.utterances), "--rules", str(SHIPPED_RULES)]),
]


def _listing(root: Path) -> list[str]:
    return sorted(str(path.relative_to(root)) for path in root.rglob("*"))


def _folder(tmp_path: Path, ending: str) -> Path:
    """``tmp_path`` itself, or a folder inside it named with the ending a command checks first (.xlsx)."""
    if not ending:
        return tmp_path
    folder = tmp_path / f"folder{ending}"
    folder.mkdir()
    return folder


@pytest.mark.parametrize(("command", "arguments", "option", "ending", "stored"), COMMANDS)
@pytest.mark.parametrize("mistake", ["a folder", "a missing folder"])
def test_a_path_that_cannot_be_written_is_refused_before_any_work(
    inputs, tmp_path, request, django_assert_num_queries, command, arguments, option, ending, stored, mistake
):
    if stored:
        request.getfixturevalue(stored)
    if mistake == "a folder":
        target = str(_folder(tmp_path, ending))
        expected = f"{option} {target}: is a folder; give a file name inside it, e.g. {target}/"
    else:
        target = str(tmp_path / "missing" / f"x{ending or '.json'}")
        expected = f"{option} {target}: the folder {tmp_path / 'missing'} does not exist; create it first"
    argv = [*arguments(inputs), option, target]
    before = _listing(tmp_path)
    with django_assert_num_queries(0), pytest.raises(CommandError) as raised:  # nothing read from the database
        call_command(command, *argv)
    assert expected in str(raised.value)
    assert _listing(tmp_path) == before


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        (lambda folder: None, "--reports {folder}: the folder does not exist; create it first"),
        (lambda folder: folder.write_text("x"), "--reports {folder}: is a file; give a folder"),
        (
            lambda folder: (folder / "outlier_report.json").mkdir(parents=True),
            "--reports {folder}/outlier_report.json: is a folder; give a file name inside it",
        ),
    ],
)
def test_merge_reports_go_into_an_existing_folder_only(inputs, tmp_path, make, expected):
    reports = tmp_path / "reports"
    make(reports)
    before = _listing(tmp_path)
    with pytest.raises(CommandError) as raised:
        call_command(
            "merge_annotations", "--input", str(inputs.ratings), "--output", str(tmp_path / "c.jsonl"),
            "--reports", str(reports),
        )  # fmt: skip
    assert expected.format(folder=reports) in str(raised.value)
    assert _listing(tmp_path) == before


@pytest.mark.parametrize("command", ["kappa_calculator", "merge_annotations"])
def test_standard_output_is_refused_where_the_command_cannot_write_there(inputs, tmp_path, command):
    before = _listing(tmp_path)
    with pytest.raises(CommandError, match="--output -: cannot write to standard output; give a file name"):
        call_command(command, "--input", str(inputs.ratings), "--output", "-")
    assert _listing(tmp_path) == before


def test_the_default_rejected_folder_is_the_one_folder_created(inputs, tmp_path):
    """Documented in --rejected's help: rejected/ beside the consensus, in the folder the user gave."""
    call_command("merge_annotations", "--input", str(inputs.ratings), "--output", str(tmp_path / "c.jsonl"))
    assert (tmp_path / "rejected" / "low_agreement.jsonl").is_file()


def test_a_default_rejected_folder_that_is_a_file_is_refused_before_any_work(inputs, tmp_path):
    (tmp_path / "rejected").write_text("x")
    before = _listing(tmp_path)
    with pytest.raises(CommandError, match=rf"--rejected {tmp_path}/rejected/low_agreement\.jsonl: .* is a file"):
        call_command("merge_annotations", "--input", str(inputs.ratings), "--output", str(tmp_path / "c.jsonl"))
    assert _listing(tmp_path) == before
