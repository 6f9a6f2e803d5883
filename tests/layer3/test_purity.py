"""Layer3's pure modules load no Django, DRF, Celery (nor statsmodels, a test-only reference) when imported and used.

import-linter checks the imports statically (`make lint`); this runs them in a fresh interpreter, so
an import hidden in a function body or a plugin is caught too.
"""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FORBIDDEN = ("django", "rest_framework", "celery", "statsmodels")

USE_STATISTICS = """
from layer3.statistics import compare_model_configs
trial = {"graphComplexity": {"nodeCount": 3, "edgeCount": 2, "density": 0.3333}, "widgetDiversity": {"entropy": 1.2}}
other = {"graphComplexity": {"nodeCount": 5, "edgeCount": 4, "density": 0.2}, "widgetDiversity": {"entropy": 0.4}}
compare_model_configs({"A": [trial, other, trial], "B": [other, other, trial]}, correction="holm")
"""
USE_CHUNK = """
from datetime import UTC, datetime
from layer3.demo.generator import generate_trials
from layer3.exports.formats import iter_csv
from layer3.runs.chunk import TrialRow, evaluate_chunk
from layer3.runs.options import EvaluationOptions
from layer3.runs.plan import TrialState, count_plan, merge, plan_trial, requested_blocks
options = EvaluationOptions()
blocks = plan_trial(TrialState(), requested_blocks(options), force=False).compute
trials = enumerate(generate_trials(5))
rows = [TrialRow(i, t["id"], t["modelConfig"], t["inputText"], t["generatedData"], None, blocks) for i, t in trials]
outcome = evaluate_chunk(rows, now=datetime.now(UTC))
count_plan([("A", TrialState.of(m), 1) for _pk, m in outcome.written], options)
"".join(iter_csv({"id": str(pk), "modelConfig": "A", "layer3Metrics": m} for pk, m in outcome.written))
"""


@pytest.mark.parametrize(
    ("modules", "use"),
    [
        (["layer3.metrics", "layer3.metrics.batch"], ""),
        (["layer3.statistics"], USE_STATISTICS),
        (["layer3.exports.formats", "core.spreadsheet_cells"], ""),
        (
            [
                "layer3.judge.items",
                "layer3.judge.summaries",
                "layer3.runs.chunk",
                "layer3.runs.options",
                "layer3.runs.plan",
                "layer3.metrics.provenance",
                "layer3.metrics.catalogue",
            ],
            USE_CHUNK,
        ),
        (["layer3.demo.generator", "layer3.io.trials"], ""),
    ],
)
def test_pure_modules_load_no_framework(modules, use):
    check = (
        "import sys\n"
        + "".join(f"import {module}\n" for module in modules)
        + use
        + f"\nprint(','.join(sorted(n for n in sys.modules if n.split('.')[0] in {FORBIDDEN!r})))\n"
    )
    result = subprocess.run([sys.executable, "-c", check], cwd=ROOT, capture_output=True, text=True, check=True)
    assert result.stdout.strip() == ""
