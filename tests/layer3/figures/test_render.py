"""render_figure: every figure in every format, deterministic bytes, fonts, data drawn literally, errors."""

import re
import struct
import threading
from io import BytesIO

import pytest
from PIL import Image

from layer3.figures import FIGURES, FORMATS, fonts, render_figure
from layer3.metrics.provenance import BASELINE_MODEL
from layer3.statistics import LAYER3_METRICS
from tests.layer3.figures import svg as svg_text
from tests.layer3.figures.batch import demo_batch, judged_trial, label
from tests.layer3.statistics.trials import error_trial, layer3_trial

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
HAS_CJK_FONT = fonts.find_cjk_font() is not None
needs_cjk_font = pytest.mark.skipif(not HAS_CJK_FONT, reason="no CJK font installed (Debian: fonts-noto-cjk)")


@pytest.fixture(scope="module")
def batch():
    return demo_batch(25)


def small_batch(**labels):
    """Two model configs with a few trials each, under the given labels (default "A" and "B")."""
    first, second = labels.get("first", "A"), labels.get("second", "B")
    return {
        first: [layer3_trial(gv=[2, 1, 2], types=["flow", "meta"], sc=[2, 1], widgets=["a", "b"], graph=(3, 2))] * 3,
        second: [
            layer3_trial(gv=[0, 1], types=["sync", "unknown"], sc=[2], widgets=["a"], graph=(2, 1)),
            error_trial(),
        ],
    }


def png_dpi(png: bytes) -> tuple[float, float]:
    """The resolution in the pHYs chunk, in dots per inch."""
    position = len(PNG_SIGNATURE)
    while position < len(png):
        (length,) = struct.unpack(">I", png[position : position + 4])
        kind = png[position + 4 : position + 8]
        if kind == b"pHYs":
            x, y, unit = struct.unpack(">IIB", png[position + 8 : position + 8 + length])
            assert unit == 1  # metres
            return x * 0.0254, y * 0.0254
        position += 12 + length
    raise AssertionError("no pHYs chunk")


@pytest.mark.parametrize("name", FIGURES)
@pytest.mark.parametrize("language", ["ja", "en"])
def test_each_figure_renders_in_each_format(batch, name, language):
    svg = render_figure(name, batch, fmt="svg", language=language)
    assert svg_text.parse(svg).tag == f"{svg_text.SVG_NS}svg"
    png = render_figure(name, batch, fmt="png", language=language)
    assert png.startswith(PNG_SIGNATURE)
    assert png_dpi(png) == pytest.approx((300, 300), abs=0.01)
    assert Image.open(BytesIO(png)).info["dpi"] == pytest.approx((300, 300), abs=0.01)
    assert render_figure(name, batch, fmt="pdf", language=language).startswith(b"%PDF")


@pytest.mark.parametrize("metric", LAYER3_METRICS)
def test_model_comparison_renders_every_metric(batch, metric):
    assert svg_text.parse(render_figure("model-comparison", batch, metric=metric, language="en"))


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("name", FIGURES)
def test_two_renders_of_the_same_data_are_byte_identical(batch, name, fmt):
    first = render_figure(name, batch, fmt=fmt, batch_label="batch 7")
    assert render_figure(name, batch, fmt=fmt, batch_label="batch 7") == first
    assert b"CreationDate" not in first and b"<dc:date>" not in first


def test_renders_in_threads_at_once_are_the_renders_made_one_by_one(batch):
    jobs = [(name, fmt, language) for name in FIGURES for fmt in ("svg", "pdf") for language in ("ja", "en")]
    alone = {job: render_figure(job[0], batch, fmt=job[1], language=job[2]) for job in jobs}
    together = {}

    def render(job):
        together[job] = render_figure(job[0], batch, fmt=job[1], language=job[2])

    threads = [threading.Thread(target=render, args=(job,)) for job in jobs]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert together == alone


@needs_cjk_font
def test_japanese_titles_are_drawn_as_glyph_paths_of_the_cjk_font():
    svg = render_figure("w2wr-types", small_batch())
    title = "W2WR タイプ分布"
    glyph_ids = svg_text.glyphs(svg, title)
    assert len(glyph_ids) == len(title)
    assert {svg_text.glyph_font(g) for g in glyph_ids} == {"NotoSansCJKjp-Regular"}
    assert "GV有用率（GV_UR）" in svg_text.texts(render_figure("model-comparison", small_batch()))


def test_without_a_cjk_font_the_figure_falls_back_to_english_without_tofu(monkeypatch):
    monkeypatch.setattr(fonts, "find_cjk_font", lambda: None)
    svg = render_figure("model-comparison", small_batch(second="モデルB"), batch_label="第3バッチ run")
    texts = svg_text.texts(svg)
    assert "generatedValue useful rate (GV_UR)" in texts
    assert "Model configuration" in texts
    assert "???B" in texts  # "モデルB": each Japanese character drawn as "?"
    assert "?3??? run" in texts
    assert not any(ord(c) > 0x2FFF for text in texts for c in text)
    assert b"NotoSansCJK" not in svg
    assert render_figure("w2wr-types", small_batch(), fmt="pdf").startswith(b"%PDF")


@needs_cjk_font
def test_characters_no_font_has_are_drawn_as_question_marks():
    texts = svg_text.texts(render_figure("w2wr-types", small_batch(first="A\u0e01")))  # Thai ko kai
    assert "A?" in texts


def test_english_pdf_embeds_dejavu_sans_as_truetype():
    pdf = render_figure("model-comparison", small_batch(), fmt="pdf", language="en")
    assert b"/CIDFontType2" in pdf and b"/FontFile2" in pdf and b"DejaVuSans" in pdf
    assert b"/Type3" not in pdf


@needs_cjk_font
def test_japanese_pdf_with_a_cff_font_has_its_text_as_paths_and_no_mislabelled_font():
    path = fonts.font_manager.findfont(fonts.font_manager.FontProperties(family=fonts.find_cjk_font()))
    pdf = render_figure("model-comparison", small_batch(), fmt="pdf")
    if fonts.has_cff_outlines(path):
        assert b"/FontFile2" not in pdf and b"/Type /Font" not in pdf
    else:
        assert b"/FontFile2" in pdf


def test_cff_detection_reads_the_sfnt_tag_also_inside_a_collection(tmp_path):
    dejavu = fonts.font_manager.findfont(fonts.font_manager.FontProperties(family="DejaVu Sans"))
    assert not fonts.has_cff_outlines(dejavu)
    otf = tmp_path / "font.otf"
    otf.write_bytes(b"OTTO" + bytes(12))
    collection = tmp_path / "fonts.ttc"
    collection.write_bytes(b"ttcf" + struct.pack(">HHII", 1, 0, 1, 16) + b"OTTO")
    assert fonts.has_cff_outlines(str(otf)) and fonts.has_cff_outlines(str(collection))


@pytest.mark.parametrize("language", ["ja", "en"])
def test_a_script_label_comes_out_escaped_in_the_svg(language):
    label = "<script>alert(1)</script>"
    for name in FIGURES:
        svg = render_figure(name, small_batch(first=label), language=language, batch_label=label)
        assert b"<script" not in svg
        assert b"&lt;script&gt;" in svg
        assert svg_text.parse(svg) is not None


@pytest.mark.parametrize("language", ["ja", "en"])
def test_dollar_signs_in_labels_are_drawn_as_dollar_signs_not_mathtext(language):
    label, batch_label = "B $x$ cost", "run $1 and $2"
    for name in FIGURES:
        svg = render_figure(name, small_batch(second=label), language=language, batch_label=batch_label)
        texts = svg_text.texts(svg)
        drawn_label = next(text for text in texts if text.startswith(label))
        for text in (drawn_label.split("\n")[0], batch_label):
            glyph_ids = svg_text.glyphs(svg, text)
            assert len(glyph_ids) == len(text)  # mathtext would drop the dollars and italicise x
            assert len({svg_text.glyph_font(g) for g in glyph_ids}) == 1


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"name": "pie"}, "unknown figure 'pie'; expected one of model-comparison, w2wr-types"),
        ({"fmt": "jpg"}, "unknown format 'jpg'; expected one of svg, png, pdf"),
        ({"metric": "GV_XX"}, "unknown metric 'GV_XX'; expected one of GV_CR, GV_UR, W2WR_FR"),
        ({"language": "de"}, "unknown language 'de'; expected one of ja, en"),
    ],
)
def test_unknown_names_formats_metrics_and_languages_are_refused_with_the_accepted_values(arguments, message):
    arguments = {"name": "model-comparison", **arguments}
    with pytest.raises(ValueError, match=message):
        render_figure(arguments.pop("name"), small_batch(), **arguments)


def test_malformed_stored_metrics_are_refused_with_the_trial_and_path():
    with pytest.raises(ValueError, match=re.escape("trial 0: graphComplexity.density is missing")):
        render_figure("model-comparison", {"A": [{"graphComplexity": {"nodeCount": 2, "edgeCount": 1}}]})


@pytest.mark.parametrize("name", FIGURES)
def test_no_model_config_and_no_data_still_render(name):
    assert svg_text.parse(render_figure(name, {}))
    assert svg_text.parse(render_figure(name, {"A": [error_trial()], "B": []}))


def test_a_batch_label_over_several_lines_is_drawn_on_one():
    texts = svg_text.texts(render_figure("w2wr-types", small_batch(), language="en", batch_label="run 7\n  second try"))
    assert "run 7 second try" in texts


def judged_batch(**judges):
    """A, B and C judged by the judge models given for each (several names: the trials take turns)."""
    judges = {"A": ("gpt-4o",), "B": ("gpt-4o",), "C": ("gpt-4o",), **judges}
    return {
        model: [judged_trial(names[i % len(names)], gv=[2, 1, i % 3], sc=[2, i % 3], graph=(3, 2)) for i in range(4)]
        for model, names in judges.items()
    }


@pytest.mark.parametrize("metric", ["GV_CR", "GV_UR", "W2WR_SC", "W2WR_CR"])
def test_a_judged_figure_names_its_judge_under_the_title_in_the_svg(metric):
    texts = svg_text.texts(render_figure("model-comparison", judged_batch(), metric=metric, language="en"))
    group = "gv" if metric.startswith("GV") else "w2wr"
    assert f"Judge: {label('gpt-4o', group)}" in texts
    assert "several judges" not in texts


def test_an_automatic_figure_names_no_judge_in_the_svg():
    texts = svg_text.texts(render_figure("model-comparison", judged_batch(), metric="GC_NC", language="en"))
    assert not any(text.startswith(("Judge", "判定")) for text in texts)
    texts = svg_text.texts(render_figure("w2wr-types", judged_batch(B=(BASELINE_MODEL,)), language="en"))
    assert not any("Judge" in text or "gpt-4o" in text for text in texts)


def test_different_judges_are_written_under_each_bar_in_the_svg():
    svg = render_figure("model-comparison", judged_batch(B=(BASELINE_MODEL,)), metric="GV_UR", language="en")
    texts = svg_text.texts(svg)
    assert "Judges: differ between model configurations (under each bar)" in texts
    # each line of a tick label is a text of its own in the SVG
    assert texts[: texts.index("Model configuration")] == [
        "A", "n=12", "llm:gpt-4o:", "layer3.gv_relevance@1",
        "B", "n=12", "baseline:", "baseline-tfidf@1:", "layer3.gv_relevance@1",
        "C", "n=12", "llm:gpt-4o:", "layer3.gv_relevance@1",
    ]  # fmt: skip


def test_a_config_with_several_judges_has_a_note_and_no_bar_in_the_svg():
    batch = judged_batch(B=("gpt-4o", BASELINE_MODEL))
    svg = render_figure("model-comparison", batch, metric="GV_UR", language="en")
    texts = svg_text.texts(svg)
    assert "several judges" in texts
    assert f"Judge: {label('gpt-4o')}" in texts  # A and C
    bars = svg_text.parse(svg).findall(f".//{svg_text.SVG_NS}g[@id='patch_3']")
    assert bars  # the figure still draws A's and C's bars
    one_judge = render_figure("model-comparison", judged_batch(), metric="GV_UR", language="en")
    assert svg.count(b'id="patch_') == one_judge.count(b'id="patch_') - 1


@needs_cjk_font
def test_the_judge_words_are_japanese_on_a_japanese_figure():
    texts = svg_text.texts(render_figure("model-comparison", judged_batch(B=("gpt-4o", BASELINE_MODEL))))
    assert f"判定モデル: {label('gpt-4o')}" in texts and "複数の判定モデル" in texts
    texts = svg_text.texts(render_figure("model-comparison", judged_batch(B=(BASELINE_MODEL,)), metric="W2WR_CR"))
    assert "判定モデル: モデル構成ごとに異なる（各棒の下に表示）" in texts


def test_the_judge_words_fall_back_to_english_without_a_cjk_font(monkeypatch):
    monkeypatch.setattr(fonts, "find_cjk_font", lambda: None)
    texts = svg_text.texts(render_figure("model-comparison", judged_batch(B=("gpt-4o", BASELINE_MODEL))))
    assert f"Judge: {label('gpt-4o')}" in texts and "several judges" in texts


@pytest.mark.parametrize("language", ["ja", "en"])
def test_a_judge_model_with_markup_is_drawn_literally_and_escaped_in_the_svg(language):
    for model in ("<script>alert(1)</script>", "$x$ cost"):
        batch = {"A": [judged_trial(model, gv=[2, 1])], "B": [judged_trial(model, gv=[0])]}
        svg = render_figure("model-comparison", batch, metric="GV_UR", language=language)
        assert b"<script" not in svg
        assert svg_text.parse(svg) is not None
        line = next(text for text in svg_text.texts(svg) if model.replace("<", "&lt;").replace(">", "&gt;") in text)
        glyph_ids = svg_text.glyphs(svg, line)
        shown = line.replace("&lt;", "<").replace("&gt;", ">")
        assert len(glyph_ids) == len(shown)  # mathtext would drop the dollars and italicise x
        per_bar = {"A": [judged_trial(model, gv=[2, 1])], "B": [judged_trial("gpt-4o", gv=[0])]}
        assert b"<script" not in render_figure("model-comparison", per_bar, metric="GV_UR", language=language)
