"""The Director's labelled evaluation set (director/evaluation) and the parsing of bench/director_quality.py.

The engine's accuracy on the set is a bench figure (bench/director_quality.py), not a test, except for
the seed examples: the seed's own examples must each get their expected status.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bench.director_quality import CODES, EVALUATION_DIR, STATUSES, SetError, judge, load_set
from director.rules import load_rule_set

ROOT = Path(__file__).resolve().parents[2]
GOOD = {
    "id": "x-1",
    "speaker": "yana",
    "text": "ほんと？",
    "expected": "PASS",
    "codes": [],
    "reason": "tone 2",
    "source": "boundary",
}


@pytest.fixture(scope="module")
def examples():
    return load_set()


def test_the_set_is_valid_large_and_covers_both_speakers_every_status_and_code(examples):
    assert len(examples) >= 300
    assert len({example.id for example in examples}) == len(examples)
    assert {example.speaker for example in examples} == {"yana", "ayu"}
    assert {example.expected for example in examples} == set(STATUSES)
    assert {code for example in examples for code in example.codes} == set(CODES)
    assert any(example.history for example in examples)
    sources = {example.source.split(" ")[0] for example in examples}
    assert {"seed", "spec", "boundary", "over-sensitive", "demo", "natural"} <= sources


def test_every_seed_example_gets_its_expected_status(examples):
    rules = load_rule_set()
    seeds = [example for example in examples if example.is_seed]
    assert len(seeds) >= 50
    wrong = [
        f"{example.file}:{example.line} {example.id}: expected {example.expected}, got {result.status} {result.codes}"
        for example in seeds
        if (result := judge(example, rules)).status != example.expected
    ]
    assert not wrong, "\n".join(wrong)


def test_the_held_out_set_is_valid_new_and_left_out_of_the_main_set(examples):
    held_out = load_set(EVALUATION_DIR / "heldout")
    assert len(held_out) >= 120
    assert {example.source for example in held_out} == {"heldout"}
    assert {example.speaker for example in held_out} == {"yana", "ayu"}
    # The main set is the folder's own *.jsonl: the heldout sub-folder is not read with it.
    assert all(example.source != "heldout" for example in examples)
    assert not {example.id for example in held_out} & {example.id for example in examples}
    assert not {example.text for example in held_out} & {example.text for example in examples}


def test_the_set_may_be_one_file(tmp_path):
    write(tmp_path, "a.jsonl", [GOOD, {**GOOD, "id": "x-2", "source": "heldout"}])
    write(tmp_path, "b.jsonl", [{**GOOD, "id": "b-1"}])
    loaded = load_set(tmp_path / "a.jsonl")
    assert [(example.file, example.line, example.id) for example in loaded] == [
        ("a.jsonl", 1, "x-1"),
        ("a.jsonl", 2, "x-2"),
    ]
    result = subprocess.run(
        [sys.executable, "bench/director_quality.py", "--set", str(tmp_path / "a.jsonl"), "--json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode in (0, 1), result.stderr
    assert len(json.loads(result.stdout)["mismatches"]) <= 2


def write(folder: Path, name: str, rows: list) -> None:
    lines = [row if isinstance(row, str) else json.dumps(row, ensure_ascii=False) for row in rows]
    (folder / name).write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.mark.parametrize(
    ("bad", "problem"),
    [
        ('{"id": "x-2", "speaker": ', "invalid JSON"),
        ("", "blank line"),
        ({**GOOD, "id": "x-2", "speaker": "ゆな"}, "speaker: expected one of yana, ayu"),
        ({**GOOD, "id": "x-2", "expected": "OK"}, "expected: expected one of PASS, WARN, RETRY, MODIFY"),
        ({**GOOD, "id": "x-2", "codes": ["tone", "scatter"], "expected": "WARN"}, "codes: expected sorted"),
        ({**GOOD, "id": "x-2", "codes": ["tones"], "expected": "WARN"}, "codes: unknown tones"),
        ({**GOOD, "id": "x-2", "codes": ["tone"]}, "PASS means no finding"),
        ({**GOOD, "id": "x-2", "codes": ["setting"], "expected": "WARN"}, "setting is always a RETRY"),
        ({**GOOD, "id": "x-2", "codes": ["litotes"], "expected": "RETRY"}, "litotes only ever WARN"),
        ({**GOOD, "id": "x-2", "expected": "WARN"}, "WARN needs at least one code"),
        ({**GOOD, "id": "x-2", "source": "seed"}, "source: expected 'seed §N[.N]'"),
        ({**GOOD, "id": "x-2", "reason": " "}, "reason: expected a non-blank string"),
        ({**GOOD, "id": "x-2", "status": "PASS"}, "status: unknown field"),
        ({key: value for key, value in GOOD.items() if key != "text"} | {"id": "x-2"}, "text: missing"),
        ({**GOOD, "id": "x-2", "history": [{"speaker": "yana"}]}, "history[0]: expected"),
        ({**GOOD, "id": "x-2", "ambiguous": "yes"}, "ambiguous: expected true or false"),
        ({**GOOD, "id": "x-1"}, "id: 'x-1' is already used at a.jsonl:1"),
        (["x-2"], "expected a JSON object"),
    ],
)
def test_a_broken_line_is_reported_with_its_file_and_line(tmp_path, bad, problem):
    write(tmp_path, "a.jsonl", [GOOD])
    write(tmp_path, "b.jsonl", [{**GOOD, "id": "x-0"}, bad])
    with pytest.raises(SetError) as raised:
        load_set(tmp_path)
    assert len(raised.value.problems) == 1, raised.value.problems
    assert raised.value.problems[0].startswith("b.jsonl:2: "), raised.value.problems
    assert problem in raised.value.problems[0]


def test_a_valid_folder_loads_in_file_and_line_order(tmp_path):
    write(tmp_path, "b.jsonl", [{**GOOD, "id": "b-1"}])
    write(tmp_path, "a.jsonl", [GOOD, {**GOOD, "id": "x-2", "history": [{"speaker": "ayu", "text": "はい。"}]}])
    loaded = load_set(tmp_path)
    assert [(example.file, example.line, example.id) for example in loaded] == [
        ("a.jsonl", 1, "x-1"),
        ("a.jsonl", 2, "x-2"),
        ("b.jsonl", 1, "b-1"),
    ]
    assert loaded[1].history == (("ayu", "はい。"),)


def test_an_empty_folder_is_an_error(tmp_path):
    with pytest.raises(SetError, match=r"no \*\.jsonl files"):
        load_set(tmp_path)


def test_the_bench_exits_2_naming_the_bad_line(tmp_path):
    write(tmp_path, "a.jsonl", [GOOD, {**GOOD, "id": "x-2", "expected": "FINE"}])
    result = subprocess.run(
        [sys.executable, "bench/director_quality.py", "--set", str(tmp_path)], cwd=ROOT, capture_output=True, text=True
    )
    assert result.returncode == 2
    assert "a.jsonl:2: expected: expected one of PASS" in result.stderr


def test_the_history_adds_the_cross_turn_warnings(tmp_path):
    line = {**GOOD, "speaker": "ayu", "text": "映画は二時からです。駅の地下で上映されます。"}
    history = [{"speaker": "yana", "text": "カフェは混んでるかな？"}]
    write(tmp_path, "a.jsonl", [line, {**line, "id": "x-2", "history": history}])
    alone, after = (judge(example, load_rule_set()) for example in load_set(tmp_path))
    assert (alone.status, alone.codes) == ("PASS", ())
    assert (after.status, after.codes) == ("WARN", ("early_topic_change",))


def test_lines_marked_ambiguous_are_left_out_of_the_figures_and_listed(tmp_path):
    wrong = {**GOOD, "id": "x-2", "expected": "RETRY", "codes": ["setting"], "source": "heldout43"}
    write(tmp_path, "a.jsonl", [GOOD, {**wrong, "ambiguous": True}, {**GOOD, "id": "x-3", "ambiguous": False}])
    run = [sys.executable, "bench/director_quality.py", "--set", str(tmp_path), "--json"]
    figures = json.loads(subprocess.run(run, cwd=ROOT, capture_output=True, text=True, check=False).stdout)
    assert figures["examples"] == 2 and figures["statusAccuracy"] == 1.0 and not figures["mismatches"]
    assert figures["ambiguous"]["examples"] == 1 and figures["ambiguous"]["statusAgrees"] == 0
    assert figures["ambiguous"]["lines"][0]["id"] == "x-2" and figures["ambiguous"]["lines"][0]["label"] == "RETRY"
    text = subprocess.run(run[:-1], cwd=ROOT, capture_output=True, text=True, check=False).stdout
    assert "1 lines marked ambiguous" in text and "agrees with the label given on 0 of them" in text


def test_the_quality_bench_loads_no_framework():
    code = (
        "import sys\n"
        "from bench.director_quality import judge, load_set\n"
        "from director.rules import load_rule_set\n"
        "rules = load_rule_set()\n"
        "[judge(example, rules) for example in load_set()[:20]]\n"
        "print(','.join(sorted(n for n in sys.modules if n.split('.')[0] in ('django', 'rest_framework', 'celery'))))\n"
    )
    env = {key: value for key, value in os.environ.items() if key != "DJANGO_SETTINGS_MODULE"}
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True, env=env)
    assert result.stdout.strip() == ""
