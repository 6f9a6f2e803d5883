"""The export formats' names, media types and download file names."""

import pytest

from layer3.exports.formats import FILE_EXTENSIONS, FORMATS, MEDIA_TYPES, export_filename


def test_every_format_has_an_extension_and_a_media_type():
    assert FORMATS == ("json", "csv", "markdown", "latex")
    assert FILE_EXTENSIONS == {"json": ".json", "csv": ".csv", "markdown": ".md", "latex": ".tex"}
    assert MEDIA_TYPES == {
        "json": "application/json",
        "csv": "text/csv; charset=utf-8",
        "markdown": "text/markdown; charset=utf-8",
        "latex": "application/x-tex",
    }


@pytest.mark.parametrize(
    ("batch_id", "fmt", "model_config", "name"),
    [
        ("pilot-2026-11", "csv", None, "layer3-pilot-2026-11.csv"),
        ("pilot-2026-11", "markdown", "A", "layer3-pilot-2026-11-A.md"),
        ("pilot-2026-11", "latex", None, "layer3-pilot-2026-11.tex"),
        ("pilot-2026-11", "json", "gpt-4o_v1.2", "layer3-pilot-2026-11-gpt-4o_v1.2.json"),
        ("pilot 2026/11", "csv", None, "layer3-pilot_2026_11.csv"),
        ("../../etc/passwd", "json", None, "layer3-.._.._etc_passwd.json"),
        ("パイロット", "csv", "モデルA", "layer3-_____-___A.csv"),
        ('a"b;c\r\nd', "csv", None, "layer3-a_b_c__d.csv"),
        ("", "csv", "", "layer3-_-_.csv"),
    ],
)
def test_export_filename_is_safe_ascii(batch_id, fmt, model_config, name):
    assert export_filename(batch_id, fmt, model_config) == name


def test_export_filename_never_holds_a_path_separator_or_a_header_breaking_character():
    name = export_filename('x/\\:*?"<>|\r\n;%\x00é', "csv")
    assert name.isascii() and not set(name) & set('/\\:*?"<>|\r\n;% \x00')


def test_a_long_batch_name_is_cut():
    assert len(export_filename("x" * 1000, "csv", "y" * 1000)) == len("layer3-") + 100 + 1 + 100 + len(".csv")


def test_an_unknown_format_is_refused_with_the_accepted_ones():
    with pytest.raises(ValueError, match="json, csv, markdown, latex"):
        export_filename("pilot", "xlsx")
