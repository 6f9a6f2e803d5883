"""``w2wr-types``: per model configuration, the shares of flow / meta / sync / unknown W2WR bindings.

The shares are binding-weighted, as the batch figures ``flowRate`` / ``metaRate`` / ``syncRate`` of
``layer3.metrics.batch``: each type's bindings over all bindings of the model config's trials, from the
counts of ``model_samples`` (``W2WR_FR`` / ``W2WR_MR`` / ``W2WR_SYR`` share one denominator, and unknown is
what the three leave of it). The four shares of a bar add up to 1.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import Patch
from matplotlib.ticker import PercentFormatter
from matplotlib.transforms import offset_copy

from layer3.figures.drawing import NOTE_COLOR, NOTE_SIZE, Page, literal_tick_labels, plain_text, titles
from layer3.statistics.samples import ModelSamples

# (type, colour, colour of the share printed on it): Okabe–Ito colours, grey for unknown.
TYPE_STYLES = (
    ("flow", "#0072B2", "white"),
    ("meta", "#E69F00", "black"),
    ("sync", "#009E73", "white"),
    ("unknown", "#BBBBBB", "black"),
)
MIN_PRINTED_SHARE = 0.06  # narrower segments would not hold their percentage
LABEL_WIDTH = 24  # characters of a model label per line beside its bar


def type_counts(samples: ModelSamples) -> tuple[dict[str, int], int]:
    """``({type: bindings}, all bindings)`` of one model config."""
    flow, meta, sync = (samples.counts[m] for m in ("W2WR_FR", "W2WR_MR", "W2WR_SYR"))
    total = flow.n
    counts = {"flow": flow.successes, "meta": meta.successes, "sync": sync.successes}
    counts["unknown"] = total - sum(counts.values())
    return counts, total


def draw_w2wr_types(figure: Figure, samples: Mapping[str, ModelSamples], *, page: Page, batch_label: str) -> None:
    labels = [page.data(label, LABEL_WIDTH) for label in samples]
    counts = [type_counts(model) for model in samples.values()]
    figure.set_size_inches(6.4, max(2.6, 1.6 + 0.42 * len(labels)))
    axes = figure.add_subplot()
    positions = np.arange(len(labels), dtype=float)

    left = np.zeros(len(labels))
    totals = np.array([total for _, total in counts], dtype=float)
    for kind, color, ink in TYPE_STYLES:
        shares = np.divide(
            [c[kind] for c, _ in counts], totals, out=np.zeros(len(labels)), where=totals > 0, dtype=float
        )
        axes.barh(positions, shares, left=left, height=0.62, color=color, zorder=2)
        for y, start, share in zip(positions, left, shares, strict=True):
            if share >= MIN_PRINTED_SHARE:
                text = f"{share:.0%}"
                plain_text(axes, start + share / 2, y, text, ha="center", va="center", color=ink, fontsize=7.5)
        left += shares

    axes.set_xlim(0, 1)
    axes.set_ylim(max(len(labels), 1) - 0.5, -0.5)  # the first model config on top
    axes.xaxis.set_major_formatter(PercentFormatter(xmax=1, decimals=0))
    literal_tick_labels(axes.yaxis, positions, labels)
    axes.tick_params(axis="y", length=0)
    after_axis = offset_copy(axes.get_yaxis_transform(), fig=figure, x=5, units="points")
    for y, (_, total) in zip(positions, counts, strict=True):
        plain_text(axes, 1, y, f"n={total}", transform=after_axis, ha="left", va="center", fontsize=NOTE_SIZE)
        if total == 0:
            note = page.word("no_data")
            plain_text(axes, 0.01, y, note, ha="left", va="center", color=NOTE_COLOR, fontsize=NOTE_SIZE)
    if not labels:
        plain_text(axes, 0.5, 0.5, page.word("no_data"), transform=axes.transAxes, ha="center", color=NOTE_COLOR)

    axes.set_xlabel(page.word("types_axis"))
    axes.set_ylabel(page.word("model_config"))
    titles(axes, page.word("types_title"), page.data(batch_label))
    # Beside the plot, top to bottom in the order of the segments left to right; below it is the note.
    # Handles of their own: the bars' would lose their colour when no model config has bindings.
    handles = [Patch(facecolor=color, label=page.word(kind)) for kind, color, _ in TYPE_STYLES]
    figure.legend(handles=handles, loc="outside right upper", frameon=False)
    figure.supxlabel(page.word("types_note"), fontsize=NOTE_SIZE, color=NOTE_COLOR)
