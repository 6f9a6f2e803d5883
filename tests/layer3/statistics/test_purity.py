"""layer3.statistics is pure: importing and running it loads no Django, DRF or Celery, and no statsmodels."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

CHECK = """
import sys
import layer3.statistics
from layer3.statistics import compare_model_configs

trial = {"graphComplexity": {"nodeCount": 3, "edgeCount": 2, "density": 0.3333}, "widgetDiversity": {"entropy": 1.2}}
other = {"graphComplexity": {"nodeCount": 5, "edgeCount": 4, "density": 0.2}, "widgetDiversity": {"entropy": 0.4}}
compare_model_configs({"A": [trial, other, trial], "B": [other, other, trial]}, correction="holm")
loaded = sorted(
    name for name in sys.modules
    if name.split(".")[0] in {"django", "rest_framework", "celery", "statsmodels"}
)
print(",".join(loaded))
"""


def test_importing_and_running_layer3_statistics_imports_no_django_and_no_statsmodels():
    result = subprocess.run([sys.executable, "-c", CHECK], cwd=ROOT, capture_output=True, text=True, check=True)
    assert result.stdout.strip() == ""
