"""The utterance and verdict lines of director_check / director_replay: every problem located by line and field."""

import pytest

from director.io.utterances import parse_line, verdict_line


def parse(obj, **kwargs):
    return parse_line(obj, file="u.jsonl", line=7, **kwargs)


def test_a_good_line_with_history():
    record, problems = parse(
        {"id": "u1", "speaker": "やな", "text": "えー！", "history": [{"speaker": "あゆ", "text": "…"}]}
    )
    assert problems == [] and record.id == "u1" and record.history == ({"speaker": "あゆ", "text": "…"},)
    assert record.verdict is None


@pytest.mark.parametrize(
    ("obj", "where", "what"),
    [
        ([], "$", "expected an object"),
        ({"speaker": "やな", "text": "x"}, "$.id", "missing required field"),
        ({"id": "", "speaker": "やな", "text": "x"}, "$.id", "expected a non-empty string"),
        ({"id": "u", "speaker": 3, "text": "x"}, "$.speaker", "expected a non-empty string"),
        ({"id": "u", "speaker": "やな"}, "$.text", "missing required field"),
        ({"id": "u", "speaker": "やな", "text": None}, "$.text", "expected a string"),
        ({"id": "u", "speaker": "やな", "text": "x", "history": "prev"}, "$.history", "expected a list"),
        ({"id": "u", "speaker": "やな", "text": "x", "history": [{"speaker": "あゆ"}]}, "$.history[0]", "expected"),
        ({"id": "u", "speaker": "やな", "text": "x", "txet": "y"}, "$.txet", "unknown field; accepted: id, speaker"),
        ({"id": "u", "speaker": "やな", "text": "x", "status": "PASS"}, "$.status", "unknown field"),
    ],
)
def test_each_problem_names_line_and_field(obj, where, what):
    record, problems = parse(obj)
    assert record is None
    assert any(p.path == where and what in p.message and p.line == 7 and p.file == "u.jsonl" for p in problems), (
        problems
    )


def test_verdict_lines_are_accepted_where_asked_for_and_checked():
    line = {"id": "u", "speaker": "yana", "text": "x", "status": "WARN", "findings": [], "rulesVersion": "1"}
    record, problems = parse(line, verdicts=True)
    assert problems == [] and record.verdict == {"status": "WARN", "findings": [], "rulesVersion": "1"}
    _record, problems = parse({**line, "status": "MAYBE"}, verdicts=True)
    assert [p.path for p in problems] == ["$.status"]


def test_a_verdict_line_starts_with_the_utterance():
    record, _ = parse({"id": "u", "speaker": "やな", "text": "x"})
    assert list(verdict_line(record, {"status": "PASS", "speaker": "yana"})) == ["id", "speaker", "text", "status"]
