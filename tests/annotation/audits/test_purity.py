"""The judge audits' pure modules load no Django, DRF or Celery when imported and used (fresh interpreter)."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
FORBIDDEN = ("django", "rest_framework", "celery", "statsmodels")

USE_SAMPLING = """
from annotation.audits.sampling import stratified_proportion, stratified_sample
units = [(f"t{i}:g{j}", ("A" if i % 2 else "B", j % 3)) for i in range(20) for j in range(3)]
sample = stratified_sample(units, size=24, seed=7)
stratified_proportion(sample, {unit.key: unit.key.endswith("g1") for unit in sample.units})
"""


@pytest.mark.parametrize(("modules", "use"), [(["annotation.audits.sampling"], USE_SAMPLING)])
def test_pure_modules_load_no_framework(modules, use):
    check = (
        "import sys\n"
        + "".join(f"import {module}\n" for module in modules)
        + use
        + f"\nprint(','.join(sorted(n for n in sys.modules if n.split('.')[0] in {FORBIDDEN!r})))\n"
    )
    result = subprocess.run([sys.executable, "-c", check], cwd=ROOT, capture_output=True, text=True, check=True)
    assert result.stdout.strip() == ""
