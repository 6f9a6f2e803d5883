"""Heavy libraries are imported where they are used, never at Django start-up (issue 31)."""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# scikit-learn, openai, scipy and pandas cost ~2 s together at every start of every process before issue 31.
# redis-py (40 ms) only where Redis is used (llm.limits' RedisLimits, the health check).
HEAVY = (
    "sklearn", "openai", "matplotlib", "sudachipy", "scipy", "statsmodels", "krippendorff", "openpyxl", "pandas",
    "redis", "threadpoolctl",
)  # fmt: skip

SETUP = """
import json, sys
import django
django.setup()
print(json.dumps(sorted({name.split(".")[0] for name in sys.modules})))
"""


def test_django_setup_imports_none_of_the_heavy_libraries():
    env = {**os.environ, "DEBUG": "1", "DJANGO_SETTINGS_MODULE": "config.settings"}
    done = subprocess.run(
        [sys.executable, "-c", SETUP], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    loaded = set(json.loads(done.stdout.strip().splitlines()[-1]))
    assert loaded & set(HEAVY) == set(), f"imported at django.setup(): {sorted(loaded & set(HEAVY))}"
    assert "django" in loaded and "annotation" in loaded  # the set-up really ran
