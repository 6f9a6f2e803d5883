"""Rendering the figures loads no Django, DRF, Celery or statsmodels, and never pyplot (no window, no global state)."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
FORBIDDEN = ("django", "rest_framework", "celery", "statsmodels", "matplotlib.pyplot")

RENDER_ALL = """
import sys
from layer3.figures import FIGURES, FORMATS, render_figure
trial = {"generatedValueRelevance": {"evaluatedItems": 2, "avgScore": 1.5, "distribution": {"useful": 1}},
         "w2wrTypeDistribution": {"totalBindings": 2, "distribution": {"flow": 1, "meta": 0, "sync": 1}},
         "graphComplexity": {"nodeCount": 3, "edgeCount": 2, "density": 0.3333}}
for name in FIGURES:
    for fmt in FORMATS:
        for language in ("ja", "en"):
            assert render_figure(name, {"A": [trial, trial], "B": [trial]}, fmt=fmt, language=language)
loaded = [n for n in sys.modules if n.split(".")[0] in FORBIDDEN or n in FORBIDDEN]
print(",".join(sorted(loaded)))
"""


def test_rendering_every_figure_loads_no_framework_and_no_pyplot():
    check = f"FORBIDDEN = {FORBIDDEN!r}\n" + RENDER_ALL
    result = subprocess.run([sys.executable, "-c", check], cwd=ROOT, capture_output=True, text=True, check=True)
    assert result.stdout.strip() == ""
