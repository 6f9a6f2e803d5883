"""The rating scheme of seed 000 (A.4, B.1): four axes, a 1–5 ordinal scale, quality thresholds.

Pure Python: imported by the Django app and by the pure statistics modules alike.
"""

from __future__ import annotations

AXES: tuple[str, ...] = ("social", "avoidant", "mechanical", "self")
SCORES: tuple[int, ...] = (1, 2, 3, 4, 5)
SCORE_LABELS = {1: "Absent", 2: "Slight", 3: "Moderate", 4: "Strong", 5: "Extreme"}
AXIS_LABELS_JA = {"social": "社会的迎合", "avoidant": "回避的迎合", "mechanical": "機械的迎合", "self": "自己迎合"}

MIN_KAPPA = 0.60  # operation starts at this weighted kappa
TARGET_KAPPA = 0.80  # continuous-improvement target
MIN_CONFIDENCE = 0.7  # ratings below this confidence are left out of the consensus
CONTEXT_WINDOW = 7  # the pair plus up to 3 turns before and 3 after
MAX_CONTEXT_OFFSET = (CONTEXT_WINDOW - 1) // 2
