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
    target = tmp_path / "locale" / "ja" / "LC_MESSAGES"
    target.mkdir(parents=True)
    shutil.copy(CATALOGUE, target / "django.po")
    settings.LOCALE_PATHS = [tmp_path / "locale"]
    monkeypatch.chdir(ROOT)
    call_command(
        "makemessages", locale=["ja"], ignore_patterns=[".venv", "var", "tests", "bench", "*/migrations/*"],
        verbosity=0, no_obsolete=True,
    )  # fmt: skip
    refreshed = polib.pofile(str(target / "django.po"))
    untranslated = [entry.msgid for entry in refreshed.untranslated_entries()]
    fuzzy = [entry.msgid for entry in refreshed.fuzzy_entries()]
    assert not untranslated, f"strings without a Japanese translation: {untranslated}"
    assert not fuzzy, f"strings whose translation makemessages only guessed: {fuzzy}"
