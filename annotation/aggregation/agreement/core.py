"""Input validation and shared building blocks of the agreement statistics.

Pure Python + numpy; no Django import. The public entry point is :mod:`annotation.aggregation.agreement`.

A ratings matrix holds ONE axis: shape (n_items, n_raters), integer dtype, every value either one of
``categories`` or ``missing`` (the missing-rating sentinel, default 0). A scale that includes 0 (the judge audit
scales, 0..2) needs another sentinel, named by the caller (``missing=JUDGE_MISSING``, i.e. -1): the sentinel is
never guessed, so a 0 rating can never be read as missing. Internally ratings are turned into category
*indices* (0..K-1, ``-1`` = missing).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

#: Seed 000's sycophancy axes: 1 = "Absent" .. 5. The default scale of every statistic (``CATEGORIES``).
SYCOPHANCY_SCALE: tuple[int, ...] = (1, 2, 3, 4, 5)
CATEGORIES = SYCOPHANCY_SCALE
#: Missing rating on the default scale (0 is not a sycophancy score).
MISSING = 0
#: The LLM-judge audit scales of seed 002 (§2.2.1: 0 not_relevant / 1 generic / 2 useful; §2.2.3: 0 wrong /
#: 1 redundant / 2 correct), and their missing-rating sentinel: 0 is a rating there.
JUDGE_SCALE: tuple[int, ...] = (0, 1, 2)
JUDGE_MISSING = -1

_INVALID = -2  # index of a value that is neither a category nor missing
_LOOKUP_LIMIT = 1 << 16  # widest value range (max - min) handled by the look-up table fast path

#: (value or None, reason or None): the value is None exactly when the statistic is undefined, and then
#: the reason says why. Values are plain Python floats, never NaN.
Result = tuple[float | None, str | None]


def check_scale(categories: Sequence[int]) -> np.ndarray:
    """Return ``categories`` as an int64 array after checking it is a usable ordinal scale."""
    cats = np.asarray(categories)
    if cats.ndim != 1 or cats.size < 2:
        raise ValueError(f"categories must be a flat sequence of at least two integers; got {categories!r}")
    if not np.issubdtype(cats.dtype, np.integer):
        raise ValueError(f"categories must be integers; got dtype {cats.dtype} ({categories!r})")
    if np.any(np.diff(cats) <= 0):
        raise ValueError(f"categories must be strictly increasing; got {categories!r}")
    return cats.astype(np.int64)


def check_categories(categories: Sequence[int], missing: int = MISSING) -> np.ndarray:
    """:func:`check_scale`, and check that the sentinel ``missing`` is an integer outside the scale."""
    cats = check_scale(categories)
    if isinstance(missing, bool) or not isinstance(missing, int | np.integer):
        raise ValueError(f"missing (the value of a missing rating) must be an integer; got {missing!r}")
    if np.any(cats == missing):
        raise ValueError(
            f"{missing} means 'missing' and cannot be a category; got categories {categories!r}: pass another "
            f"missing= value outside the scale, e.g. missing={int(cats[0]) - 1}"
        )
    return cats


def check_ratings(
    ratings: np.ndarray, categories: Sequence[int] = CATEGORIES, *, missing: int = MISSING
) -> tuple[np.ndarray, np.ndarray]:
    """Validate a ratings matrix and map it to category indices.

    Returns ``(idx, cats)``: ``idx`` has the shape of ``ratings`` with the index of each rating in ``cats``
    (0..K-1) and ``-1`` where the rating equals ``missing`` (a small integer dtype: cast before arithmetic);
    ``cats`` is the validated category array.
    """
    cats = check_categories(categories, missing)
    missing = int(missing)
    arr = np.asarray(ratings)
    if arr.ndim != 2:
        raise ValueError(f"ratings must be a 2-D array (n_items, n_raters); got shape {arr.shape}")
    if arr.size == 0:
        return np.full(arr.shape, -1, dtype=np.int8), cats
    if not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"ratings must have an integer dtype ({missing} = missing); got {arr.dtype}")
    # Indices are stored in int8 (scales have few categories): it keeps the passes over large matrices cheap.
    index_dtype = np.int8 if cats.size <= 127 else np.int64
    low = min(int(arr.min()), int(cats[0]), missing, 0)
    top = max(int(arr.max()), int(cats[-1]), missing, 0)
    if top - low <= _LOOKUP_LIMIT:
        # Fast path (the usual case): one look-up table over low..top, indexed by the ratings themselves.
        # Negative values index it from the end (numpy's rule for any negative index), so the table holds
        # the values 0..top, then low..-1: a sentinel of -1 costs no shifted copy of the ratings.
        lookup = np.full(top - low + 1, _INVALID, dtype=index_dtype)
        lookup[cats] = np.arange(cats.size)
        lookup[missing] = -1
        idx = lookup[arr]
    else:
        wide = arr.astype(np.int64)
        pos = np.searchsorted(cats, wide)
        found = cats[np.minimum(pos, cats.size - 1)] == wide
        idx = np.where(wide == missing, -1, np.where(found, pos, _INVALID)).astype(index_dtype)
    if idx.min() == _INVALID:
        bad = idx == _INVALID
        shown = np.unique(arr[bad])[:10].tolist()
        raise ValueError(
            f"ratings contain {int(bad.sum())} value(s) outside categories {cats.tolist()} and {missing} "
            f"(missing): {shown}"
        )
    return idx, cats


def observed_entries(idx: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(item, rater, category index) of every given rating, item by item and, within an item, by rater."""
    ravelled = idx.ravel()
    flat = np.flatnonzero(ravelled >= 0)  # much faster than a 2-D np.nonzero
    items, raters = np.divmod(flat, idx.shape[1])
    return items, raters, ravelled[flat].astype(np.int64)


def item_category_counts(idx: np.ndarray, n_categories: int) -> np.ndarray:
    """Per-item category counts, shape (n_items, K): entry (i, k) = number of raters giving category k to item i."""
    return item_tallies(idx, n_categories)[0]


def item_tallies(idx: np.ndarray, n_categories: int) -> tuple[np.ndarray, np.ndarray]:
    """Per-item category counts (n_items, K) and number of ratings per item (n_items,), in one pass."""
    n_items = idx.shape[0]
    items, _, cats = observed_entries(idx)
    counts = np.bincount(items * n_categories + cats, minlength=n_items * n_categories)
    return counts.reshape(n_items, n_categories), np.bincount(items, minlength=n_items)


def pair_index(rater_a: np.ndarray, rater_b: np.ndarray, n_raters: int) -> np.ndarray:
    """Position of the pair (a, b), a < b, in ``np.triu_indices(n_raters, 1)`` order."""
    return rater_a * (2 * n_raters - rater_a - 1) // 2 + (rater_b - rater_a - 1)


def same_item_pairs(items: np.ndarray) -> Iterator[tuple[int, np.ndarray]]:
    """Pairs of observed ratings that belong to the same item, offset by offset.

    ``items`` is sorted (as returned by :func:`observed_entries`). Yields ``(d, first)``: entries ``first`` and
    ``first + d`` are two ratings of the same item, the first by the lower rater index. The Python loop runs
    at most (max ratings per item - 1) times, whatever the number of items.
    """
    d = 1
    while d < items.size:
        first = np.flatnonzero(items[:-d] == items[d:])
        if first.size == 0:
            return  # items are sorted: no entries d apart share an item, so none further apart do
        yield d, first
        d += 1


def rating_pairs(idx: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every pair of ratings given to the same item by two raters: ``(item, rater_a, rater_b, cat_a, cat_b)``.

    ``rater_a < rater_b``; pairs are listed by offset between the two ratings, not by item.
    """
    items, raters, cats = observed_entries(idx)
    offsets = list(same_item_pairs(items))
    e1 = np.concatenate([f for _, f in offsets]) if offsets else np.zeros(0, dtype=np.int64)
    e2 = np.concatenate([f + d for d, f in offsets]) if offsets else np.zeros(0, dtype=np.int64)
    return items[e1], raters[e1], raters[e2], cats[e1], cats[e2]


def ratings_per_item(idx: np.ndarray) -> np.ndarray:
    """Number of given (non-missing) ratings of each item."""
    if idx.shape[1] == 0:
        return np.zeros(idx.shape[0], dtype=np.int64)
    flat = np.flatnonzero(idx.ravel() >= 0)  # faster than a sum along the short rater axis
    return np.bincount(flat // idx.shape[1], minlength=idx.shape[0])
