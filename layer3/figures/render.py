"""``render_figure``: one figure of a batch's Layer3 results as SVG, PNG (300 dpi) or PDF bytes.

Only matplotlib's object-oriented API: a ``Figure`` on an Agg canvas, never ``pyplot``, so no window and no
global figure registry. The rcParams that fonts and output need are set with ``rc_context``, which changes
matplotlib's process-wide settings for its duration; a lock makes one render at a time, so that renders in
the threads of a web server cannot see each other's settings.

The output is deterministic: no dates in the metadata, a fixed creator, a fixed ``svg.hashsalt``, and the
model configs in sorted order, so that the same data gives the same bytes.
"""

from __future__ import annotations

import io
import threading
from collections.abc import Iterable, Mapping

from matplotlib import rc_context
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from layer3.figures import fonts
from layer3.figures.drawing import Page
from layer3.figures.labels import LANGUAGES
from layer3.figures.model_comparison import draw_model_comparison
from layer3.figures.w2wr_types import draw_w2wr_types
from layer3.statistics.samples import LAYER3_METRICS, model_samples

FIGURES = ("model-comparison", "w2wr-types")
FORMATS = ("svg", "png", "pdf")
PNG_DPI = 300
CREATOR = "jaiml layer3.figures"
METADATA = {  # per format, as matplotlib names the keys; None drops matplotlib's default (a date)
    "svg": {"Date": None, "Creator": CREATOR},
    "pdf": {"CreationDate": None, "Creator": CREATOR},
    "png": {"Software": CREATOR},
}

# Where a Japanese figure had to be drawn in English, the file says so (PNG "Description", SVG dc:description,
# PDF Subject), so that a figure in a paper is never taken for what was asked without a word.
NO_CJK_FONT_NOTE = (
    "Requested in Japanese, drawn in English: no CJK font was found on the server "
    "(install one, e.g. Debian fonts-noto-cjk, and render again)."
)
NOTE_KEYS = {"svg": "Description", "png": "Description", "pdf": "Subject"}

_RENDER_LOCK = threading.Lock()


def figure_metadata(fmt: str, *, requested: str, drawn: str) -> dict:
    """The metadata written into a figure of format ``fmt``: fixed, and the note when the language fell back."""
    metadata = dict(METADATA[fmt])
    if requested != drawn:
        metadata[NOTE_KEYS[fmt]] = NO_CJK_FONT_NOTE
    return metadata


def _check(what: str, given: str, accepted: tuple[str, ...]) -> None:
    if given not in accepted:
        raise ValueError(f"unknown {what} {given!r}; expected one of {', '.join(accepted)}")


def render_figure(
    name: str,
    trials_by_model: Mapping[str, Iterable[dict]],
    *,
    fmt: str = "svg",
    metric: str = "GV_UR",
    language: str = "ja",
    batch_label: str = "",
) -> bytes:
    """The figure ``name`` (one of ``FIGURES``) in ``fmt`` (one of ``FORMATS``) for the stored
    ``Layer3MetricsV1`` dicts of each model config in ``trials_by_model`` (trials with "error" are skipped).

    ``metric`` (one of ``LAYER3_METRICS``) is the metric of ``model-comparison``. ``language`` is "ja" or "en";
    Japanese is drawn with a CJK font (``fonts.find_cjk_font``), and when none is installed the figure is
    drawn in English instead, never with empty boxes for missing glyphs, and the file's metadata says so
    (``NO_CJK_FONT_NOTE``). Model and batch labels are drawn as
    given (no mathtext; escaped in SVG). Raises ValueError for an unknown name, format, metric or language,
    and for a trial whose stored metrics are malformed (``model_samples`` names the trial and field).
    """
    _check("figure", name, FIGURES)
    _check("format", fmt, FORMATS)
    _check("metric", metric, LAYER3_METRICS)
    _check("language", language, LANGUAGES)
    samples = {
        str(label): model_samples(trials) for label, trials in sorted(trials_by_model.items(), key=lambda i: str(i[0]))
    }
    buffer = io.BytesIO()
    with _RENDER_LOCK:
        drawn_language, rc = fonts.figure_style(language, fmt)
        with rc_context(rc):
            figure = Figure(layout="constrained")
            FigureCanvasAgg(figure)
            page = Page(drawn_language, tuple(rc["font.family"]))
            if name == "model-comparison":
                draw_model_comparison(figure, samples, page=page, metric=metric, batch_label=batch_label)
            else:
                draw_w2wr_types(figure, samples, page=page, batch_label=batch_label)
            options = {"dpi": PNG_DPI} if fmt == "png" else {}
            metadata = figure_metadata(fmt, requested=language, drawn=drawn_language)
            figure.savefig(buffer, format=fmt, metadata=metadata, **options)
    return buffer.getvalue()
