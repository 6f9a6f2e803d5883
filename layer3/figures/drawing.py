"""What both figures share: the language drawn, its words, and text artists that never read data as markup."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from dataclasses import dataclass

from matplotlib.axes import Axes
from matplotlib.axis import Axis
from matplotlib.text import Text
from matplotlib.transforms import offset_copy

from layer3.figures.fonts import printable
from layer3.figures.labels import TEXTS

BAR_COLOR = "#0072B2"  # Okabe–Ito blue: legible in colour, greyscale and for colour-blind readers
NOTE_COLOR = "0.35"
NOTE_SIZE = 7.5


@dataclass(frozen=True)
class Page:
    """The language a figure is drawn in (after the font fallback) and the font families drawing it."""

    language: str
    families: tuple[str, ...]

    def word(self, key: str) -> str:
        return TEXTS[self.language][key]

    def data(self, text: str, width: int | None = None) -> str:
        """A model or batch label as given, with characters no font can draw replaced by "?" and, given a
        ``width``, lines longer than that many characters wrapped (long model labels would overlap)."""
        text = printable(str(text), list(self.families))
        if width is None:
            return text
        return "\n".join(textwrap.fill(line, width) for line in text.splitlines())


def plain_text(axes: Axes, x: float, y: float, text: str, **properties) -> Text:
    """A text artist drawn literally: no mathtext for ``$`` and no TeX, whatever the label holds."""
    return axes.text(x, y, text, parse_math=False, usetex=False, **properties)


def literal_tick_labels(axis: Axis, positions: Sequence[float], labels: Sequence[str]) -> None:
    """Fixed ticks at ``positions`` labelled literally: tick labels read "$…$" as mathtext unless told not to.

    The axis keeps reusing these tick objects as long as the number of ticks does not change, which a fixed
    locator guarantees; new ticks would not inherit the setting."""
    axis.set_ticks(positions, labels=labels)
    for tick in axis.get_major_ticks(len(positions)):
        for label in (tick.label1, tick.label2):
            label.set_parse_math(False)
            label.set_usetex(False)


def metric_title(name: str, metric: str, language: str) -> str:
    return f"{name}（{metric}）" if language == "ja" else f"{name} ({metric})"


def titles(axes: Axes, title: str, batch_label: str) -> None:
    """The figure's title over the plot and, under it in grey, the batch label (data, drawn literally);
    both centred on the plot, not the figure, so that they line up with each other and with the bars."""
    batch_label = " ".join(batch_label.split())  # one line: the title's padding leaves room for one
    if not batch_label:
        axes.set_title(title, fontsize=10.5, pad=8)
        return
    axes.set_title(title, fontsize=10.5, pad=20)
    above = offset_copy(axes.transAxes, fig=axes.figure, y=5, units="points")
    plain_text(axes, 0.5, 1, batch_label, transform=above, ha="center", va="bottom", fontsize=8.5, color=NOTE_COLOR)
