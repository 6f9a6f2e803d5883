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
    monkeypatch.setattr(fonts, "_save_font_cache", lambda: None)  # not the user's cache
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


def _stale_font_manager():
    """matplotlib's font manager as it is when its cache was built before the CJK fonts were installed."""
    stale = font_manager.FontManager.__new__(font_manager.FontManager)
    stale.__dict__.update(font_manager.fontManager.__dict__)
    stale.ttflist = [entry for entry in font_manager.fontManager.ttflist if "CJK" not in entry.name]
    return stale


def test_a_stale_cache_gets_the_cjk_font_by_file_and_is_written_again_for_the_next_process(monkeypatch, tmp_path):
    """Issue 30 point 8: a cache built before fonts-noto-cjk made Japanese figures English and tests skip."""
    import matplotlib

    system_cjk = [path for path in font_manager.findSystemFonts() if "cjk" in path.lower()]
    if not system_cjk:
        pytest.skip("no CJK font file on this system (Debian: fonts-noto-cjk)")
    monkeypatch.setattr(font_manager, "fontManager", _stale_font_manager())
    monkeypatch.setattr(matplotlib, "get_cachedir", lambda: str(tmp_path))
    fonts._added_system_cjk_fonts.cache_clear()
    try:
        assert fonts._cjk_family() is None  # the stale cache knows no CJK font
        assert "CJK" in fonts.find_cjk_font()
        assert fonts.figure_style("ja", "svg")[0] == "ja"
        cache = tmp_path / f"fontlist-v{font_manager.FontManager.__version__}.json"
        rebuilt = font_manager.json_load(cache)
        assert any("CJK" in entry.name for entry in rebuilt.ttflist)
    finally:
        fonts._added_system_cjk_fonts.cache_clear()


@pytest.mark.parametrize("fmt", ["svg", "png", "pdf"])
def test_a_japanese_figure_drawn_in_english_says_so_in_its_metadata(monkeypatch, fmt):
    from layer3.figures.render import NO_CJK_FONT_NOTE, figure_metadata, render_figure
    from tests.layer3.figures.test_render import small_batch

    monkeypatch.setattr(fonts, "find_cjk_font", lambda: None)
    body = render_figure("w2wr-types", small_batch(), fmt=fmt, language="ja")
    if fmt == "png":
        from io import BytesIO

        from PIL import Image

        assert Image.open(BytesIO(body)).text["Description"] == NO_CJK_FONT_NOTE
    elif fmt == "svg":
        assert f"<dc:description>{NO_CJK_FONT_NOTE}</dc:description>" in body.decode()
    else:
        assert b"/Subject (Requested in Japanese, drawn in English" in body
    english = render_figure("w2wr-types", small_batch(), fmt=fmt, language="en")
    assert b"Requested in Japanese" not in english
    assert figure_metadata(fmt, requested="ja", drawn="ja") == figure_metadata(fmt, requested="en", drawn="en")
