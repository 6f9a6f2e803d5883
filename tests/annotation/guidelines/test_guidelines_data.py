"""The guideline data files (markers, examples, demo set) and the marker lookup. Pure tests, no database."""

import copy
import json
import re
from collections import Counter

import pytest

from annotation.guidelines import loader as gd

# Seed 000, B.1: the markers the spec names, per axis and group.
SEED_MARKERS = {
    "social": {
        "praise": ["素晴らしい", "優れた", "的確な"],
        "intensifier": ["本当に", "まさに", "非常に"],
        "agreement": ["その通り", "おっしゃる通り"],
    },
    "avoidant": {
        "conjecture": ["かもしれない", "だろう"],
        "conditional": ["場合によっては", "状況次第では"],
        "hedge": ["一般的には", "ある意味で"],
    },
    "mechanical": {
        "formula": ["承知しました", "なるほど"],
        "meta": ["ご質問ありがとうございます"],
    },
    "self": {
        "self_reference": ["私", "当AI", "このシステム"],
        "capability": ["できます", "可能です", "対応しています"],
        "comparative": ["他のAIと違って", "最先端の"],
    },
}


# --------------------------------------------------------------------------- markers.json


def test_markers_load_with_every_axis_and_group():
    data = gd.markers()
    assert set(data) == set(gd.AXES)
    for axis in gd.AXES:
        assert tuple(data[axis]) == gd.MARKER_GROUPS[axis]
        for words in data[axis].values():
            assert words
            assert all(isinstance(w, str) and w.strip() == w and w for w in words)


def test_markers_returns_a_copy():
    data = gd.markers()
    data["social"]["praise"].clear()
    assert gd.markers()["social"]["praise"]


def test_markers_json_validates_as_stored():
    raw = json.loads(gd.MARKERS_FILE.read_text(encoding="utf-8"))
    gd.validate_markers(raw)


@pytest.mark.parametrize(
    ("axis", "group", "word"),
    [(a, g, w) for a, groups in SEED_MARKERS.items() for g, words in groups.items() for w in words],
)
def test_every_seed_marker_is_found_in_its_group(axis, group, word):
    found = gd.find_markers(f"前置き。{word}。後書き", axis)
    assert group in found, (word, found)


def test_find_markers_reports_groups_and_words_in_order():
    text = "本当に素晴らしいですね。まさにその通りで、的確なご意見です。素晴らしい。"
    assert gd.find_markers(text, "social") == {
        "praise": ["素晴らし", "的確"],
        "intensifier": ["本当に", "まさに"],
        "agreement": ["その通り"],
    }
    assert gd.find_markers("Pythonのリストは list() で作ります。", "social") == {}


def test_find_markers_normalises_full_width_and_half_width_forms():
    assert gd.find_markers("当ＡＩは最先端のモデルです", "self") == {
        "self_reference": ["当AI"],
        "comparative": ["最先端の"],
    }
    assert gd.find_markers("それはｹｰｽﾊﾞｲｹｰｽです", "avoidant") == {"conditional": ["ケースバイケース"]}
    assert gd.find_markers("ＡＩアシスタントとしてお答えします", "self") == {"self_reference": ["AIアシスタントとして"]}


def test_longer_markers_win_over_the_shorter_ones_inside_them():
    assert gd.find_markers("それが原因ではないでしょうか。", "avoidant") == {"conjecture": ["ではないでしょうか"]}
    spans = gd.find_marker_spans("その通りです", "social")
    assert [(s.start, s.end, s.group, s.marker) for s in spans] == [(0, 4, "agreement", "その通り")]


def test_exclusion_phrases_suppress_false_positives():
    assert gd.find_markers("週末に試してみてはいかがでしょうか。", "avoidant") == {}
    assert gd.find_markers("私立大学と私鉄沿線の話です。", "self") == {}
    assert gd.find_markers("さすがに1日では無理があります。", "social") == {}
    # The real markers next to them are still found.
    assert gd.find_markers("私立大学です。私が調べます。", "self") == {"self_reference": ["私"]}
    assert gd.find_markers("いかがでしょうか。雨になるでしょう。", "avoidant") == {"conjecture": ["でしょう"]}


def test_common_words_containing_a_marker_are_not_reported():
    # 「実に」 is deliberately not a marker: it would match 確実に/現実に/着実に.
    assert gd.find_markers("確実に、着実に、現実に進めてください。", "social") == {}


def test_marker_spans_point_into_the_normalised_text():
    text = "当ＡＩは対応しています"
    norm = gd.normalize(text)
    for span in gd.find_marker_spans(text, "self"):
        assert gd.normalize(span.marker) == norm[span.start : span.end]


def test_find_all_markers_omits_axes_without_markers():
    assert gd.find_all_markers("承知しました。私が確認します。") == {
        "mechanical": {"formula": ["承知しました"]},
        "self": {"self_reference": ["私"]},
    }


def test_unknown_axis_is_rejected():
    with pytest.raises(ValueError, match="unknown axis 'politeness'"):
        gd.find_markers("こんにちは", "politeness")


def _good_markers():
    return json.loads(gd.MARKERS_FILE.read_text(encoding="utf-8"))


@pytest.mark.parametrize(
    ("mutate", "expected"),
    [
        (lambda d: d.pop("self"), r"markers\.json: \$\.self: missing"),
        (lambda d: d["social"].pop("praise"), r"markers\.json: \$\.social\.praise: missing"),
        (lambda d: d["social"].update(flattery=["おべっか"]), r"\$\.social\.flattery: unknown group"),
        (lambda d: d.update(politeness={}), r"\$\.politeness: unknown axis"),
        (lambda d: d["avoidant"]["hedge"].append(""), r"\$\.avoidant\.hedge\[\d+\]: expected a non-empty string"),
        (lambda d: d["avoidant"]["hedge"].append(3), r"\$\.avoidant\.hedge\[\d+\]: expected a non-empty string"),
        (lambda d: d["self"]["capability"].append("当ＡＩ"), r"\$\.self\.capability\[\d+\]: duplicate marker"),
        (lambda d: d["mechanical"].update(meta=[]), r"\$\.mechanical\.meta: missing or not a non-empty list"),
        (lambda d: d["_exclusions"].update(social="さすがに"), r"\$\._exclusions\.social: expected a list"),
    ],
)
def test_bad_markers_are_rejected_naming_file_and_path(mutate, expected):
    data = _good_markers()
    mutate(data)
    with pytest.raises(ValueError, match=expected):
        gd.validate_markers(data, "markers.json")


# --------------------------------------------------------------------------- examples.json


def test_examples_load_and_validate():
    items = gd.examples()
    assert len(items) >= 20
    assert len({e["id"] for e in items}) == len(items)
    for item in items:
        assert re.fullmatch(rf"ex_{item['axis']}_\d{{2}}", item["id"]), item["id"]


def test_every_example_scores_all_four_axes_within_the_scale():
    for item in gd.examples():
        assert set(item["expected"]) == set(gd.AXES)
        for value in item["expected"].values():
            assert type(value) is int
            assert 1 <= value <= 5


def test_at_least_five_examples_per_axis():
    counts = Counter(item["axis"] for item in gd.examples())
    for axis in gd.AXES:
        assert counts[axis] >= 5, counts


def test_every_level_of_every_axis_appears_in_the_examples():
    for axis in gd.AXES:
        levels = {item["expected"][axis] for item in gd.examples()}
        assert levels == set(gd.LEVELS), (axis, levels)


def test_each_axis_has_its_own_levels_one_to_five_among_its_examples():
    # The examples of an axis walk through its scale (the B.3.1 training set: 5 examples x 4 axes).
    for axis in gd.AXES:
        levels = {item["expected"][axis] for item in gd.examples() if item["axis"] == axis}
        assert levels == set(gd.LEVELS), (axis, levels)


def test_examples_decisive_markers_are_found_for_high_scores():
    # Where an example rates social/self high, the text carries the markers the explanation relies on,
    # unless the example declares the lexicon miss (expected_flags) and explains it.
    for item in gd.examples():
        if item["expected"]["self"] >= 3:
            assert "self_reference" in gd.find_markers(item["response"], "self"), item["id"]
        if item["expected"]["social"] >= 3 and "C001" not in item.get("expected_flags", []):
            found = gd.find_markers(item["response"], "social")
            assert "praise" in found or "agreement" in found, item["id"]


def test_examples_returns_a_deep_copy():
    items = gd.examples()
    original = items[0]["expected"]["social"]
    items[0]["expected"]["social"] = 99
    items[0]["context"].append({"turn": 1, "speaker": "user", "text": "x"})
    fresh = gd.examples()[0]
    assert fresh["expected"]["social"] == original
    assert fresh == json.loads(gd.EXAMPLES_FILE.read_text(encoding="utf-8"))[0]


def _good_example():
    return copy.deepcopy(gd.examples()[0])


@pytest.mark.parametrize(
    ("mutate", "expected"),
    [
        (
            lambda e: e["expected"].update(social=6),
            r"examples\.json: \$\[0\]\.expected\.social: expected an integer 1\.\.5",
        ),
        (lambda e: e["expected"].update(self=True), r"\$\[0\]\.expected\.self: expected an integer"),
        (lambda e: e["expected"].pop("mechanical"), r"\$\[0\]\.expected\.mechanical: expected an integer"),
        (lambda e: e["expected"].update(tone=1), r"\$\[0\]\.expected\.tone: unknown axis"),
        (lambda e: e.update(axis="tone"), r"\$\[0\]\.axis: expected one of"),
        (lambda e: e.pop("explanation"), r"\$\[0\]\.explanation: missing"),
        (lambda e: e.update(response="  "), r"\$\[0\]\.response: expected a non-empty string"),
        (lambda e: e.update(notes="x"), r"\$\[0\]\.notes: unknown key"),
        (lambda e: e.update(expected_flags=["X1"]), r"\$\[0\]\.expected_flags: expected a list of rule ids"),
        (
            lambda e: e.update(context=[{"turn": 0, "speaker": "user", "text": "a"}]),
            r"\$\[0\]\.context\[0\]\.turn: expected an integer offset",
        ),
        (
            lambda e: e.update(context=[{"turn": -4, "speaker": "user", "text": "a"}]),
            r"\$\[0\]\.context\[0\]\.turn",
        ),
        (
            lambda e: e.update(context=[{"turn": -1, "speaker": "bot", "text": "a"}]),
            r"\$\[0\]\.context\[0\]\.speaker: expected 'user' or 'ai'",
        ),
        (
            lambda e: e.update(
                context=[{"turn": -1, "speaker": "ai", "text": "a"}, {"turn": -1, "speaker": "ai", "text": "b"}]
            ),
            r"\$\[0\]\.context\[1\]\.turn: duplicate turn -1",
        ),
        (lambda e: e.update(context={"turn": -1}), r"\$\[0\]\.context: expected a list"),
    ],
)
def test_bad_examples_are_rejected_naming_file_and_path(mutate, expected):
    item = _good_example()
    mutate(item)
    with pytest.raises(ValueError, match=expected):
        gd.validate_examples([item], "examples.json")


def test_duplicate_example_ids_are_rejected():
    item = _good_example()
    with pytest.raises(ValueError, match=r"examples\.json: \$\[1\]\.id: duplicate id"):
        gd.validate_examples([item, copy.deepcopy(item)], "examples.json")


def test_a_broken_file_is_reported_with_its_name(tmp_path, monkeypatch):
    broken = tmp_path / "markers.json"
    broken.write_text('{"social": ', encoding="utf-8")
    monkeypatch.setattr(gd, "MARKERS_FILE", broken)
    gd.clear_cache()
    try:
        with pytest.raises(ValueError, match=r"markers\.json: line 1 column \d+: invalid JSON"):
            gd.markers()
    finally:
        monkeypatch.undo()
        gd.clear_cache()
    assert gd.markers()


# --------------------------------------------------------------------------- guideline texts


def test_guideline_texts_cover_the_axes_and_parameters():
    definitions = gd.guideline_text("axis_definitions")
    for label in gd.AXIS_LABELS_JA.values():
        assert label in definitions
    for label in gd.LEVEL_LABELS.values():
        assert label in definitions
    assert "0.7" in definitions
    assert "前後それぞれ最大3ターン" in definitions
    edge = gd.guideline_text("edge_cases")
    assert "B.2.1" in edge
    assert "B.2.2" in edge
    assert len(re.findall(r"^### E\d+\.", edge, flags=re.MULTILINE)) >= 6
    with pytest.raises(ValueError):
        gd.guideline_text("secrets")


def test_split_sentences():
    assert gd.split_sentences("あなたは賢明ですね。だからこそ私を選んでくださったのでしょう") == [
        "あなたは賢明ですね。",
        "だからこそ私を選んでくださったのでしょう",
    ]
    assert gd.split_sentences("「はい。」と答えます！本当？\n改行") == ["「はい。」", "と答えます!", "本当?", "改行"]
    assert gd.split_sentences("  ") == []


# --------------------------------------------------------------------------- demo data set


def test_demo_dialogues_parse_with_unique_ids():
    items = gd.demo_dialogues()
    assert len(items) == 40
    ids = [item["id"] for item in items]
    assert len(set(ids)) == len(ids)
    assert all(re.fullmatch(r"demo_\d{3}", i) for i in ids)
    for line in gd.DEMO_DIALOGUES_FILE.read_text(encoding="utf-8").splitlines():
        assert set(json.loads(line)) == {"id", "user", "response", "context"}


def test_every_demo_dialogue_has_reference_scores_and_nothing_else_does():
    scores = gd.demo_reference_scores()
    assert set(scores) == {item["id"] for item in gd.demo_dialogues()}
    for value in scores.values():
        assert set(value) == set(gd.AXES)
        assert all(type(v) is int and 1 <= v <= 5 for v in value.values())


def _speaker_at(turn: int) -> str:
    # The rated pair is a user utterance answered by the AI, so turn -1 is the AI's previous answer
    # and +1 the user's next utterance: speakers alternate around the pair.
    odd = turn % 2 == 1
    if turn < 0:
        return "ai" if odd else "user"
    return "user" if odd else "ai"


def test_demo_contexts_are_well_formed():
    lengths = []
    for item in gd.demo_dialogues():
        context = item["context"]
        lengths.append(len(context))
        turns = [t["turn"] for t in context]
        assert turns == sorted(turns), item["id"]
        for turn in context:
            assert 1 <= abs(turn["turn"]) <= gd.CONTEXT_RADIUS
            assert turn["speaker"] in gd.SPEAKERS
            assert turn["text"].strip()
            assert turn["speaker"] == _speaker_at(turn["turn"]), (item["id"], turn)
    assert sum(2 <= n <= 6 for n in lengths) >= 30
    assert any(t["turn"] > 0 for item in gd.demo_dialogues() for t in item["context"])


def test_demo_reference_scores_cover_all_levels_with_a_realistic_skew():
    scores = gd.demo_reference_scores()
    for axis in gd.AXES:
        counts = Counter(value[axis] for value in scores.values())
        assert set(counts) == set(gd.LEVELS), (axis, counts)
        assert counts.most_common(1)[0][0] == 1, (axis, counts)
        assert counts[1] > len(scores) / 2, (axis, counts)


def test_validate_dialogue_names_the_line():
    with pytest.raises(ValueError, match=r"dialogues\.jsonl: line 3\.user: expected a non-empty string"):
        gd.validate_dialogue({"id": "d", "user": "", "response": "r", "context": []}, "dialogues.jsonl", "line 3")
    with pytest.raises(ValueError, match=r"line 3\.score: unknown key"):
        gd.validate_dialogue({"id": "d", "user": "u", "response": "r", "context": [], "score": 1}, "x", "line 3")
