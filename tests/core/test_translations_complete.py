"""Every UI string in the code has a Japanese translation in the catalogue (needs GNU gettext's xgettext)."""

import os
import shutil
from pathlib import Path

import polib
import pytest
from django.core.management import call_command

ROOT = Path(__file__).resolve().parents[2]
CATALOGUE = ROOT / "locale" / "ja" / "LC_MESSAGES" / "django.po"


def test_makemessages_finds_nothing_untranslated(settings, tmp_path, monkeypatch):
    if shutil.which("xgettext") is None:
        if os.environ.get("REQUIRE_GETTEXT") == "1":
            pytest.fail("xgettext not found (apt-get install gettext)")
        pytest.skip("xgettext not found (apt-get install gettext)")
    # makemessages writes into every locale/ folder above the files it scans: scan a copy of the
    # sources, so that the catalogue in the repository is never touched.
    ignore = shutil.ignore_patterns(".*", "__pycache__", "*.mo")
    for entry in ROOT.iterdir():
        if entry.is_dir() and not entry.name.startswith(".") and entry.name not in {"var", "tests", "bench"}:
            shutil.copytree(entry, tmp_path / entry.name, ignore=ignore)
    target = tmp_path / "locale" / "ja" / "LC_MESSAGES"
    settings.LOCALE_PATHS = [tmp_path / "locale"]
    monkeypatch.chdir(tmp_path)
    before = CATALOGUE.read_bytes()
    call_command(
        "makemessages", locale=["ja"], ignore_patterns=["*/migrations/*"], verbosity=0, no_obsolete=True,
    )  # fmt: skip
    assert CATALOGUE.read_bytes() == before
    refreshed = polib.pofile(str(target / "django.po"))
    untranslated = [entry.msgid for entry in refreshed.untranslated_entries()]
    fuzzy = [entry.msgid for entry in refreshed.fuzzy_entries()]
    assert not untranslated, f"strings without a Japanese translation: {untranslated}"
    assert not fuzzy, f"strings whose translation makemessages only guessed: {fuzzy}"
