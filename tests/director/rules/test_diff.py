"""The settings that differ between two rule sets: a deep diff of their canonical documents."""

import copy

import pytest

from director.rules import load_rule_set
from director.rules.diff import SettingChange, settings_diff
from tests.director.rules.helpers import write_rule_set


def _changed(rules, change):
    document = copy.deepcopy(rules.canonical)
    change(document["ruleset"], document["characters"])
    return document


def test_the_same_settings_differ_nowhere(rules, tmp_path):
    assert settings_diff(rules, rules) == []
    assert settings_diff(rules, load_rule_set(write_rule_set(tmp_path))) == []


def test_limits_thresholds_and_short_texts_show_old_and_new_values(rules):
    def change(ruleset, characters):
        ruleset["session"]["max_interventions"] = 3
        ruleset["review"]["pass_from"] = 4.5
        ruleset["version"] = rules.version + "-next"
        characters["yana"]["rules"]["praise"] = False
        characters["yana"]["name"] = "やなちゃん"

    assert settings_diff(rules, _changed(rules, change)) == [
        SettingChange("characters.yana.name", "value", '"やな"', '"やなちゃん"'),
        SettingChange("characters.yana.rules.praise", "value", "true", "false"),
        SettingChange("review.pass_from", "value", "4.0", "4.5"),
        SettingChange("session.max_interventions", "value", "5", "3"),
        SettingChange("version", "value", f'"{rules.version}"', f'"{rules.version}-next"'),
    ]


def test_a_long_text_is_only_said_to_have_changed(rules):
    def change(ruleset, characters):
        characters["ayu"]["persona"] += "少し皮肉屋。"
        ruleset["messages"]["praise"]["suggestion"]["ja"] = "褒めないで、\n情報を伝えてください。"

    assert settings_diff(rules, _changed(rules, change)) == [
        SettingChange("characters.ayu.persona", "text"),
        SettingChange("messages.praise.suggestion.ja", "text"),
    ]


def test_word_lists_show_the_items_added_and_removed_or_a_new_order(rules):
    def change(ruleset, characters):
        ruleset["praise"]["evaluation_words"].remove("天才")
        ruleset["praise"]["evaluation_words"].append("<b>最高</b>")
        ruleset["setting"]["phrases"].reverse()
        characters["ayu"]["markers"]["ending"].append("ですわ")

    assert settings_diff(rules, _changed(rules, change)) == [
        SettingChange("characters.ayu.markers.ending", "items", added=("ですわ",)),
        SettingChange("praise.evaluation_words", "items", added=("<b>最高</b>",), removed=("天才",)),
        SettingChange("setting.phrases", "order"),
    ]


def test_keys_only_one_side_has_are_added_or_removed(rules, tmp_path):
    kana = {
        "name": "かな",
        "markers": {"ending": ["ですわ"], "vocabulary": []},
        "style": {"kind": "polite_endings", "endings": ["ですわ"], "min_count": 1},
    }
    with_kana = load_rule_set(write_rule_set(tmp_path, lambda data: data.update(characters={"kana": kana})))
    assert settings_diff(rules, with_kana) == [SettingChange("characters.kana", "added")]
    assert settings_diff(with_kana, rules) == [SettingChange("characters.kana", "removed")]
    newer = _changed(rules, lambda ruleset, characters: ruleset["session"].update(extra=7))
    assert settings_diff(rules, newer) == [SettingChange("session.extra", "added", after="7")]


def test_only_rule_sets_or_their_documents_are_compared(rules):
    with pytest.raises(TypeError, match="canonical document"):
        settings_diff(rules, {"session": {}})
