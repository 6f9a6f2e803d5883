"""The rules engine is a pure package: no Django, DRF or Celery, and nothing reloaded per call."""

import subprocess
import sys
from pathlib import Path

from director.rules import check_utterance, schema
from director.rules.analyser import get_analyser

ROOT = Path(__file__).resolve().parents[3]
FORBIDDEN = ("django", "rest_framework", "celery")

USE = """
import sys
import director.rules
from director.rules import CHARACTERS, check_utterance, load_rule_set
rules = load_rule_set()
check_utterance("まだ未成年じゃないよね!!", speaker="やな", rules=rules).to_dict()
check_utterance("あなたの答えは正しいです、完璧ですね。", speaker="あゆ", rules=rules, language="en").to_dict()
dict(CHARACTERS)
print(",".join(sorted(n for n in sys.modules if n.split(".")[0] in {forbidden!r})))
"""


def test_importing_and_using_the_rules_loads_no_framework():
    code = USE.format(forbidden=FORBIDDEN)
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert result.stdout.strip() == ""


def test_checking_reads_no_file(rules, monkeypatch):
    def refuse(path):
        raise AssertionError(f"read {path} during a check")

    monkeypatch.setattr(schema, "read_yaml", refuse)
    assert check_utterance("そっか、いいよね！", "やな", rules).status == "PASS"


def test_the_analyser_is_built_once_per_process():
    assert get_analyser() is get_analyser()
