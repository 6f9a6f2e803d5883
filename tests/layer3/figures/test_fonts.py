"""The CJK font is found even when it was installed after matplotlib built its font cache."""

import pytest
from matplotlib import font_manager

from layer3.figures import fonts


def test_a_cjk_font_missing_from_matplotlib_s_cache_is_added_from_the_system(monkeypatch):
    system_cjk = [path for path in font_manager.findSystemFonts() if "cjk" in path.lower()]
    if not system_cjk:
        pytest.skip("no CJK font installed (Debian: fonts-noto-cjk)")
    # matplotlib's cache as it is when the fonts came after it: no CJK entry
    stale = font_manager.FontManager.__new__(font_manager.FontManager)
    stale.__dict__.update(font_manager.fontManager.__dict__)
    stale.ttflist = [entry for entry in font_manager.fontManager.ttflist if "CJK" not in entry.name]
    monkeypatch.setattr(font_manager, "fontManager", stale)
    fonts._added_system_cjk_fonts.cache_clear()
    try:
        assert "CJK" in fonts.find_cjk_font()
    finally:
        fonts._added_system_cjk_fonts.cache_clear()


def test_no_cjk_font_anywhere_means_english(monkeypatch):
    stale = font_manager.FontManager.__new__(font_manager.FontManager)
    stale.__dict__.update(font_manager.fontManager.__dict__)
    stale.ttflist = [entry for entry in font_manager.fontManager.ttflist if "CJK" not in entry.name]
    monkeypatch.setattr(font_manager, "fontManager", stale)
    monkeypatch.setattr(font_manager, "findSystemFonts", lambda *args, **kwargs: [])
    fonts._added_system_cjk_fonts.cache_clear()
    try:
        assert fonts.find_cjk_font() is None
    finally:
        fonts._added_system_cjk_fonts.cache_clear()
