"""director_check and director_replay: verdict files in input order, located refusals, the replay report."""

import json

import pytest
from django.core.management import CommandError, call_command

from director.rules import load_rule_set

UTTERANCES = [
    {"id": "u1", "speaker": "やな", "text": "えー、ほんと？すっごいね！"},
    {"id": "u2", "speaker": "あゆ", "text": "あなたの考えは正しいです。すごいですね。"},
    {
        "id": "u3",
        "speaker": "ayu",
        "text": "つまり、目安は一日二時間です。\n休憩も推奨されています。\n水分も取りましょう。\n以上です。",
    },
    {"id": "u4", "speaker": "yana", "text": "まだ未成年じゃない！！"},
    {"id": "u5", "speaker": "あゆ", "text": "<script>alert(1)</script>です。\nですね。\n以上です。"},
]


def write(path, rows):
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r, ensure_ascii=False)) + "\n" for r in rows))
    return path


def read(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_verdicts_come_in_input_order_with_their_utterance_and_rules(tmp_path):
    out = tmp_path / "verdicts.jsonl"
    call_command("director_check", "--input", str(write(tmp_path / "u.jsonl", UTTERANCES)), "--output", str(out))
    verdicts = read(out)
    assert [v["id"] for v in verdicts] == ["u1", "u2", "u3", "u4", "u5"]
    assert [v["speaker"] for v in verdicts] == ["yana", "ayu", "ayu", "yana", "ayu"]
    rules = load_rule_set()
    assert {(v["rulesVersion"], v["rulesHash"]) for v in verdicts} == {(rules.version, rules.content_hash)}
    by_id = {v["id"]: v for v in verdicts}
    assert by_id["u4"]["status"] == "RETRY" and by_id["u4"]["findings"][0]["rule"] == "contradiction"
    assert by_id["u2"]["text"] == UTTERANCES[1]["text"]
    for verdict in verdicts:
        for finding in verdict["findings"]:
            for span in finding["evidence"]:
                assert verdict["text"][span["start"] : span["end"]] == span["text"]


def test_english_messages_on_request(tmp_path):
    out = tmp_path / "v.jsonl"
    source = write(tmp_path / "u.jsonl", UTTERANCES[3:4])
    call_command("director_check", "--input", str(source), "--output", str(out), "--language", "en")
    finding = read(out)[0]["findings"][0]
    assert finding["message"].isascii() or "double negation" in finding["message"].lower()


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("{not json", "u.jsonl:2"),
        ('{"id": "u9", "speaker": "やな"}', "u.jsonl:2: $.text: missing required field"),
        ('{"id": "u1", "speaker": "やな", "text": "x"}', "u.jsonl:2: $.id: duplicate id 'u1'"),
        (
            '{"id": "u9", "speaker": "ゆな", "text": "x"}',
            "u.jsonl:2: $.speaker: unknown speaker 'ゆな'; known: ayu (あゆ), yana (やな)",
        ),
    ],
)
def test_a_bad_line_writes_nothing_and_names_line_and_field(tmp_path, line, expected):
    out = tmp_path / "v.jsonl"
    source = write(tmp_path / "u.jsonl", [UTTERANCES[0], line])
    with pytest.raises(CommandError, match="nothing was written") as raised:
        call_command("director_check", "--input", str(source), "--output", str(out))
    assert expected in str(raised.value) and not out.exists()
    assert not list(tmp_path.glob(".v.jsonl.*"))


def test_a_bad_rule_set_is_named(tmp_path):
    rules = tmp_path / "bad.yaml"
    rules.write_text('version: "2"\nthresholds: {format: {warn_lines: six}}\n', encoding="utf-8")
    with pytest.raises(CommandError, match=r"--rules: .*bad\.yaml"):
        call_command(
            "director_check",
            "--input",
            str(write(tmp_path / "u.jsonl", UTTERANCES)),
            "--output",
            "-",
            "--rules",
            str(rules),
        )


@pytest.fixture
def stricter_rules(tmp_path):
    """The shipped rule set with the format WARN at 3 lines instead of 6, as version 1.1-test."""
    import re
    from pathlib import Path

    import director.rules

    text = (Path(director.rules.__file__).parent / "rulesets" / "default.yaml").read_text(encoding="utf-8")
    text = re.sub(r'^version: ".*"$', 'version: "1.1-test"', text, count=1, flags=re.MULTILINE)
    text = text.replace("warn_lines: 6", "warn_lines: 3")
    path = tmp_path / "stricter.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_replay_shows_what_a_rule_change_changes(tmp_path, stricter_rules):
    source = write(tmp_path / "u.jsonl", UTTERANCES)
    report = tmp_path / "replay.md"
    call_command("director_replay", "--input", str(source), "--rules", str(stricter_rules), "--output", str(report))
    text = report.read_text(encoding="utf-8")
    assert "rules version 1.1\\-test" in text or "rules version 1.1-test" in text
    assert "- Utterances: 5; changed: 2" in text
    assert "| format | 0 | 0 | 2 | 0 |" in text  # u3 (4 lines) and u5 (3 lines) are now format WARNs
    assert "`u3` (ayu): **WARN → WARN**" in text and "now: format WARN" in text  # was WARN for scattering
    assert "<script>" not in text and "\\<script\\>" in text


def test_replay_from_stored_verdicts_compares_with_them(tmp_path, stricter_rules):
    verdicts = tmp_path / "v.jsonl"
    call_command("director_check", "--input", str(write(tmp_path / "u.jsonl", UTTERANCES)), "--output", str(verdicts))
    report = tmp_path / "replay.md"
    call_command("director_replay", "--input", str(verdicts), "--rules", str(stricter_rules), "--output", str(report))
    text = report.read_text(encoding="utf-8")
    assert f"the verdicts stored in {verdicts}".replace("_", "\\_") in text or "the verdicts stored in" in text
    assert "changed: 2" in text
    same = tmp_path / "same.md"
    call_command("director_replay", "--input", str(verdicts), "--rules", str(_shipped()), "--output", str(same))
    assert "changed: 0" in same.read_text(encoding="utf-8")


def _shipped():
    from pathlib import Path

    import director.rules

    return Path(director.rules.__file__).parent / "rulesets" / "default.yaml"


def test_replay_refuses_a_mix_of_verdicts_and_bare_utterances(tmp_path, stricter_rules):
    verdicts = tmp_path / "v.jsonl"
    call_command(
        "director_check", "--input", str(write(tmp_path / "u.jsonl", UTTERANCES[:2])), "--output", str(verdicts)
    )
    mixed = write(tmp_path / "mixed.jsonl", [*read(verdicts), {"id": "u9", "speaker": "やな", "text": "えー"}])
    with pytest.raises(CommandError, match=r"mixed\.jsonl:3: this line has no verdict"):
        call_command("director_replay", "--input", str(mixed), "--rules", str(stricter_rules))


def test_replay_lists_the_settings_that_differ(tmp_path):
    import io

    import yaml

    from director.rules.ruleset import CHARACTERS_DIR
    from tests.director.rules.helpers import write_rule_set

    def change(data):
        data["session"]["max_interventions"] = 3
        ayu = yaml.safe_load((CHARACTERS_DIR / "ayu.yaml").read_text(encoding="utf-8"))
        data["characters"] = {"ayu": {**ayu, "persona": "あゆ: 別人。"}}

    candidate = write_rule_set(tmp_path, change, name="candidate.yaml")
    source = write(tmp_path / "u.jsonl", UTTERANCES)
    report, err = tmp_path / "replay.md", io.StringIO()
    call_command("director_replay", "--input", str(source), "--rules", str(candidate), "--output", str(report),
                 stderr=err)  # fmt: skip
    expected = "## Changed settings\n\n- characters.ayu.persona: changed\n- session.max\\_interventions: 5 → 3\n\n"
    assert expected in report.read_text(encoding="utf-8")
    assert "2 settings differ" in err.getvalue()
    same = tmp_path / "same.md"
    call_command("director_replay", "--input", str(source), "--rules", str(candidate), "--baseline", str(candidate),
                 "--output", str(same))  # fmt: skip
    assert "None: the two rule sets have the same settings." in same.read_text(encoding="utf-8")
    verdicts, stored = tmp_path / "v.jsonl", tmp_path / "stored.md"
    call_command("director_check", "--input", str(source), "--output", str(verdicts))
    call_command("director_replay", "--input", str(verdicts), "--rules", str(candidate), "--output", str(stored))
    assert "Not compared: the baseline is stored verdicts, not a rule set." in stored.read_text(encoding="utf-8")
