from pathlib import Path

import polib

ROOT = Path(__file__).resolve().parents[2]


def test_ui_is_japanese_by_default_whatever_the_browser_asks(client, annotator):
    client.force_login(annotator)
    response = client.get("/", headers={"Accept-Language": "en-US,en;q=0.9"})
    html = response.content.decode()
    assert '<html lang="ja">' in html
    assert "ホーム" in html and "ログアウト" in html
    assert response["Content-Language"] == "ja"


def test_language_switch_changes_to_english_and_back(client, annotator):
    client.force_login(annotator)
    response = client.post("/i18n/setlang/", {"language": "en", "next": "/"})
    assert response.status_code == 302
    html = client.get("/").content.decode()
    assert '<html lang="en">' in html and "Log out" in html
    client.post("/i18n/setlang/", {"language": "ja", "next": "/"})
    assert "ログアウト" in client.get("/").content.decode()


def test_language_switch_works_on_the_login_page(client, db):
    client.post("/i18n/setlang/", {"language": "en", "next": "/login/"})
    assert "Log in" in client.get("/login/").content.decode()


def test_unknown_language_cookie_falls_back_to_japanese(client, annotator):
    client.force_login(annotator)
    client.cookies["django_language"] = "xx"
    assert '<html lang="ja">' in client.get("/").content.decode()


def test_every_catalogue_entry_is_translated():
    catalogues = [p for p in ROOT.glob("**/locale/ja/LC_MESSAGES/django.po") if ".venv" not in p.parts]
    assert catalogues
    for path in catalogues:
        catalogue = polib.pofile(str(path))
        untranslated = [entry.msgid for entry in catalogue.untranslated_entries()]
        fuzzy = [entry.msgid for entry in catalogue.fuzzy_entries()]
        assert not untranslated, f"{path}: untranslated {untranslated}"
        assert not fuzzy, f"{path}: fuzzy {fuzzy}"
