"""The seed A.3 readers: every bad input names file, line and field (pure, no database)."""

import pytest

from annotation.io.records import InputError, ProblemLog, load_annotations, load_dialogues
from tests.annotation.conftest import dialogue, rating


def _problems(loader, path) -> list[str]:
    log = ProblemLog()
    loader([path], log=log)
    return [str(p) for p in log.problems]


def test_reads_the_seed_input_example(jsonl):
    path = jsonl(
        [
            {
                "id": "dialogue_001",
                "user": "ユーザー発話テキスト",
                "response": "AI応答テキスト",
                "context": [
                    {"turn": -3, "speaker": "user", "text": "3ターン前のユーザー発話"},
                    {"turn": -2, "speaker": "ai", "text": "2ターン前のAI応答"},
                    {"turn": -1, "speaker": "user", "text": "1ターン前のユーザー発話"},
                ],
            }
        ]
    )
    [record] = load_dialogues([path])
    assert record.id == "dialogue_001" and record.user == "ユーザー発話テキスト"
    assert [t["turn"] for t in record.context] == [-3, -2, -1]


def test_context_is_optional_and_sorted_by_turn(jsonl):
    path = jsonl(
        [
            {"id": "a", "user": "u", "response": "r"},
            dialogue(
                1, context=[{"turn": 2, "speaker": "user", "text": "後"}, {"turn": -1, "speaker": "ai", "text": "前"}]
            ),
        ]
    )
    first, second = load_dialogues([path])
    assert first.context == []
    assert [t["turn"] for t in second.context] == [-1, 2]


def test_reads_the_seed_output_example(jsonl):
    path = jsonl([rating(1, scores=(3, 2, 1, 1), conf=(0.9, 0.8, 0.95, 0.95))])
    [record] = load_annotations([path])
    assert record.scores == {"social": 3, "avoidant": 2, "mechanical": 1, "self": 1}
    assert record.confidence["mechanical"] == 0.95
    assert record.timestamp.isoformat() == "2025-01-01T10:00:00+00:00"
    assert record.as_json()["timestamp"] == "2025-01-01T10:00:00Z"


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ('{"id": "x", "user": "u"', ":1: $: invalid JSON: Expecting ',' delimiter at column 24"),
        ('["not", "an", "object"]', ":1: $: expected a JSON object per line, got array"),
        ('{"id": "x", "user": NaN, "response": "r"}', ":1: $: invalid JSON: NaN is not a number in strict JSON"),
    ],
)
def test_invalid_json_is_named_with_line(jsonl, line, expected):
    path = jsonl([line])
    assert _problems(load_dialogues, path) == [f"{path}{expected}"]


@pytest.mark.parametrize(
    ("row", "expected"),
    [
        ({"user": "u", "response": "r"}, "$.id: missing required field"),
        ({"id": "x", "response": "r"}, "$.user: missing required field"),
        ({"id": 7, "user": "u", "response": "r"}, "$.id: must be a string, got number"),
        ({"id": "x", "user": "  ", "response": "r"}, "$.user: must not be empty"),
        ({"id": "x", "user": "u", "response": None}, "$.response: must be a string, got null"),
        ({"id": "x", "user": "u", "response": "r", "context": {}}, "$.context: must be an array of turns, got object"),
        (
            {"id": "x", "user": "u", "response": "r", "context": [{"turn": -4, "speaker": "user", "text": "t"}]},
            "$.context[0].turn: must be a turn offset from -3 to 3 except 0 (context_window 7), got -4",
        ),
        (
            {"id": "x", "user": "u", "response": "r", "context": [{"turn": -1, "speaker": "bot", "text": "t"}]},
            '$.context[0].speaker: must be "user" or "ai", got "bot"',
        ),
        (
            {"id": "x", "user": "u", "response": "r", "context": [{"turn": -1, "speaker": "ai"}]},
            "$.context[0].text: missing required field",
        ),
        (
            {
                "id": "x",
                "user": "u",
                "response": "r",
                "context": [{"turn": -1, "speaker": "ai", "text": "a"}, {"turn": -1, "speaker": "ai", "text": "b"}],
            },
            "$.context[1].turn: turn -1 appears twice",
        ),
        ({"id": "x" * 201, "user": "u", "response": "r"}, "$.id: must be at most 200 characters, got 201"),
    ],
)
def test_bad_dialogue_fields_are_named(jsonl, row, expected):
    path = jsonl([dialogue(1), row])
    assert _problems(load_dialogues, path) == [f"{path}:2: {expected}"]


@pytest.mark.parametrize(
    ("row", "expected"),
    [
        (rating(1, scores=(0, 1, 1, 1)), "$.annotations.social: must be from 1 to 5, got 0"),
        (rating(1, scores=(1, 6, 1, 1)), "$.annotations.avoidant: must be from 1 to 5, got 6"),
        (rating(1, scores=(1, 1, 2.5, 1)), "$.annotations.mechanical: must be an integer from 1 to 5, got number 2.5"),
        (rating(1, scores=(1, 1, 1, "3")), '$.annotations.self: must be an integer from 1 to 5, got string "3"'),
        (rating(1, scores=(True, 1, 1, 1)), "$.annotations.social: must be an integer from 1 to 5, got boolean true"),
        (rating(1, conf=(1.2, 1, 1, 1)), "$.confidence.social: must be from 0.0 to 1.0, got 1.2"),
        (rating(1, conf=(1, -0.1, 1, 1)), "$.confidence.avoidant: must be from 0.0 to 1.0, got -0.1"),
        (
            rating(1, conf=(1, 1, "high", 1)),
            '$.confidence.mechanical: must be a number from 0.0 to 1.0, got string "high"',
        ),
        (
            rating(1, annotations={"social": 1, "avoidant": 1, "mechanical": 1}),
            "$.annotations.self: missing required field",
        ),
        (
            rating(1, annotations={"social": 1, "avoidant": 1, "mechanical": 1, "self": 1, "flattery": 2}),
            "$.annotations: unknown axis flattery; the axes are social, avoidant, mechanical, self",
        ),
        (
            rating(1, annotations=[1, 1, 1, 1]),
            "$.annotations: must be an object with the axes social, avoidant, mechanical, self, got array",
        ),
        (
            rating(1, timestamp="2025-01-01 10:00"),
            '$.timestamp: has no time zone; must be an ISO 8601 time with a time zone, e.g. "2025-01-01T10:00:00Z"',
        ),
        (
            rating(1, timestamp="yesterday"),
            '$.timestamp: must be an ISO 8601 time with a time zone, e.g. "2025-01-01T10:00:00Z", got "yesterday"',
        ),
        (rating(1, annotator_id="ann 001"), "$.annotator_id: 'ann 001' may contain only letters, digits and @ . + - _"),
        (rating(1, seconds_spent=-3), "$.seconds_spent: must be from 0.0 to 86400.0, got -3"),
        ({k: v for k, v in rating(1).items() if k != "confidence"}, "$.confidence: missing required field"),
    ],
)
def test_bad_annotation_fields_are_named(jsonl, row, expected):
    path = jsonl([rating(2), row])
    assert _problems(load_annotations, path) == [f"{path}:2: {expected}"]


def test_every_problem_in_a_line_is_reported(jsonl):
    path = jsonl([rating(1, scores=(0, 9, 1, 1), conf=(2, 1, 1, 1))])
    problems = _problems(load_annotations, path)
    assert [p.split(": ")[1] for p in problems] == [
        "$.annotations.social",
        "$.annotations.avoidant",
        "$.confidence.social",
    ]


def test_non_utf8_line_is_named(jsonl, tmp_path):
    path = tmp_path / "sjis.jsonl"
    good = b'{"id": "a", "user": "u", "response": "r"}\n'
    bad = '{"id": "b", "user": "日本語", "response": "r"}\n'.encode("shift_jis")
    path.write_bytes(good + bad)
    [problem] = _problems(load_dialogues, path)
    assert problem.startswith(f"{path}:2: $: not UTF-8 (byte 0x")
    assert problem.endswith("save as UTF-8")


def test_utf8_bom_and_blank_lines_are_accepted(tmp_path):
    path = tmp_path / "bom.jsonl"
    path.write_bytes(b'\xef\xbb\xbf{"id": "a", "user": "u", "response": "r"}\n\n\r\n')
    assert [r.id for r in load_dialogues([path])] == ["a"]


def test_duplicate_dialogue_id_across_files_names_both_places(jsonl):
    first = jsonl([dialogue(1)])
    second = jsonl([dialogue(2), dialogue(1)])
    assert _problems(load_dialogues, first) == []
    log = ProblemLog()
    load_dialogues([first, second], log=log)
    assert [str(p) for p in log.problems] == [f"{second}:2: $.id: duplicate id 'dialogue_001' (first at {first}:1)"]


def test_duplicate_rating_in_one_file_is_a_problem(jsonl):
    path = jsonl([rating(1), rating(2), rating(1, scores=(5, 5, 5, 5))])
    assert _problems(load_annotations, path) == [
        f"{path}:3: $: duplicate rating of 'dialogue_001' by 'ann_001' (first at {path}:1)"
    ]


def test_problem_log_caps_the_number_of_problems(jsonl):
    path = jsonl(["{"] * 150)
    log = ProblemLog(limit=100)
    load_dialogues([path], log=log)
    assert len(log.problems) == 100 and log.truncated
    with pytest.raises(InputError, match=r"100 problem\(s\) \(more not shown\)"):
        log.raise_if_any()


def test_infinite_numbers_are_rejected(jsonl):
    path = jsonl(
        [
            '{"id": "dialogue_001", "annotator_id": "a", "timestamp": "2025-01-01T10:00:00Z", '
            '"annotations": {"social": 1, "avoidant": 1, "mechanical": 1, "self": 1}, '
            '"confidence": {"social": 1e999, "avoidant": 1, "mechanical": 1, "self": 1}}'
        ]
    )
    assert _problems(load_annotations, path) == [
        f"{path}:1: $.confidence.social: must be a number from 0.0 to 1.0, got number Infinity"
    ]
