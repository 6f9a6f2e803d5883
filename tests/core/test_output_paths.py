"""core.output_paths: a path a command cannot write is refused with the option, the path and what is accepted."""

import os
import socket
from pathlib import Path

import pytest

from core import output_paths
from core.output_paths import OutputPathError, check_output_folder, check_output_path


def _listing(root: Path) -> list[str]:
    return sorted(str(path.relative_to(root)) for path in root.rglob("*"))


@pytest.fixture
def plain_file(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("x")
    return path


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        (".", r"--output {root}: is a folder; give a file name inside it, e.g. {root}/results\.json"),
        ("sub/", r"--output {root}/sub/: is a folder; give a file name inside it"),
        ("missing/x.json", r"--output {root}/missing/x\.json: the folder {root}/missing does not exist; create it"),
        ("a/b/x.json", r"--output {root}/a/b/x\.json: the folder {root}/a/b does not exist; create it first"),
        ("notes.txt/x.json", r"--output {root}/notes\.txt/x\.json: {root}/notes\.txt is a file, not a folder"),
        ("notes.txt/a/x.json", r"--output {root}/notes\.txt/a/x\.json: {root}/notes\.txt is a file, not a folder"),
        ("", r"--output '': the path is empty; give a file name"),
        ("-", r"--output -: cannot write to standard output; give a file name, e.g. results\.json"),
    ],
)
def test_a_path_that_cannot_be_written_is_refused_naming_option_path_and_remedy(tmp_path, plain_file, name, expected):
    value = name if name in ("", "-") else (f"{tmp_path}/{name}" if name != "." else str(tmp_path))
    before = _listing(tmp_path)
    with pytest.raises(OutputPathError, match=expected.format(root=tmp_path)):
        check_output_path(value)
    assert _listing(tmp_path) == before  # nothing created, not even the missing folders


def test_a_named_pipe_is_not_a_regular_file(tmp_path):
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    with pytest.raises(OutputPathError, match=r"exists and is not a regular file .*; give a file name"):
        check_output_path(str(pipe))


def test_a_socket_is_not_a_regular_file(tmp_path):
    path = tmp_path / "s"
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(path))
        with pytest.raises(OutputPathError, match="is not a regular file"):
            check_output_path(str(path))


def test_the_option_and_the_example_are_those_of_the_command(tmp_path):
    with pytest.raises(OutputPathError) as raised:
        check_output_path(str(tmp_path), option="--report", example="report.md")
    assert (
        str(raised.value) == f"--report {tmp_path}: is a folder; give a file name inside it, e.g. {tmp_path}/report.md"
    )
    assert raised.value.option == "--report" and raised.value.path == str(tmp_path)
    assert isinstance(raised.value, ValueError)


def test_writable_files_are_accepted_new_or_existing(tmp_path, plain_file, monkeypatch):
    assert check_output_path(str(tmp_path / "new.json")) == tmp_path / "new.json"
    assert check_output_path(str(plain_file)) == plain_file
    monkeypatch.chdir(tmp_path)
    assert check_output_path("here.json") == Path("here.json")


def test_dash_is_standard_output_only_where_the_command_supports_it():
    assert check_output_path("-", standard_output=True) is None
    with pytest.raises(OutputPathError, match="cannot write to standard output"):
        check_output_path("-")


# Permissions follow os.access: as root they pass (root may write there), so the real case runs as another
# user only, and the message is checked everywhere with os.access answering as it would for them.


def _denied_for(*denied: Path):
    real = os.access

    def access(path, mode, **kwargs):
        return False if Path(path) in denied and mode & os.W_OK else real(path, mode, **kwargs)

    return access


def test_a_folder_without_write_permission_is_refused(tmp_path, monkeypatch):
    locked = tmp_path / "locked"
    locked.mkdir()
    monkeypatch.setattr(output_paths.os, "access", _denied_for(locked))
    with pytest.raises(OutputPathError, match=rf"cannot write in the folder {locked} \(permission denied\)"):
        check_output_path(str(locked / "x.json"))


def test_a_read_only_file_is_refused(tmp_path, plain_file, monkeypatch):
    monkeypatch.setattr(output_paths.os, "access", _denied_for(plain_file))
    with pytest.raises(OutputPathError, match=rf"--output {plain_file}: the file is read-only"):
        check_output_path(str(plain_file))


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write in a read-only folder")
@pytest.mark.parametrize("mode", [0o500, 0o555])
def test_a_read_only_folder_is_refused_for_real(tmp_path, mode):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(mode)
    try:
        with pytest.raises(OutputPathError, match="cannot write in the folder"):
            check_output_path(str(locked / "x.json"))
    finally:
        locked.chmod(0o700)


@pytest.mark.skipif(os.geteuid() == 0, reason="root may search any folder")
def test_a_folder_that_cannot_be_reached_is_refused(tmp_path):
    closed = tmp_path / "closed"
    (closed / "inner").mkdir(parents=True)
    closed.chmod(0o000)
    try:
        with pytest.raises(OutputPathError, match=r"cannot be reached: Permission denied"):
            check_output_path(str(closed / "inner" / "x.json"))
    finally:
        closed.chmod(0o700)


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        (lambda root: None, r"--reports {root}/reports: the folder does not exist; create it first"),
        (lambda root: (root / "reports").write_text("x"), r"--reports {root}/reports: is a file; give a folder"),
        (
            lambda root: (root / "reports" / "kappa_report.json").mkdir(parents=True),
            r"--reports {root}/reports/kappa_report\.json: is a folder; give a file name inside it",
        ),
    ],
)
def test_an_output_folder_must_exist_and_hold_writable_files(tmp_path, make, expected):
    make(tmp_path)
    before = _listing(tmp_path)
    with pytest.raises(OutputPathError, match=expected.format(root=tmp_path)):
        check_output_folder(str(tmp_path / "reports"), option="--reports", files=("kappa_report.json",))
    assert _listing(tmp_path) == before


def test_an_existing_output_folder_is_accepted(tmp_path):
    assert check_output_folder(str(tmp_path), option="--reports", files=("a.json", "b.json")) == tmp_path
