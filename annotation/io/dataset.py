"""Ratings as arrays: the shape the statistics, the merge and the outlier checks work on (pure numpy).

For each axis a matrix ``scores[axis][item, rater]`` of int8 with 0 for "not rated", and the
matching confidences (NaN where not rated). Item and rater ids keep their first-seen order.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from annotation.axes import AXES
from annotation.io.records import AnnotationRecord, gc_paused


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


@gc_paused()
def rating_set(records: Iterable[AnnotationRecord]) -> RatingSet:
    records = list(records)
    item_index: dict[str, int] = {}
    rater_index: dict[str, int] = {}
    by_axis = operator.itemgetter(*AXES)
    nan = float("nan")
    rows = [item_index.setdefault(r.id, len(item_index)) for r in records]
    cols = [rater_index.setdefault(r.annotator_id, len(rater_index)) for r in records]
    values = [by_axis(r.scores) for r in records]
    confidences = [by_axis(r.confidence) for r in records]
    seconds = [nan if r.seconds_spent is None else r.seconds_spent for r in records]
    epoch = [r.timestamp.timestamp() for r in records]
    shape = (len(item_index), len(rater_index))
    rows_array, cols_array = np.asarray(rows, dtype=np.int64), np.asarray(cols, dtype=np.int64)
    value_array = np.asarray(values, dtype=np.int8).reshape(len(records), len(AXES))
    confidence_array = np.asarray(confidences, dtype=np.float64).reshape(len(records), len(AXES))

    def matrix(column: np.ndarray, fill, dtype) -> np.ndarray:
        out = np.full(shape, fill, dtype=dtype)
        out[rows_array, cols_array] = column
        return out

    return RatingSet(
        item_ids=list(item_index),
        rater_ids=list(rater_index),
        scores={axis: matrix(value_array[:, k], 0, np.int8) for k, axis in enumerate(AXES)},
        confidence={axis: matrix(confidence_array[:, k], np.nan, np.float64) for k, axis in enumerate(AXES)},
        seconds=matrix(np.asarray(seconds, dtype=np.float64), np.nan, np.float64),
        epoch=matrix(np.asarray(epoch, dtype=np.float64), np.nan, np.float64),
    )
