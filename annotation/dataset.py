"""Ratings as arrays: the shape the statistics, the merge and the outlier checks work on (pure numpy).

For each axis a matrix ``scores[axis][item, rater]`` of int8 with 0 for "not rated", and the
matching confidences (NaN where not rated). Item and rater ids keep their first-seen order.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from annotation.axes import AXES
from annotation.records import AnnotationRecord


@dataclass
class RatingSet:
    item_ids: list[str]
    rater_ids: list[str]
    scores: dict[str, np.ndarray]  # (n_items, n_raters) int8, 0 = missing
    confidence: dict[str, np.ndarray]  # (n_items, n_raters) float64, NaN = missing
    seconds: np.ndarray  # (n_items, n_raters) float64, NaN = missing or unknown
    epoch: np.ndarray  # (n_items, n_raters) float64 seconds since 1970, NaN = missing

    @property
    def n_items(self) -> int:
        return len(self.item_ids)

    @property
    def n_raters(self) -> int:
        return len(self.rater_ids)

    @property
    def rated(self) -> np.ndarray:
        """(n_items, n_raters) bool: the rater rated the item."""
        return self.scores[AXES[0]] > 0


def rating_set(records: Iterable[AnnotationRecord]) -> RatingSet:
    records = list(records)
    item_index: dict[str, int] = {}
    rater_index: dict[str, int] = {}
    rows = np.empty(len(records), dtype=np.int64)
    cols = np.empty(len(records), dtype=np.int64)
    values = np.empty((len(records), len(AXES)), dtype=np.int8)
    confidences = np.empty((len(records), len(AXES)), dtype=np.float64)
    seconds = np.full(len(records), np.nan)
    epoch = np.empty(len(records), dtype=np.float64)
    for n, record in enumerate(records):
        rows[n] = item_index.setdefault(record.id, len(item_index))
        cols[n] = rater_index.setdefault(record.annotator_id, len(rater_index))
        scores, confidence = record.scores, record.confidence
        values[n] = [scores[axis] for axis in AXES]
        confidences[n] = [confidence[axis] for axis in AXES]
        if record.seconds_spent is not None:
            seconds[n] = record.seconds_spent
        epoch[n] = record.timestamp.timestamp()
    shape = (len(item_index), len(rater_index))
    score_matrices, confidence_matrices = {}, {}
    for k, axis in enumerate(AXES):
        matrix = np.zeros(shape, dtype=np.int8)
        matrix[rows, cols] = values[:, k]
        score_matrices[axis] = matrix
        conf = np.full(shape, np.nan)
        conf[rows, cols] = confidences[:, k]
        confidence_matrices[axis] = conf
    seconds_matrix = np.full(shape, np.nan)
    seconds_matrix[rows, cols] = seconds
    epoch_matrix = np.full(shape, np.nan)
    epoch_matrix[rows, cols] = epoch
    return RatingSet(
        item_ids=list(item_index),
        rater_ids=list(rater_index),
        scores=score_matrices,
        confidence=confidence_matrices,
        seconds=seconds_matrix,
        epoch=epoch_matrix,
    )
