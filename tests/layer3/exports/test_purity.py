"""layer3.exports and core.spreadsheet_cells are pure: importing them loads no Django, DRF or Celery."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

CHECK = """
import sys
import core.spreadsheet_cells
import layer3.exports.formats
loaded = sorted(
    name for name in sys.modules
    if name.split(".")[0] in {"django", "rest_framework", "celery"}
)
print(",".join(loaded))
"""


def test_importing_the_exports_imports_no_django():
    result = subprocess.run([sys.executable, "-c", CHECK], cwd=ROOT, capture_output=True, text=True, check=True)
    assert result.stdout.strip() == ""
