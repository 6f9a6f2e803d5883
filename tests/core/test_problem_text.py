"""Import problems in the reader's language: the template and its parameters, translated where shown."""

import re

import polib
import pytest
from django.utils import translation

from annotation.io.records import parse_annotation, parse_dialogue
from core.jsonl import Problem, fill, gettext_noop, read_jsonl
from core.problem_text import problem_message, problem_row, problem_row_message
from tests.core.test_translations_complete import CATALOGUE

PLACEHOLDER = re.compile(r"%\((\w+)\)s")


def _problems_of(tmp_path, text: str) -> list[Problem]:
    path = tmp_path / "in.jsonl"
    path.write_bytes(text.encode("utf-8", "surrogatepass"))
    return [value for _number, value in read_jsonl(path) if isinstance(value, Problem)]


def test_a_problem_keeps_its_english_message_for_the_commands():
    problem = Problem.of("f.jsonl", 3, "$.x", gettext_noop("must be at most %(limit)s characters, got %(length)s"),
                         limit=200, length=201)  # fmt: skip
    assert problem.message == "must be at most 200 characters, got 201"
    assert str(problem) == "f.jsonl:3: $.x: must be at most 200 characters, got 201"


def test_a_text_parameter_is_a_template_filled_with_the_others_one_level_deep():
    template = "must be %(what_text)s, got %(value)s"
    assert (
        fill(template, {"what_text": "from -%(max)s to %(max)s", "max": 7, "value": 9}) == "must be from -7 to 7, got 9"
    )
    # a *_text value that names another *_text placeholder is not followed (no recursion)
    with pytest.raises(KeyError):
        fill(template, {"what_text": "%(other_text)s", "other_text": "x", "value": 1})


@pytest.mark.parametrize(
    ("line", "english", "japanese"),
    [
        ('{"id": "d1", "user": 5, "response": "r"}', "must be a string, got number",
         "文字列でなければなりません（数値 が指定されました）"),
        ('{"id": "d1", "user": "u"}', "missing required field", "必須項目がありません"),
        ('{"id": "d1", "user": "u", "response": "r", '
         '"context": [{"turn": 0, "speaker": "user", "text": "x"}]}',
         "must be a turn offset from -3 to 3 except 0 (context_window 7), got 0",
         "-3 から 3 まで（0 を除く）のターン位置（context_window 7）でなければなりません（0 が指定されました）"),
        ('{"id": "d1", "user": "u", "response": "r", "context": [{"turn": "a", "speaker": "bot", "text": "x"}]}',
         'must be an integer a turn offset from -3 to 3 except 0 (context_window 7), got string "a"',
         '-3 から 3 まで（0 を除く）のターン位置（context_window 7）の整数でなければなりません'
         '（文字列 "a" が指定されました）'),
    ],
)  # fmt: skip
def test_dialogue_problems_read_in_japanese_and_english(line, english, japanese):
    import json

    _record, problems = parse_dialogue(json.loads(line), file="f.jsonl", line=1)
    assert problems[0].message == english
    with translation.override("ja"):
        assert problem_message(problems[0]) == japanese
    with translation.override("en"):
        assert problem_message(problems[0]) == english


def test_rating_problems_translate_their_accepted_forms():
    obj = {"id": "d1", "annotator_id": "a", "timestamp": "2025-01-01T10:00:00",
           "annotations": {"social": 6, "avoidant": 1, "mechanical": 1, "self": 1},
           "confidence": {"social": 1, "avoidant": 1, "mechanical": 1, "self": 1}}  # fmt: skip
    _record, problems = parse_annotation(obj, file="f.jsonl", line=1)
    by_path = {p.path: p for p in problems}
    with translation.override("ja"):
        assert problem_message(by_path["$.annotations.social"]) == "1〜5でなければなりません（6 が指定されました）"
        assert "タイムゾーンがありません" in problem_message(by_path["$.timestamp"])
        assert "タイムゾーン付きの ISO 8601 時刻" in problem_message(by_path["$.timestamp"])


def test_reader_problems_translate_and_the_json_module_messages_too(tmp_path):
    problems = _problems_of(tmp_path, '{"a": 1,}\n[1]\n{"a": 1, "a": 2}\n{"a": "\\u0000"}\n{"a": NaN}\n')
    with translation.override("ja"):
        texts = [problem_message(p) for p in problems]
    assert texts == [
        "JSON として不正です: 9 列目でダブルクォートで囲んだキー名がありません",
        "1 行に 1 つの JSON オブジェクトが必要です（配列 が指定されました）",
        "キー 'a' が 1 つのオブジェクトに 2 回あります。各キーは 1 回だけにしてください",
        "NUL 文字（\\u0000）は保存できません。削除してください",
        "JSON として不正です: NaN は厳密な JSON の数値ではありません",
    ]
    first = problems[0].message
    assert first == "invalid JSON: Expecting property name enclosed in double quotes at column 9"


def test_a_row_carries_the_template_so_a_stored_job_result_reads_in_the_viewer_s_language():
    problem = Problem.of("f.jsonl", 2, "$", gettext_noop("must not be empty"))
    row = problem_row(problem, names={"f.jsonl": "mine.jsonl"})
    assert row["file"] == "mine.jsonl" and row["message"] == "must not be empty"
    with translation.override("ja"):
        assert problem_row_message(row) == "空にはできません"
    with translation.override("en"):
        assert problem_row_message(row) == "must not be empty"
    # a row stored before rows had templates shows its message
    assert problem_row_message({"message": "old text"}) == "old text"


def test_every_translated_template_keeps_its_placeholders():
    catalogue = polib.pofile(str(CATALOGUE))
    wrong = [
        entry.msgid
        for entry in catalogue
        if entry.msgstr and set(PLACEHOLDER.findall(entry.msgid)) != set(PLACEHOLDER.findall(entry.msgstr))
    ]
    assert wrong == []


def test_a_row_names_files_as_their_user_knows_them_in_every_part():
    kept = "/srv/var/uploads/dialogues/abc/a.jsonl"
    problem = Problem.of(kept, 5, "$.id", gettext_noop("duplicate id %(id)s (first at %(first)s)"), id="'x'",
                         first=f"{kept}:1")  # fmt: skip
    row = problem_row(problem, names={kept: "冬.jsonl"})
    assert row["file"] == "冬.jsonl" and row["message"] == "duplicate id 'x' (first at 冬.jsonl:1)"
    with translation.override("ja"):
        assert problem_row_message(row) == "ID 'x' が重複しています（最初は 冬.jsonl:1）"
