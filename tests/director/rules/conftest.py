"""Shared set-up of the rules engine tests: the default rule set, loaded once."""

import pytest

from director.rules import check_utterance, load_rule_set


@pytest.fixture(scope="session")
def rules():
    return load_rule_set()


@pytest.fixture
def check(rules):
    """``check(text, speaker="ayu", **options)``: ``check_utterance`` with the default rule set."""

    def run(text: str, speaker: str = "ayu", **options):
        return check_utterance(text, speaker, rules, **options)

    return run
