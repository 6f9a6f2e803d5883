"""Loading rule sets and characters: validation naming file and key, version and content hash."""

import re
import shutil

import pytest
import yaml

from director.rules import CHARACTERS, RuleSetError, check_utterance, load_rule_set
from director.rules.ruleset import CHARACTERS_DIR, DEFAULT_RULE_SET
from director.rules.thresholds import ReviewThresholds, SessionThresholds
from tests.director.rules.helpers import default_data, finding, write_rule_set

EIGHT_LINES = "\n".join(["そっか、いいよね！"] * 8)


def test_the_default_rule_set_loads(rules):
    assert rules.version == "1.3"
    assert re.fullmatch(r"[0-9a-f]{64}", rules.content_hash)
    assert dict(rules.characters) == {"ayu": ("あゆ",), "yana": ("やな",)}
    assert rules.character("やな").applies("praise") is True
    assert rules.character("あゆ").applies("praise") is True
    assert dict(CHARACTERS) == dict(rules.characters)


def test_every_verdict_records_version_and_hash(check, rules):
    result = check("そっか", "yana").to_dict()
    assert (result["rulesVersion"], result["rulesHash"]) == ("1.3", rules.content_hash)


def test_the_review_and_session_thresholds(rules):
    assert rules.review == ReviewThresholds(retry_below=3.5, pass_from=4.0)
    assert rules.session == SessionThresholds(topic_loop_turns=3, hook_depth=2)
    assert rules.config["review"] == {"retry_below": 3.5, "pass_from": 4.0}
    assert rules.config["session"] == {
        "topic_loop_turns": 3,
        "hook_depth": 2,
        "max_interventions": 5,
        "history_turns": 12,
    }


def test_a_whole_review_threshold_hashes_like_its_decimal(tmp_path, rules):
    same = load_rule_set(write_rule_set(tmp_path, lambda data: data["review"].update(pass_from=4)))
    assert same.review.pass_from == 4.0 and isinstance(same.review.pass_from, float)
    assert same.content_hash == rules.content_hash


def test_changed_review_and_session_thresholds_change_the_hash(tmp_path, rules):
    def change(data):
        data["review"].update(retry_below=3, pass_from=4.5)
        data["session"].update(topic_loop_turns=4, hook_depth=1)

    changed = load_rule_set(write_rule_set(tmp_path, change))
    assert changed.review == ReviewThresholds(3.0, 4.5)
    assert changed.session == SessionThresholds(4, 1)
    assert changed.content_hash != rules.content_hash


def test_the_same_content_hashes_the_same_whatever_its_layout(tmp_path, rules):
    data = default_data()
    reordered = dict(reversed(list(data.items())))
    path = tmp_path / "other-name.yaml"
    path.write_text("# no comments left\n" + yaml.safe_dump(reordered, allow_unicode=True, width=40), encoding="utf-8")
    assert load_rule_set(path).content_hash == rules.content_hash


def test_a_changed_threshold_changes_the_hash_and_the_verdicts(tmp_path, rules):
    path = write_rule_set(tmp_path, lambda data: data["thresholds"]["format"].update(retry_lines=9))
    changed = load_rule_set(path)
    assert changed.content_hash != rules.content_hash
    assert finding(check_utterance(EIGHT_LINES, "yana", rules), "format")["status"] == "RETRY"
    verdict = check_utterance(EIGHT_LINES, "yana", changed)
    assert finding(verdict, "format")["status"] == "WARN"
    assert verdict.rules_hash == changed.content_hash


def test_a_changed_word_list_changes_the_verdicts(tmp_path):
    path = write_rule_set(tmp_path, lambda data: data["setting"]["phrases"].append("寮に住んで"))
    verdict = check_utterance("姉は寮に住んでいます。", "ayu", load_rule_set(path))
    assert finding(verdict, "setting")["evidence"][0]["text"] == "寮に住んで"


def test_a_changed_character_file_changes_the_hash(tmp_path, rules):
    folder = tmp_path / "characters"
    shutil.copytree(CHARACTERS_DIR, folder)
    assert load_rule_set(characters_dir=folder).content_hash == rules.content_hash
    text = (folder / "yana.yaml").read_text(encoding="utf-8").replace("[わ！, へ？", "[だわ！, へ？")
    (folder / "yana.yaml").write_text(text, encoding="utf-8")
    assert load_rule_set(characters_dir=folder).content_hash != rules.content_hash


def test_a_rule_set_can_add_a_character(tmp_path):
    def add_kana(data):
        data["characters"] = {
            "kana": {
                "name": "かな",
                "aliases": ["カナ"],
                "markers": {"ending": ["ですわ"], "vocabulary": []},
                "style": {"kind": "polite_endings", "endings": ["ですわ"], "min_count": 1},
            }
        }

    rules = load_rule_set(write_rule_set(tmp_path, add_kana))
    assert dict(rules.characters) == {"ayu": ("あゆ",), "yana": ("やな",), "kana": ("かな", "カナ")}
    assert check_utterance("素敵ですわ", "カナ", rules).tone.score == 2


def _set(*path_and_value):
    *path, value = path_and_value

    def change(data):
        target = data
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return change


def _delete(*path):
    def change(data):
        target = data
        for key in path[:-1]:
            target = target[key]
        del target[path[-1]]

    return change


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            _set("thresholds", "format", "retry_lines", "eight"),
            'default.yaml: thresholds.format.retry_lines: expected an integer ≥ 1, got "eight"',
        ),
        (
            _set("thresholds", "format", "retry_line", 8),
            "default.yaml: thresholds.format.retry_line: unknown key; accepted: warn_lines, retry_lines",
        ),
        (_set("colour", "red"), "default.yaml: colour: unknown key; accepted: version, thresholds,"),
        (
            _delete("praise", "targets"),
            "default.yaml: praise.targets: missing (required here: implicit_listener, evaluation_words, targets, ",
        ),
        (_delete("version"), "default.yaml: version: missing"),
        (_delete("session"), "default.yaml: session: missing"),
        (
            _delete("review", "pass_from"),
            "default.yaml: review.pass_from: missing (required here: retry_below, pass_from)",
        ),
        (
            _set("review", "average", 3.5),
            "default.yaml: review.average: unknown key; accepted: retry_below, pass_from",
        ),
        (_set("review", 3.5), "default.yaml: review: expected a mapping with the keys retry_below, pass_from, got 3.5"),
        (
            _set("review", "retry_below", "3.5"),
            'default.yaml: review.retry_below: expected a number from 1 to 5, got "3.5"',
        ),
        (_set("review", "pass_from", 5.5), "default.yaml: review.pass_from: expected a number from 1 to 5, got 5.5"),
        (_set("review", "retry_below", 0), "default.yaml: review.retry_below: expected a number from 1 to 5, got 0"),
        (_set("review", "pass_from", True), "default.yaml: review.pass_from: expected a number from 1 to 5, got true"),
        (
            _set("review", "pass_from", float("nan")),
            "default.yaml: review.pass_from: expected a number from 1 to 5, got nan",
        ),
        (
            _set("review", "retry_below", 4.0),
            "default.yaml: review.retry_below: expected a number < pass_from (4.0), got 4.0",
        ),
        (
            _set("session", "loops", 3),
            "default.yaml: session.loops: unknown key; accepted: topic_loop_turns, hook_depth",
        ),
        (_set("session", "hook_depth", 0), "default.yaml: session.hook_depth: expected an integer ≥ 1, got 0"),
        (
            _set("session", "topic_loop_turns", 2.5),
            "default.yaml: session.topic_loop_turns: expected an integer ≥ 1, got 2.5",
        ),
        (
            _set("session", "topic_loop_turns", "3"),
            'default.yaml: session.topic_loop_turns: expected an integer ≥ 1, got "3"',
        ),
        (
            _set("version", 1.0),
            'default.yaml: version: expected a non-empty string (quote it: version: "1.0"), got 1.0',
        ),
        (
            _set("thresholds", "tone", "pass_score", True),
            "default.yaml: thresholds.tone.pass_score: expected an integer",
        ),
        (
            _set("thresholds", "tone", "pass_score", 4),
            "default.yaml: thresholds.tone.pass_score: expected an integer from 0 to 3, got 4",
        ),
        (
            _set("thresholds", "format", "warn_lines", 9),
            "default.yaml: thresholds.format.warn_lines: expected an integer ≤ retry_lines (8), got 9",
        ),
        (
            _set("thresholds", "topic_loop", "repeat_count", 1),
            "default.yaml: thresholds.topic_loop.repeat_count: expected an integer ≥ 2, got 1",
        ),
        (
            _set("setting", "phrases", ["別居", 3]),
            "default.yaml: setting.phrases[1]: expected a non-empty string, got 3",
        ),
        (
            _set("setting", "phrases", ["別居", ""]),
            'default.yaml: setting.phrases[1]: expected a non-empty string, got ""',
        ),
        (_set("setting", "phrases", ["別居", "別居"]), 'default.yaml: setting.phrases[1]: "別居" is listed twice'),
        (_set("praise", "targets", "あなた"), 'default.yaml: praise.targets: expected a list of strings, got "あなた"'),
        (
            _set("messages", "format", "retry", "ja", "{rows}行あります"),
            "default.yaml: messages.format.retry.ja: unknown placeholder {rows}; accepted: {lines}, {warn_lines}",
        ),
        (_delete("messages", "tone", "warn", "en"), "default.yaml: messages.tone.warn.en: missing"),
        (
            _set("messages", "setting", "warn", {"ja": "x", "en": "x"}),
            "default.yaml: messages.setting.warn: unknown key",
        ),
        (
            _set("characters", {"yana": {"name": "やな", "markers": {"ending": [], "vocabulary": []}, "style": {}}}),
            "default.yaml: characters.yana.style.kind: expected short_exclaiming or polite_endings, got null",
        ),
        (
            _set(
                "characters",
                {
                    "yana": {
                        "name": "やな",
                        "markers": {"ending": [], "vocabulary": []},
                        "style": {"kind": "short_exclaiming", "max_sentences": 0, "marks": ["！"]},
                    }
                },
            ),
            "default.yaml: characters.yana.style.max_sentences: expected an integer ≥ 1, got 0",
        ),
        (
            _set(
                "characters",
                {
                    "kana": {
                        "name": "あゆ",
                        "markers": {"ending": [], "vocabulary": []},
                        "style": {"kind": "short_exclaiming", "max_sentences": 2, "marks": ["！"]},
                    }
                },
            ),
            "default.yaml: characters: the name 'あゆ' belongs to both ayu and kana",
        ),
        (_set("characters", {"Kana": {}}), "default.yaml: characters.Kana: expected an id of lowercase ASCII letters"),
    ],
)
def test_each_error_names_the_file_and_the_key(tmp_path, change, message):
    with pytest.raises(RuleSetError) as raised:
        load_rule_set(write_rule_set(tmp_path, change))
    assert str(raised.value).startswith(message)


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("version: '1.0'\nthresholds: [\n", "default.yaml:3:1: invalid YAML"),
        ("version: '1.0'\nversion: '2.0'\n", "default.yaml:2:1: invalid YAML: duplicate key 'version' (line 2)"),
        ("- a list\n", "default.yaml: expected a mapping with the keys version, thresholds"),
        ("", "default.yaml: expected a mapping with the keys version, thresholds"),
    ],
)
def test_unreadable_files_are_named_with_line_and_column(tmp_path, source, message):
    path = tmp_path / "default.yaml"
    path.write_text(source, encoding="utf-8")
    with pytest.raises(RuleSetError) as raised:
        load_rule_set(path)
    assert str(raised.value).startswith(message)


def test_a_missing_file_is_named(tmp_path):
    with pytest.raises(RuleSetError, match=r"^nothing\.yaml: cannot read the file"):
        load_rule_set(tmp_path / "nothing.yaml")


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (("[わ！, へ？", "[わ！, 7"), "yana.yaml: markers.ending[1]: expected a non-empty string, got 7"),
        (("id: yana", "id: yuna"), "yana.yaml: id: expected 'yana' (the file name), got 'yuna'"),
        (("  praise: true", "  praise: maybe"), 'yana.yaml: rules.praise: expected true or false, got "maybe"'),
        (("  praise: true", "  praise: true\n  greeting: true"), "yana.yaml: rules.greeting: unknown key"),
        (
            ("  max_sentences: 2", "  max_sentences: two"),
            'yana.yaml: style.max_sentences: expected an integer ≥ 1, got "two"',
        ),
    ],
)
def test_character_file_errors_name_the_file_and_the_key(tmp_path, edit, message):
    folder = tmp_path / "characters"
    shutil.copytree(CHARACTERS_DIR, folder)
    source = (folder / "yana.yaml").read_text(encoding="utf-8")
    assert edit[0] in source
    (folder / "yana.yaml").write_text(source.replace(edit[0], edit[1]), encoding="utf-8")
    with pytest.raises(RuleSetError) as raised:
        load_rule_set(DEFAULT_RULE_SET, characters_dir=folder)
    assert str(raised.value).startswith(message)


def test_an_error_is_a_value_error_with_its_parts(tmp_path):
    with pytest.raises(ValueError) as raised:
        load_rule_set(write_rule_set(tmp_path, _set("thresholds", "scatter", "warn_topics", -1)))
    error = raised.value
    assert (error.file, error.path) == ("default.yaml", "thresholds.scatter.warn_topics")
    assert error.problem == "expected an integer ≥ 1, got -1"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            _set("messages", "praise", "retry_listener", "ja", "{words}と{score}"),
            "default.yaml: messages.praise.retry_listener.ja: unknown placeholder {score}; accepted: {words}",
        ),
        (
            _delete("messages", "scatter", "suggestion_topics"),
            "default.yaml: messages.scatter.suggestion_topics: missing",
        ),
        (
            _set("messages", "tone", "style_polite_endings", "en", "{endings} {marks}"),
            "default.yaml: messages.tone.style_polite_endings.en: unknown placeholder {marks}; "
            "accepted: {endings}, {min_count}",
        ),
        (
            _set("messages", "litotes", "retry", {"ja": "x", "en": "x"}),
            "default.yaml: messages.litotes.retry: unknown key; accepted: warn, suggestion",
        ),
        (_delete("contradiction", "tag_endings"), "default.yaml: contradiction.tag_endings: missing"),
    ],
)
def test_every_message_kind_and_part_is_checked_with_its_own_placeholders(tmp_path, change, message):
    with pytest.raises(RuleSetError) as raised:
        load_rule_set(write_rule_set(tmp_path, change))
    assert str(raised.value).startswith(message)
