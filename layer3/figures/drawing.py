"""What both figures share: the language drawn, its words, and text artists that never read data as markup."""

from __future__ import annotations

import re
import textwrap
import unicodedata
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

    def judge(self, label: str, width: int) -> str:
        """A judge label (``kind:model:prompt``, data) on lines of at most ``width`` characters, broken after
        its colons where it can be: it has no spaces for ``textwrap`` to break at."""
        return wrap_after_colons(" ".join(self.data(label).split()), width)


def wrap_after_colons(text: str, width: int) -> str:
    """``text`` in lines of at most ``width`` characters, each ending after a colon where possible."""
    lines: list[str] = []
    current = ""
    for piece in re.findall(r"[^:]*:|[^:]+$", text):
        if current and len(current) + len(piece) > width:
            lines.append(current)
            current = ""
        current += piece
    lines.append(current)
    return "\n".join(line[start : start + width] for line in lines for start in range(0, max(len(line), 1), width))


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


SUBTITLE_LINE = 12  # points between the grey lines under the title


def text_inches(text: str, points: float) -> float:
    """A rough width of one line of ``text`` at ``points``: half an em per narrow character, an em per wide one
    (CJK), enough to size a figure or break a line before matplotlib has drawn it."""
    em = points / 72
    return sum(em if unicodedata.east_asian_width(c) in "WF" else 0.55 * em for c in text)


def fitted_note(text: str, width: float, points: float = NOTE_SIZE) -> str:
    """A note under the figure (``"… interval (…). n = …"``), broken before its ``n = …`` when one line would
    not fit in ``width`` inches (a narrow figure would cut it at both ends)."""
    if text_inches(text, points) <= width - 0.3:
        return text
    return re.sub(r"([.。])\s*(n = )", "\\1\n\\2", text, count=1)


def titles(axes: Axes, title: str, batch_label: str, judge_line: str = "") -> None:
    """The figure's title over the plot and, under it in grey, the batch label (data, drawn literally) and the
    judge line of a judged metric; all centred on the plot, not the figure, so that they line up with each other
    and with the bars. Each grey text is drawn on one line: the title's padding leaves room for one each."""
    lines = [line for line in (" ".join(text.split()) for text in (batch_label, judge_line)) if line]
    axes.set_title(title, fontsize=10.5, pad=8 + SUBTITLE_LINE * len(lines))
    for index, line in enumerate(reversed(lines)):  # from the plot up
        above = offset_copy(axes.transAxes, fig=axes.figure, y=5 + SUBTITLE_LINE * index, units="points")
        plain_text(axes, 0.5, 1, line, transform=above, ha="center", va="bottom", fontsize=8.5, color=NOTE_COLOR)
