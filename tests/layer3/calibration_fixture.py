"""Calibration reports written by hand in annotation's shape (issue 18), and a fake provider for them.

Layer3 only shows these reports, so its tests do not need annotation's engine: the figures below
have more decimals than the page shows, so that the tests see the rounding. ``calibration`` registers
a provider through ``core.judge_audits.register_calibration`` and puts the registry back afterwards.
"""

import copy

import pytest

SCRIPT = "<script>alert(1)</script>"
JUDGE_MODEL = "gpt-4o-mini"
GV_PROMPT = "layer3.gv_relevance@1"
W2WR_PROMPT = "layer3.w2wr_semantic@1"


def stat(value, low=None, high=None, reason=None):
    return {"value": value, "ci": None if low is None else [low, high], "reason": reason}


def estimate(value, low, high, n, se=0.04):
    return {"value": value, "se": se, "ci": [low, high], "n": n}


def _judge(model, prompt, *, baseline, kappa_humans, kappa, matrix, disagreements, bias):
    return {
        "model": model,
        "prompt": prompt,
        "baseline": baseline,
        "n": 180,
        "vsHumans": {"kappa": kappa_humans, "exact": stat(0.7012, 0.6533, 0.7478)},
        "vsConsensus": {
            "kappa": kappa,
            "ac2": stat(0.7723, 0.7105, 0.8302),
            "exact": stat(0.7611, 0.6944, 0.8222),
            "exactReweighted": stat(0.7436, 0.6721, 0.8104),
        },
        "vsAnnotators": [
            {
                "annotator": "ann_001",
                "n": 170,
                "kappa": stat(0.7245, 0.6402, 0.7991),
                "ac2": stat(0.7811, 0.7102, 0.8403),
                "exact": stat(0.7235, 0.6529, 0.7882),
            },
            {
                "annotator": "ann_002",
                "n": 165,
                "kappa": stat(0.6518, 0.5613, 0.7366),
                "ac2": stat(0.7354, 0.6607, 0.8015),
                "exact": stat(0.6848, 0.6121, 0.7515),
            },
            {
                "annotator": "ann_003",
                "n": 1,
                "kappa": stat(None, reason="only 1 common item(s); at least 2 needed"),
                "ac2": stat(None, reason="only 1 common item(s); at least 2 needed"),
                "exact": stat(1.0),
            },
        ],
        "confusion": {"rows": "judge", "columns": "consensus", "matrix": matrix},
        "biasByModelConfig": bias,
        "disagreements": disagreements,
    }


def gv_report(audit_id=7, created="2026-12-01T09:30:00+09:00"):
    """A GV audit of 200 items, 180 rated by three people: judge κ 0.71 [0.64, 0.78] vs human–human 0.74."""
    disagreements = [
        {
            "key": "A-00003:g2",
            "trialId": "A-00003",
            "modelConfig": "A",
            "judgeScore": 2,
            "judgeLabel": "useful",
            "reasoning": f"Specific to the concern {SCRIPT} & 50% | snake_case",
            "humanScores": [0, 0, 1],
            "context": {
                "concern": "転職の相談",
                "trialId": "A-00003",
                "itemId": "g2",
                "widgetId": "w1",
                "widgetType": "checklist",
                "portId": "items",
                "text": "給与 <b>交渉</b>",
                "widget": {},
            },
        },
        {
            "key": "C-00011:g0",
            "trialId": "C-00011",
            "modelConfig": "C",
            "judgeScore": 0,
            "judgeLabel": "not_relevant",
            "reasoning": "Unrelated to moving house.",
            "humanScores": [2, 2],
            "context": {
                "concern": "引っ越し",
                "trialId": "C-00011",
                "itemId": "g0",
                "widgetId": "w3",
                "widgetType": "list",
                "portId": "options",
                "text": "駅からの距離",
                "widget": {},
            },
        },
    ]
    bias = [
        {"modelConfig": "A", "n": 60, "meanDifference": 0.1389, "ci": [0.0214, 0.2533]},
        {"modelConfig": "B", "n": 60, "meanDifference": -0.0556, "ci": [-0.1702, 0.0611]},
        {"modelConfig": "C", "n": 60, "meanDifference": None, "ci": None},
    ]
    judge = _judge(
        JUDGE_MODEL,
        GV_PROMPT,
        baseline=False,
        kappa_humans=stat(0.7134, 0.6351, 0.7849),
        kappa=stat(0.6849, 0.6012, 0.7588),
        matrix=[[31, 8, 2], [6, 52, 11], [1, 9, 60]],
        disagreements=disagreements,
        bias=bias,
    )
    baseline = _judge(
        "baseline",
        "layer3.baseline@1",
        baseline=True,
        kappa_humans=stat(0.3121, 0.2004, 0.4187),
        kappa=stat(0.2893, 0.1752, 0.4012),
        matrix=[[20, 15, 10], [12, 30, 25], [6, 24, 38]],
        disagreements=[],
        bias=[],
    )
    return {
        "audit": {
            "id": audit_id,
            "name": "pilot GV audit",
            "kind": "gv",
            "batch": "pilot",
            "createdAt": created,
            "perItem": 3,
            "seed": 42,
            "requestedSize": 200,
            "items": 200,
            "ratedItems": 180,
            "completeItems": 150,
            "ratings": 510,
            "annotators": ["ann_001", "ann_002", "ann_003"],
        },
        "scale": [
            {"value": 0, "label": "not_relevant"},
            {"value": 1, "label": "generic"},
            {"value": 2, "label": "useful"},
        ],
        "consensusRule": "median of the people's scores; ties between two people go to the lower score",
        "humans": {
            "n": 150,
            "kappa": stat(0.7381, 0.6792, 0.7914),
            "alpha": stat(0.7290, 0.6601, 0.7903),
            "ac2": stat(0.8012, 0.7566, 0.8431),
            "exact": stat(0.6933, 0.6402, 0.7431),
            "pairs": [
                {"annotators": ["ann_001", "ann_002"], "n": 150, "kappa": stat(0.7512, 0.6801, 0.8133)},
                {"annotators": ["ann_001", "ann_003"], "n": 150, "kappa": stat(0.7303, 0.6587, 0.7942)},
                {"annotators": ["ann_002", "ann_003"], "n": 150, "kappa": stat(0.7328, 0.6622, 0.7970)},
            ],
        },
        "judges": [judge],
        "baseline": baseline,
        "rate": {
            "name": "usefulRate",
            "value": 2,
            "judgeBatch": {f"{JUDGE_MODEL}@{GV_PROMPT}": 0.62, "baseline@layer3.baseline@1": 0.4118},
            "judgeSample": estimate(0.6043, 0.5411, 0.6675, 180),
            "human": estimate(0.55, 0.47, 0.63, 180),
        },
    }


def w2wr_report(audit_id=5, created="2026-11-20T15:00:00+09:00"):
    """A W2WR audit just begun: one person has rated 12 of 40 bindings, so people cannot be compared yet."""
    undefined = "no item has two or more ratings, so no agreement statistic is defined"
    judge = _judge(
        JUDGE_MODEL,
        W2WR_PROMPT,
        baseline=False,
        kappa_humans=stat(0.5012, 0.2133, 0.7421),
        kappa=stat(0.5012, 0.2133, 0.7421),
        matrix=[[2, 1, 0], [0, 3, 1], [0, 1, 4]],
        disagreements=[
            {
                "key": "B-00002:b1",
                "trialId": "B-00002",
                "modelConfig": "B",
                "judgeScore": 2,
                "judgeLabel": "correct",
                "reasoning": "logical flow",
                "humanScores": [0],
                "context": {
                    "concern": "旅行",
                    "trialId": "B-00002",
                    "bindingId": "b1",
                    "description": "",
                    "source": {"widget": "w1", "type": "list", "port": "selected", "config": {}},
                    "target": {"widget": "w2", "type": "map", "port": "center", "config": None},
                },
            }
        ],
        bias=[{"modelConfig": "B", "n": 12, "meanDifference": 0.25, "ci": [-0.0833, 0.5833]}],
    )
    judge["n"] = 12
    return {
        "audit": {
            "id": audit_id,
            "name": "pilot W2WR audit",
            "kind": "w2wr",
            "batch": "pilot",
            "createdAt": created,
            "perItem": 2,
            "seed": 9,
            "requestedSize": 40,
            "items": 40,
            "ratedItems": 12,
            "completeItems": 0,
            "ratings": 12,
            "annotators": ["ann_001"],
        },
        "scale": [
            {"value": 0, "label": "wrong"},
            {"value": 1, "label": "redundant"},
            {"value": 2, "label": "correct"},
        ],
        "consensusRule": "median of the people's scores; ties between two people go to the lower score",
        "humans": {
            "n": 0,
            "kappa": stat(None, reason=undefined),
            "alpha": stat(None, reason=undefined),
            "ac2": stat(None, reason=undefined),
            "exact": stat(None, reason=undefined),
            "pairs": [],
        },
        "judges": [judge],
        "baseline": None,
        "rate": {
            "name": "correctnessRate",
            "value": 2,
            "judgeBatch": {f"{JUDGE_MODEL}@{W2WR_PROMPT}": 0.7143},
            "judgeSample": estimate(0.4167, 0.1667, 0.6667, 12),
            "human": estimate(0.3333, 0.0833, 0.5833, 12),
        },
    }


def hostile(report):
    """The report with markup and LaTeX/Markdown specials in every name a renderer prints."""
    report = copy.deepcopy(report)
    name = f"gpt|4_o %& {SCRIPT}"
    report["audit"]["name"] = f"audit_1 | 50% & {SCRIPT}"
    report["audit"]["batch"] = "b_1|%&"
    report["audit"]["annotators"] = ["ann|1", "ann_2%"]
    report["judges"][0]["model"] = name
    report["judges"][0]["vsAnnotators"][0]["annotator"] = f"x|y {SCRIPT}"
    report["judges"][0]["biasByModelConfig"][0]["modelConfig"] = "cfg|A_1 & 2%"
    report["humans"]["pairs"][0]["annotators"] = ["p|1", "p_2"]
    report["rate"]["judgeBatch"] = {f"{name}@{GV_PROMPT}": 0.62}
    return report


@pytest.fixture
def calibration(monkeypatch):
    """``{batch name: [reports, newest first]}``: what the fake annotation provider answers."""
    from core import judge_audits

    reports: dict[str, list[dict]] = {}
    monkeypatch.setattr(judge_audits, "_registry", dict(judge_audits._registry))  # put back after the test
    judge_audits.register_calibration(lambda batch: copy.deepcopy(reports.get(batch, [])))
    return reports
