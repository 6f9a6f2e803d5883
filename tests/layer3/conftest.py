import json

import pytest

from layer3.demo.generator import generate_trials
from tests.fakes.openai_server import Reply
from tests.llm.conftest import fake_llm  # noqa: F401 - the fake OpenAI endpoint, shared with the llm tests


def write_trials(path, trials):
    path.write_text("".join(json.dumps(t, ensure_ascii=False) + "\n" for t in trials), encoding="utf-8")
    return path


@pytest.fixture
def trials_file(tmp_path):
    """Twenty generated trials over A–E, one with broken generated data, one at stage 2 (not a target)."""
    trials = generate_trials(20, seed=7, broken_share=0.0)
    trials[3]["generatedData"]["reactiveBindings"]["bindings"] = [{"id": "b1", "source": "nodot", "target": "w1.x"}]
    trials[4]["stage"] = 2
    return write_trials(tmp_path / "trials.jsonl", trials)


def judge_reply(request: dict) -> Reply:
    """A fake judge that answers each Layer3 prompt in its own scale (W2WR: correct; GV: by the text)."""
    user = "\n".join(message["content"] for message in request["messages"])  # a re-ask repeats the question
    if "連携接続" in user:
        return Reply.json({"score": 2, "label": "correct", "reasoning": "logical flow"})
    if "項目" in user or "選択肢" in user:
        return Reply.json({"score": 1, "label": "generic", "reasoning": "fits any concern"})
    return Reply.json({"score": 2, "label": "useful", "reasoning": "specific"})
