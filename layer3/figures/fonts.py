"""Fonts and output settings of the figures: a CJK font for Japanese, English when there is none.

``find_cjk_font`` asks matplotlib's font manager for "Noto Sans CJK JP" (Debian's ``fonts-noto-cjk``) or,
failing that, the first family (by name) whose name contains "CJK". ``figure_style`` turns the requested
language into the language actually drawn and the rcParams to draw it with: Japanese needs a CJK font, and
without one the figure falls back to English rather than drawing empty boxes ("tofu") for the glyphs.

Output settings chosen for papers and for browsers: SVG text as paths (the SVG shows the same everywhere,
with or without the font), fonts embedded in PDF as TrueType (Type 42), never TeX or mathtext, and a fixed
``svg.hashsalt`` so that the SVG's generated ids do not change between renders.

One exception to Type 42: with a CJK font that has CFF (PostScript) outlines, as Noto Sans CJK does, the PDF
gets its text as paths (glyph outlines drawn through a ``Normal`` path effect), like the SVG. matplotlib's
Type 42 writer puts CFF data where a PDF reader expects TrueType outlines (matplotlib issue #20870; poppler
warns "Mismatch between font type and embedded font file", stricter readers may draw nothing), and its Type 3
writer fails on CJK characters in matplotlib 3.11 ("bytes must be in range(0, 256)"). Outlined text looks
the same everywhere but cannot be selected. DejaVu Sans, the English font, has TrueType outlines and is
embedded as Type 42.
"""

from __future__ import annotations

import contextlib
import functools
import struct
from functools import lru_cache
from pathlib import Path

from matplotlib import font_manager, patheffects
from matplotlib.ft2font import FT2Font

PREFERRED_CJK_FONT = "Noto Sans CJK JP"
LATIN_FONT = "DejaVu Sans"  # ships with matplotlib, so it is always there
MISSING_GLYPH = "?"

BASE_RC = {
    "svg.fonttype": "path",
    "svg.hashsalt": "layer3-figures",
    "pdf.fonttype": 42,
    "ps.fonttype": 42,
    "text.usetex": False,
    "font.size": 9.0,
    "axes.titlesize": 10.0,
    "axes.labelsize": 9.0,
    "xtick.labelsize": 8.5,
    "ytick.labelsize": 8.5,
    "legend.fontsize": 8.5,
    "axes.spines.top": False,
    "axes.spines.right": False,
}


def find_cjk_font() -> str | None:
    """The family name of an installed CJK font ("Noto Sans CJK JP" first), or None when there is none."""
    name = _cjk_family()
    if name is None and _added_system_cjk_fonts():
        name = _cjk_family()
    return name


def _cjk_family() -> str | None:
    names = sorted({entry.name for entry in font_manager.fontManager.ttflist})
    if PREFERRED_CJK_FONT in names:
        return PREFERRED_CJK_FONT
    return next((name for name in names if "CJK" in name), None)


@functools.cache
def _added_system_cjk_fonts() -> bool:
    """Add the system's CJK font files that matplotlib's font cache (~/.cache/matplotlib) does not know.

    The cache is built once, so fonts installed afterwards (``apt-get install fonts-noto-cjk`` after a
    first figure) would stay unseen and Japanese would fall back to English. The files are added by path
    (``FontManager.addfont``), and the cache is written again with them (``_save_font_cache``) so that the
    next process finds them at once. Looked up once per process.
    """
    known = {entry.fname for entry in font_manager.fontManager.ttflist}
    added = False
    for path in font_manager.findSystemFonts():
        if "cjk" in Path(path).name.lower() and path not in known:
            with contextlib.suppress(Exception):  # a broken font file is no reason to fail a figure
                font_manager.fontManager.addfont(path)
                added = True
    if added:
        _save_font_cache()
    return added


def _save_font_cache() -> None:
    """Write matplotlib's font cache again with the fonts added (best effort: a read-only cache stays as it is)."""
    import matplotlib

    cache = Path(matplotlib.get_cachedir(), f"fontlist-v{font_manager.FontManager.__version__}.json")
    with contextlib.suppress(Exception):
        font_manager.json_dump(font_manager.fontManager, cache)


def has_cff_outlines(path: str) -> bool:
    """Whether the font file (or, for a TrueType collection, its first font) has CFF outlines ("OTTO")."""
    with open(path, "rb") as font:
        tag = font.read(4)
        if tag == b"ttcf":  # a collection: tag, version, count, then the offset of each font
            font.seek(12)
            (offset,) = struct.unpack(">I", font.read(4))
            font.seek(offset)
            tag = font.read(4)
    return tag == b"OTTO"


def figure_style(language: str, fmt: str) -> tuple[str, dict]:
    """``(language drawn, rcParams)`` for output format ``fmt``: Japanese only with a CJK font, else English."""
    rc = dict(BASE_RC)
    cjk = find_cjk_font() if language == "ja" else None
    if cjk is None:
        rc["font.family"] = [LATIN_FONT]
        return "en", rc
    rc["font.family"] = [cjk, LATIN_FONT]  # the Latin font only for what the CJK font lacks
    if fmt == "pdf" and has_cff_outlines(font_manager.findfont(font_manager.FontProperties(family=cjk))):
        rc["path.effects"] = [patheffects.Normal()]  # text drawn as paths, see above
    return "ja", rc


@lru_cache(maxsize=8)
def _covered(families: tuple[str, ...]) -> frozenset[int]:
    """The code points that one of ``families`` has a glyph for."""
    code_points: set[int] = set()
    for family in families:
        try:
            path = font_manager.findfont(font_manager.FontProperties(family=family), fallback_to_default=False)
        except ValueError:
            continue
        code_points.update(FT2Font(path).get_charmap())
    return frozenset(code_points)


def printable(text: str, families: list[str]) -> str:
    """``text`` with each character no font of ``families`` can draw replaced by "?" (no tofu boxes), so that
    a Japanese batch label in the English fallback still shows its Latin part."""
    covered = _covered(tuple(families))
    return "".join(c if c.isspace() or ord(c) in covered else MISSING_GLYPH for c in text)
