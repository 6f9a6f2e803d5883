"""The tables of the monthly feedback pages, from a month's content (as :mod:`annotation.feedback.compute` makes it)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from annotation.axes import AXES
from annotation.guidelines.scale import AXIS_NAMES
from annotation.models import QualityFlag


def axis_rows(person: dict) -> list[dict]:
    """One row per axis: kappa with the consensus and with the rest, bias, straight-lining."""
    return [{"axis": axis, "label": AXIS_NAMES[axis], **person["axes"][axis]} for axis in AXES]


def pair_rows(person: dict) -> list[dict]:
    """One row per other annotator: their pair kappa with this annotator on each axis (None: no common item)."""
    others: dict[str, dict[str, dict]] = {}
    for axis in AXES:
        for pair in person["axes"][axis]["pairs"]:
            others.setdefault(pair["other"], {})[axis] = pair
    return [{"other": other, "cells": [cells.get(axis) for axis in AXES]} for other, cells in sorted(others.items())]


def month_axes(content: dict) -> list[dict]:
    """The month's agreement per axis (all annotators): kappa, CI, items, alpha."""
    return [
        {"axis": axis, "label": AXIS_NAMES[axis], **content["axes"][axis]} for axis in AXES if axis in content["axes"]
    ]


def flag_counts(flags: Sequence[QualityFlag]) -> dict[str, int]:
    counts = {status: 0 for status in QualityFlag.Status.values}
    for flag in flags:
        counts[flag.status] = counts.get(flag.status, 0) + 1
    return {"total": len(flags), **counts}


def overview_rows(content: dict, flags: Mapping[str, Sequence[QualityFlag]]) -> list[dict]:
    """One row per annotator of the month, for the meeting's table and its CSV."""
    rows = []
    for name in content["annotators"]:
        person = content["people"][name]
        axes = person["axes"]
        biased = [(axis, axes[axis]["bias"]["mean"]) for axis in AXES if axes[axis]["bias"]["mean"] is not None]
        largest = max(biased, key=lambda pair: abs(pair[1]), default=None)
        rows.append(
            {
                "name": name,
                "n_ratings": person["n_ratings"],
                "n_shared": person["n_shared"],
                "kappa_consensus_mean": person["kappa_consensus_mean"],
                "kappa_rest_mean": person["kappa_rest_mean"],
                "consensus": [axes[axis]["vs_consensus"] for axis in AXES],
                "rest": [axes[axis]["vs_rest"]["kappa"] for axis in AXES],
                "bias": [axes[axis]["bias"]["mean"] for axis in AXES],
                "largest_bias_axis": largest[0] if largest else None,
                "largest_bias_label": AXIS_NAMES[largest[0]] if largest else None,
                "largest_bias": largest[1] if largest else None,
                "straight_axes": [axis for axis in AXES if axes[axis]["straight_lining"]["flagged"]],
                "median_seconds": person["speed"]["median_seconds"],
                "fast_share": person["speed"]["fast_share"],
                "flags": flag_counts(flags.get(name, ())),
            }
        )
    return rows
