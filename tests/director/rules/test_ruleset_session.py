"""Characters and session limits as data: personas, max_interventions, history_turns; validated and hashed."""

import hashlib
import json
import shutil

import pytest

from director.rules import RuleSetError, load_rule_set
from director.rules.ruleset import CHARACTERS_DIR, DEFAULT_RULE_SET
from director.rules.thresholds import SessionThresholds
from director.sessions import prompts
from tests.director.rules.helpers import write_rule_set

KANA = {
    "name": "かな",
    "markers": {"ending": ["ですわ"], "vocabulary": []},
    "style": {"kind": "polite_endings", "endings": ["ですわ"], "min_count": 1},
}


def _session(**values):
    return lambda data: data["session"].update(values)


def _kana(persona):
    return lambda data: data.update(characters={"kana": {**KANA, "persona": persona}})


def _characters_copy(tmp_path, character: str, old: str, new: str):
    folder = tmp_path / "characters"
    shutil.copytree(CHARACTERS_DIR, folder)
    path = folder / f"{character}.yaml"
    source = path.read_text(encoding="utf-8")
    assert old in source
    path.write_text(source.replace(old, new), encoding="utf-8")
    return folder


def test_the_shipped_limits_and_personas(rules):
    assert rules.session == SessionThresholds() == SessionThresholds(3, 2, 5, 12)
    assert (rules.session.max_interventions, rules.session.history_turns) == (5, 12)
    for key, character in rules.cast.items():
        assert character.persona.startswith(f"{character.name}（"), key
        assert "一緒に暮らしている" in character.persona
        assert rules.canonical["characters"][key]["persona"] == character.persona
    assert prompts.persona(rules.cast["ayu"]).startswith(rules.cast["ayu"].persona + "\n口調の目安: でしょう")


def test_the_hash_is_that_of_the_canonical_document(rules):
    encoded = json.dumps(rules.canonical, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode()
    assert hashlib.sha256(encoded).hexdigest() == rules.content_hash
    assert rules.canonical["ruleset"]["session"]["max_interventions"] == 5


@pytest.mark.parametrize(
    "change", [_session(max_interventions=3), _session(history_turns=20), _session(max_interventions=20)]
)
def test_changed_session_limits_change_the_hash(tmp_path, rules, change):
    changed = load_rule_set(write_rule_set(tmp_path, change))
    assert changed.content_hash != rules.content_hash
    assert changed.session != rules.session


def test_a_changed_persona_changes_the_hash_and_the_prompt(tmp_path, rules):
    folder = _characters_copy(tmp_path, "ayu", "情報提供役。", "情報提供役で、少し皮肉屋。")
    changed = load_rule_set(characters_dir=folder)
    assert changed.content_hash != rules.content_hash
    assert "少し皮肉屋" in prompts.persona(changed.cast["ayu"])
    assert "少し皮肉屋" in prompts.characters_text(changed.cast.values())
    same = load_rule_set(characters_dir=_characters_copy(tmp_path / "b", "ayu", 'persona: "あゆ', 'persona: "  あゆ'))
    assert same.content_hash == rules.content_hash  # surrounding whitespace is not part of the persona


def test_an_inline_character_may_go_without_a_persona_and_is_prompted_by_name(tmp_path, rules):
    added = load_rule_set(write_rule_set(tmp_path, lambda data: data.update(characters={"kana": KANA})))
    assert added.cast["kana"].persona == "" and added.canonical["characters"]["kana"]["persona"] == ""
    assert prompts.persona(added.cast["kana"]) == "かな\n口調の目安: ですわ"
    given = load_rule_set(write_rule_set(tmp_path, _kana("かな: 新人。")))
    assert given.cast["kana"].persona == "かな: 新人。" and given.content_hash != added.content_hash


MAX = "expected an integer from 1 to 20, got"
TURNS = "expected an integer from 1 to 100, got"
PERSONA = "expected a non-empty string, got"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (_session(max_interventions=0), f"session.max_interventions: {MAX} 0"),
        (_session(max_interventions=21), f"session.max_interventions: {MAX} 21"),
        (_session(max_interventions="5"), f'session.max_interventions: {MAX} "5"'),
        (_session(max_interventions=True), f"session.max_interventions: {MAX} true"),
        (_session(history_turns=0), f"session.history_turns: {TURNS} 0"),
        (_session(history_turns=2.5), f"session.history_turns: {TURNS} 2.5"),
        (_session(history_turns=101), f"session.history_turns: {TURNS} 101"),
        (
            lambda data: data["session"].pop("max_interventions"),
            "session.max_interventions: missing (required here: topic_loop_turns, hook_depth, max_interventions, "
            "history_turns)",
        ),
        (lambda data: data["session"].pop("history_turns"), "session.history_turns: missing"),
        (_kana(""), f'characters.kana.persona: {PERSONA} ""'),
        (_kana(["かな"]), f"characters.kana.persona: {PERSONA} a list of 1"),
    ],
)
def test_bad_limits_and_personas_name_the_file_and_the_key(tmp_path, change, message):
    with pytest.raises(RuleSetError) as raised:
        load_rule_set(write_rule_set(tmp_path, change))
    assert str(raised.value).startswith(f"default.yaml: {message}")


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('persona: ""', 'ayu.yaml: persona: expected a non-empty string, got ""'),
        ('persona: "  \\n  "', "ayu.yaml: persona: expected a non-empty string"),
        ("persona:", "ayu.yaml: persona: expected a non-empty string, got null"),
        ("", "ayu.yaml: persona: missing (required here: name, markers, style, persona)"),
    ],
)  # fmt: skip
def test_a_character_file_needs_a_persona(tmp_path, rules, line, message):
    folder = _characters_copy(
        tmp_path, "ayu", f"persona: {json.dumps(rules.cast['ayu'].persona, ensure_ascii=False)}", line
    )
    with pytest.raises(RuleSetError) as raised:
        load_rule_set(DEFAULT_RULE_SET, characters_dir=folder)
    assert str(raised.value).startswith(message)


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"max_interventions": 0}, "max_interventions: expected an integer from 1 to 20, got 0"),
        ({"max_interventions": True}, "max_interventions: expected an integer from 1 to 20, got True"),
        ({"history_turns": 101}, "history_turns: expected an integer from 1 to 100, got 101"),
        ({"history_turns": 1.0}, "history_turns: expected an integer from 1 to 100, got 1.0"),
        ({"hook_depth": 0}, "hook_depth: expected an integer ≥ 1, got 0"),
    ],
)
def test_session_thresholds_built_in_code_are_checked(values, message):
    with pytest.raises(ValueError, match=message):
        SessionThresholds(**values)
    assert SessionThresholds(max_interventions=20, history_turns=1).max_interventions == 20
