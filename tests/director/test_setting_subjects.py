"""Setting consistency (seed 004 §3 設定整合性) by who lives where: the bearer of a living arrangement.

The sentences are written for these tests (director/rules/setting.py and living.py describe the grammar).
"""

import pytest

from director.rules import RuleSetError, check_utterance, load_rule_set
from director.rules.analyser import get_analyser
from director.rules.living import BOTH, LISTENER, OTHER_PERSON, SPEAKER, Person, bearers
from tests.director.rules.helpers import default_data, finding, write_rule_set


@pytest.fixture(scope="module")
def rules():
    return load_rule_set()


def setting_of(rules, text: str, speaker: str = "ayu") -> list[str] | None:
    """The evidence texts of the setting finding of ``text``, or None without one."""
    found = finding(check_utterance(text, speaker, rules), "setting")
    if found is None:
        return None
    assert found["status"] == "RETRY"
    for span in found["evidence"]:
        assert text[span["start"] : span["end"]] == span["text"]
    return [span["text"] for span in found["evidence"]]


@pytest.mark.parametrize(
    ("head", "kind"),
    [
        ("私", SPEAKER),
        ("自分", SPEAKER),
        ("あゆ", LISTENER),
        ("あゆちゃん", LISTENER),  # an honorific is read without it
        ("姉様", LISTENER),
        ("お姉ちゃん", LISTENER),
        ("私たち", BOTH),
        ("二人", BOTH),
        ("同僚さん", OTHER_PERSON),
        ("みゆき", OTHER_PERSON),
        ("部屋", OTHER_PERSON),
    ],
)
def test_a_head_is_sorted_by_the_person_lists(head, kind):
    assert Person(default_data()["setting"]).kind(head) == kind


def test_the_nearest_marked_noun_phrase_is_the_first_bearer():
    person = Person(default_data()["setting"])
    text = "叔母の和子さん、娘さんが去年から一人暮らし。"
    tokens = get_analyser().tokenize(text)
    index = tokens.index_at(text.index("一人暮らし"))
    found = bearers(tokens, text, 0, index, person)
    assert [(bearer.head, bearer.role) for bearer in found] == [("娘さん", "subject"), ("和子さん", "subject")]


@pytest.mark.parametrize(
    ("text", "speaker", "evidence"),
    [
        # said of the speaker, the listener or both
        ("私、この春から寮に住んでいます。", "ayu", ["寮に住ん"]),
        ("お姉ちゃんって、まだ一人暮らしなの？", "ayu", ["一人暮らし"]),
        ("姉様が下宿しているので、夕食は私ひとりです。", "ayu", ["下宿し"]),
        ("あたしたち、別々の家なんだよね。", "yana", ["別々の家"]),
        # nobody named: the speaker or the listener, not hearsay
        ("寮暮らしも二年目だから、もう慣れたかも。", "yana", ["寮暮らし"]),
        ("単身赴任みたいな生活だよね。", "yana", ["単身赴任"]),
        ("ひとりぐらしを始める予定です。", "ayu", ["ひとりぐらし"]),  # a formal noun keeps the statement
        ("一人暮らししてた頃は、毎日パンでした。", "ayu", ["一人暮らし"]),  # a time word keeps it too
        # the noun it describes is a sister
        ("一人で暮らしている姉に、野菜を送りました。", "ayu", ["一人で暮らし"]),
        ("別居中のやなとは、電話で話すだけです。", "ayu", ["別居中"]),
        # the possessor of a thing it describes is a sister
        ("あゆの一人暮らしの部屋、きれいだよね。", "yana", ["一人暮らし"]),
        # a partner who is a sister
        ("妹とは離れて暮らしています。", "yana", ["離れて暮らし"]),
    ],
)
def test_living_apart_said_of_the_sisters_is_a_retry(rules, text, speaker, evidence):
    assert setting_of(rules, text, speaker) == evidence


@pytest.mark.parametrize(
    "text",
    [
        # a subject that is someone else: marked, or a noun phrase before a comma
        "叔母の和子さん、去年から一人暮らしです。",
        "先生の娘さんが、寮で暮らしているそうです。",
        "クラスの佐々木くんは別居中の両親がいます。",
        "いとこの健太、ひとりで住んでるらしいよね。",
        "田中君、来月から別々に暮らすんだって。",  # 君 ends a name here, no listener
        # a person the phrase describes
        "一人暮らしをしている後輩が、料理を習いたいそうです。",
        "寮に住んでいる友人の話では、門限は十時だそうです。",
        "一人暮らしの学生さん向けに、安い定食があります。",
        # a kind of thing, the word as a topic
        "一人暮らし家電のカタログが届きました。",
        "単身赴任手当について調べました。",
        "一人暮らしって、家事が大変そうです。",
        # hearsay with nobody named
        "駅前のマンションで一人暮らし始めたんだって！",
        # not what is so: a mistaken belief
        "先生に、私たちが別居してると誤解されていました。",
    ],
)
def test_living_apart_said_of_someone_else_is_no_finding(rules, text):
    assert setting_of(rules, text) is None


@pytest.mark.parametrize(
    ("text", "speaker", "evidence"),
    [
        ("やなが家を出てから、台所が広くなりました。", "ayu", ["家を出"]),
        ("私、来月引っ越すことになったんだよね。", "yana", ["引っ越す"]),  # to the end of the word
        ("実家を出ていった姉は、元気でしょうか。", "ayu", ["実家を出"]),  # the noun described: 姉
    ],
)
def test_moving_out_said_of_one_sister_is_a_retry(rules, text, speaker, evidence):
    assert setting_of(rules, text, speaker) == evidence


@pytest.mark.parametrize(
    "text",
    [
        "私たち、去年の春に実家を出ました。",  # both sisters move together
        "家を出る前に、戸締まりを確認しました。",  # nobody named
        "お隣さんが引っ越してしまいました。",
        "実家を出た叔父から手紙が来ました。",
    ],
)
def test_moving_out_said_of_both_or_of_someone_else_is_no_finding(rules, text):
    assert setting_of(rules, text) is None


@pytest.mark.parametrize(
    ("text", "counts"),
    [
        ("やな、週末うちに泊まりにおいでよ。", True),  # the listener is asked over
        ("姉様、たまには実家に帰ってきてください。", True),
        ("明日、同僚がうちに遊びに来ます。", False),
        ("今度うちに遊びに来るんだって。", False),  # nobody named
        ("私、昨日実家に帰ってきました。", False),  # the speaker: no home of the listener implied
    ],
)
def test_a_visit_counts_only_said_of_the_listener(rules, text, counts):
    assert (setting_of(rules, text) is not None) is counts


@pytest.mark.parametrize(
    ("text", "speaker", "evidence"),
    [
        ("やなのマンション、駅から遠いですね。", "ayu", ["やなのマンション"]),
        ("お姉ちゃんのお家まで歩いて行きます。", "ayu", ["お姉ちゃんのお家"]),
        ("あゆが借りてるアパート、日当たりいいよね。", "yana", None),  # no の: not read as a possessor
        ("あゆの借りてるアパート、日当たりいいよね。", "yana", ["あゆの借りてるアパート"]),
        ("私の新居に、今度来てください。", "ayu", ["私の新居"]),
    ],
)
def test_a_home_of_the_listener_or_the_speakers_own_flat_is_a_retry(rules, text, speaker, evidence):
    assert setting_of(rules, text, speaker) == evidence


@pytest.mark.parametrize(
    "text",
    [
        "あゆの友達の家は、坂の上にあります。",  # the friend's home
        "私の家では、朝はご飯です。",  # the sisters' home
        "姉様の家族写真を飾りました。",  # 家族 is another word
        "私の部屋も姉の部屋も南向きです。",
        "うちのマンション、エレベーターが新しくなりました。",
    ],
)
def test_other_homes_are_no_finding(rules, text):
    assert setting_of(rules, text) is None


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda data: data["setting"].pop("moves"), "default.yaml: setting.moves: missing"),
        (lambda data: data["setting"].update(listener=["あゆ", 1]), "default.yaml: setting.listener[1]"),
        (
            lambda data: data["setting"].update(homes=["家", "家"]),
            'default.yaml: setting.homes[1]: "家" is listed twice',
        ),
    ],
)
def test_the_setting_lists_are_validated(tmp_path, change, message):
    with pytest.raises(RuleSetError) as error:
        load_rule_set(write_rule_set(tmp_path, change))
    assert str(error.value).startswith(message)


def test_the_person_lists_are_rule_data(tmp_path):
    path = write_rule_set(tmp_path, lambda data: data["setting"]["listener"].append("みゆき"))
    text = "みゆき、春から一人暮らしだよね。"
    assert setting_of(load_rule_set(), text, "yana") is None
    assert setting_of(load_rule_set(path), text, "yana") == ["一人暮らし"]
