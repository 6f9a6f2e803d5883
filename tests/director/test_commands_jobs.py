"""director_check and director_replay with --jobs N: N processes, the output of --jobs 1 byte for byte."""

import concurrent.futures
import re

import pytest
from django.core.management import CommandError, call_command

import core.parallel
from director.management.commands._jobs import RuleSetChanged, load_same, source
from director.rules import load_rule_set
from tests.director.test_commands import UTTERANCES, read, write


@pytest.fixture
def pools(monkeypatch):
    """Chunks of 3 lines (not 250), and the size of every process pool the commands start."""
    monkeypatch.setattr(core.parallel, "MIN_CHUNK", 3)
    sizes = []

    class Recorded(concurrent.futures.ProcessPoolExecutor):
        def __init__(self, max_workers, *args, **kwargs):
            sizes.append(max_workers)
            super().__init__(max_workers, *args, **kwargs)

    monkeypatch.setattr(core.parallel, "ProcessPoolExecutor", Recorded)
    return sizes


def corpus(count=40):
    """``count`` utterances: the shared ones again and again, each with an id of its own."""
    return [{**UTTERANCES[i % len(UTTERANCES)], "id": f"u{i:03}"} for i in range(count)]


def test_check_with_two_processes_writes_what_one_writes(tmp_path, pools):
    source_file = write(tmp_path / "u.jsonl", corpus())
    one, two = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    call_command("director_check", "--input", str(source_file), "--output", str(one))
    assert pools == []  # --jobs 1 starts no process
    call_command("director_check", "--input", str(source_file), "--output", str(two), "--jobs", "2")
    assert pools == [2]
    assert two.read_bytes() == one.read_bytes()
    assert [v["id"] for v in read(two)] == [f"u{i:03}" for i in range(40)]


def test_replay_with_two_processes_writes_what_one_writes(tmp_path, pools):
    default = _default()
    stricter = tmp_path / "stricter.yaml"
    text = default.read_text(encoding="utf-8").replace("warn_lines: 6", "warn_lines: 3")
    stricter.write_text(re.sub(r'^version: ".*"$', 'version: "9-test"', text, count=1, flags=re.M), encoding="utf-8")
    source_file = write(tmp_path / "u.jsonl", corpus())
    verdicts = tmp_path / "v.jsonl"
    call_command("director_check", "--input", str(source_file), "--output", str(verdicts))
    for input_file, baseline in ((source_file, ["--baseline", str(default)]), (verdicts, [])):
        reports = []
        for jobs in ("1", "2"):
            report = tmp_path / f"replay-{jobs}.md"
            call_command("director_replay", "--input", str(input_file), "--rules", str(stricter), *baseline,
                         "--output", str(report), "--jobs", jobs)  # fmt: skip
            reports.append(report.read_bytes())
        assert reports[0] == reports[1]
        assert b"- Utterances: 40; changed: 16" in reports[1]  # u3 and u5 of every five are format WARNs now
    assert pools == [2, 2]


@pytest.mark.parametrize("jobs", ["0", "-1", "two", "1.5"])
def test_jobs_must_be_a_positive_number(tmp_path, jobs):
    source_file = write(tmp_path / "u.jsonl", UTTERANCES)
    for command in (["director_check", "--output", "-"], ["director_replay", "--rules", str(_default())]):
        expected = f"argument --jobs: expected a number of processes, 1 or more, got '{jobs}'"
        with pytest.raises(CommandError, match=re.escape(expected)):
            call_command(*command, "--input", str(source_file), "--jobs", jobs)


def test_a_bad_line_still_writes_nothing_and_is_located(tmp_path, pools):
    rows = corpus(12)
    rows[9] = {**rows[9], "speaker": "ゆな"}
    source_file, out = write(tmp_path / "u.jsonl", rows), tmp_path / "v.jsonl"
    located = r"u\.jsonl:10: \$\.speaker: unknown speaker 'ゆな'"
    with pytest.raises(CommandError, match=r"(?s)nothing was written: .*" + located):
        call_command("director_check", "--input", str(source_file), "--output", str(out), "--jobs", "2")
    with pytest.raises(CommandError, match=located + r".*nothing was written"):
        call_command("director_replay", "--input", str(source_file), "--rules", str(_default()),
                     "--output", str(tmp_path / "r.md"), "--jobs", "2")  # fmt: skip
    assert pools == []  # found before any process was started
    assert not out.exists() and not (tmp_path / "r.md").exists()


def test_a_worker_refuses_a_rule_set_file_that_changed(tmp_path):
    rules = tmp_path / "rules.yaml"
    rules.write_text(_default().read_text(encoding="utf-8"), encoding="utf-8")
    path, content_hash = source(load_rule_set(rules))
    assert load_same(path, content_hash).content_hash == content_hash
    rules.write_text(rules.read_text(encoding="utf-8").replace("warn_lines: 6", "warn_lines: 5"), encoding="utf-8")
    with pytest.raises(RuleSetChanged, match=r"rules\.yaml changed while the command ran"):
        load_same(path, content_hash)


def _default():
    from pathlib import Path

    import director.rules

    return Path(director.rules.__file__).parent / "rulesets" / "default.yaml"
