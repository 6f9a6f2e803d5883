"""The praise rule's scope (seed 004 §3, §5): the seed's reading by default, for both sisters, each
naming the listener in its own words; the implicit-listener reading only as a rule-set option."""

import shutil

import pytest

from director.rules import RuleSetError, check_utterance, load_rule_set
from director.rules.diff import SettingChange, settings_diff
from director.rules.ruleset import CHARACTERS_DIR
from tests.director.rules.helpers import finding, write_rule_set


@pytest.fixture(scope="module")
def seed_rules():
    return load_rule_set()


@pytest.fixture(scope="module")
def implicit_rules(tmp_path_factory):
    def implicit_listener(data):
        data["praise"]["implicit_listener"] = True

    return load_rule_set(write_rule_set(tmp_path_factory.mktemp("implicit"), implicit_listener))


def praise(rules, text, speaker):
    found = finding(check_utterance(text, speaker, rules), "praise")
    if found is None:
        return None, []
    for span in found["evidence"]:
        assert text[span["start"] : span["end"]] == span["text"]
    return found["status"], [span["text"] for span in found["evidence"]]


def test_the_default_rule_set_reads_the_seed(seed_rules):
    assert seed_rules.config["praise"]["implicit_listener"] is False
    assert seed_rules.character("yana").applies("praise") and seed_rules.character("ayu").applies("praise")


@pytest.mark.parametrize(
    ("speaker", "text", "status", "evidence"),
    [
        # an evaluation word and an affirmation (target + predicate) in one sentence: RETRY
        ("ayu", "あなたの計算は正しいです、完璧ですね。", "RETRY", ["あなた", "正しい", "完璧"]),
        ("yana", "きみの作戦、合ってるし完璧だよ！", "RETRY", ["きみ", "合ってる", "完璧"]),
        ("yana", "素晴らしい、その考えで正しかったね！", "RETRY", ["素晴らしい", "その考え", "正しかった"]),
        # the affirmation in another sentence, or none: the evaluation word alone is a WARN
        ("yana", "きみの作戦、合ってるよ！完璧！", "WARN", ["完璧"]),
        ("ayu", "その意見は正しいと思います。素晴らしいです。", "WARN", ["素晴らしい"]),
        ("ayu", "天才ですね！", "WARN", ["天才"]),
        ("yana", "さすがだね！", "WARN", ["さすが"]),
        ("ayu", "あなたは天才です。", "WARN", ["天才"]),  # a target, but nothing affirms it
        # 正解 affirms an answer and is an evaluation word: one occurrence is not both
        ("ayu", "その答えで正解です、さすがですね。", "RETRY", ["その答え", "正解", "さすが"]),
        ("ayu", "その答えは正解です。", "WARN", ["正解"]),
        # a negated predicate affirms nothing
        ("ayu", "その答えは正しくないですが、完璧な字ですね。", "WARN", ["完璧"]),
        ("yana", "その考え、素敵じゃないけどすごいね！", "WARN", ["すごい"]),
        # no evaluation word: nothing, whoever is affirmed
        ("yana", "きみの作戦で合ってるよ！", None, []),
    ],
)
def test_the_seeds_reading_for_both_sisters(seed_rules, speaker, text, status, evidence):
    assert praise(seed_rules, text, speaker) == (status, evidence)


@pytest.mark.parametrize(
    ("speaker", "text", "status", "evidence"),
    [
        # each sister names the listener in her own words: those are targets for her
        ("ayu", "姉様の計算は合っています、完璧です。", "RETRY", ["姉様", "合っています", "完璧"]),
        ("ayu", "お姉ちゃんの予想、正しかったです。すごいですね、その通りです。", "WARN", ["すごい"]),
        ("ayu", "やなの答えは正しいです、素晴らしいですね。", "RETRY", ["やな", "正しい", "素晴らしい"]),
        ("yana", "あゆの予想で合ってたよ、すごい！", "RETRY", ["あゆ", "合ってた", "すごい"]),
        ("yana", "あゆの予想は正しいよ、すごい！", "RETRY", ["あゆ", "正しい", "すごい"]),
        # ... and not the other's words for her: やな calls nobody 姉様, あゆ does not praise herself
        ("yana", "姉様の予想は正しいよ、すごい！", "WARN", ["すごい"]),
        ("ayu", "あゆの予想は正しいです、すごいですね。", "WARN", ["すごい"]),
    ],
)
def test_each_character_names_the_listener(seed_rules, speaker, text, status, evidence):
    assert praise(seed_rules, text, speaker) == (status, evidence)


@pytest.mark.parametrize(
    ("speaker", "text", "status", "evidence"),
    [
        ("ayu", "天才ですね！", "RETRY", ["天才", "ですね"]),
        ("ayu", "あなたは天才です。", "RETRY", ["天才", "です"]),
        ("ayu", "姉様は天才です。", "RETRY", ["天才", "です"]),  # her name for the listener as the subject
        ("yana", "さすがだね！", "RETRY", ["さすが", "だね"]),
        ("ayu", "その意見は正しいと思います。素晴らしいです。", "RETRY", ["素晴らしい", "です"]),  # across sentences
        ("ayu", "すごいよねよね", "RETRY", ["すごい", "よね", "よね"]),  # two endings: two spans
        # still a WARN: a third person or a thing as the subject, an attributive word
        ("ayu", "姉はすごいです。", "WARN", ["すごい"]),
        ("yana", "この景色は完璧だね！", "WARN", ["完璧"]),
        ("ayu", "すごい景色ですね。", "WARN", ["すごい"]),
        # the seed's RETRY is unchanged
        ("yana", "きみの作戦、合ってるし完璧だよ！", "RETRY", ["きみ", "合ってる", "完璧"]),
    ],
)
def test_the_implicit_listener_option(implicit_rules, speaker, text, status, evidence):
    assert praise(implicit_rules, text, speaker) == (status, evidence)


def test_the_option_names_what_was_said_of_the_listener(implicit_rules):
    verdict = check_utterance("さすがです！本当に素晴らしい！天才ですね！", "ayu", implicit_rules)
    assert verdict.status == "RETRY" and "さすがです" in finding(verdict, "praise")["message"]
    english = check_utterance("天才ですね！", "ayu", implicit_rules, language="en")
    message = finding(english, "praise")["message"]
    assert message.startswith("An evaluation word is said of the listener") and "天才ですね" in message


def test_the_option_and_the_targets_change_the_content_hash(seed_rules, implicit_rules, tmp_path):
    def more_targets(data):
        data["characters"] = {
            "yana": {
                "name": "やな",
                "markers": {"ending": ["よね"], "vocabulary": ["ほんと"]},
                "style": {"kind": "short_exclaiming", "max_sentences": 2, "marks": ["！", "？"]},
                "praise": {"targets": ["あゆ", "あゆちゃん"]},
            }
        }

    changed = load_rule_set(write_rule_set(tmp_path, more_targets))
    assert len({seed_rules.content_hash, implicit_rules.content_hash, changed.content_hash}) == 3
    assert changed.cast["yana"].praise_targets == ("あゆ", "あゆちゃん")
    assert changed.canonical["characters"]["yana"]["praise"] == {"targets": ["あゆ", "あゆちゃん"]}


def test_an_inline_character_without_praise_targets_has_none(tmp_path):
    def bare_yana(data):
        data["characters"] = {
            "yana": {
                "name": "やな",
                "markers": {"ending": ["よね"], "vocabulary": ["ほんと"]},
                "style": {"kind": "short_exclaiming", "max_sentences": 2, "marks": ["！", "？"]},
            }
        }

    rules = load_rule_set(write_rule_set(tmp_path, bare_yana))
    assert rules.cast["yana"].praise_targets == ()
    assert praise(rules, "あゆの予想は正しいよ、すごい！", "yana") == ("WARN", ["すごい"])


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("yes", 'default.yaml: praise.implicit_listener: expected true or false, got "yes"'),
        (None, "default.yaml: praise.implicit_listener: expected true or false, got null"),
    ],
)
def test_the_option_must_be_true_or_false(tmp_path, value, message):
    def set_option(data):
        data["praise"]["implicit_listener"] = value

    with pytest.raises(RuleSetError) as raised:
        load_rule_set(write_rule_set(tmp_path, set_option))
    assert str(raised.value).startswith(message)


def test_the_option_is_required(tmp_path):
    with pytest.raises(RuleSetError, match=r"^default\.yaml: praise\.implicit_listener: missing"):
        load_rule_set(write_rule_set(tmp_path, lambda data: data["praise"].pop("implicit_listener")))


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (("targets: [あゆ]", "targets: [あゆ, 7]"), "yana.yaml: praise.targets[1]: expected a non-empty string, got 7"),
        (("targets: [あゆ]", "targets: [あゆ, あゆ]"), 'yana.yaml: praise.targets[1]: "あゆ" is listed twice'),
        (("targets: [あゆ]", "listener: [あゆ]"), "yana.yaml: praise.listener: unknown key; accepted: targets"),
        (("targets: [あゆ]", "targets: あゆ"), 'yana.yaml: praise.targets: expected a list of strings, got "あゆ"'),
    ],
)
def test_character_praise_errors_name_the_file_and_the_key(tmp_path, edit, message):
    folder = tmp_path / "characters"
    shutil.copytree(CHARACTERS_DIR, folder)
    path = folder / "yana.yaml"
    source = path.read_text(encoding="utf-8")
    assert edit[0] in source
    path.write_text(source.replace(*edit), encoding="utf-8")
    with pytest.raises(RuleSetError) as raised:
        load_rule_set(characters_dir=folder)
    assert str(raised.value).startswith(message)


def test_a_replay_diff_names_the_option(seed_rules, implicit_rules):
    assert settings_diff(seed_rules, implicit_rules) == [
        SettingChange("praise.implicit_listener", "value", "false", "true")
    ]
