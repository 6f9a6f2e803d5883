"""The top bar is cached per user, roles, language, page and browser: it never shows another's state or token."""

import re

from django.contrib.auth.models import Group
from django.test import Client

from tests.helpers import PASSWORD, make_user

LOGOUT_TOKEN = re.compile(
    r'action="/logout/" method="post">\s*<input type="hidden" name="csrfmiddlewaretoken" value="([^"]+)"'
)


def _logged_in_browser(username: str) -> Client:
    browser = Client(enforce_csrf_checks=True)
    page = browser.get("/login/").content.decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
    response = browser.post("/login/", {"csrfmiddlewaretoken": token, "username": username, "password": PASSWORD})
    assert response.status_code == 302
    return browser


def test_two_browsers_of_one_user_each_get_a_token_that_works_for_them(db):
    make_user("twobrowsers", "annotator")
    first, second = _logged_in_browser("twobrowsers"), _logged_in_browser("twobrowsers")
    tokens = []
    for browser in (first, second, first, second):  # the second round is served from the cache
        tokens.append(LOGOUT_TOKEN.search(browser.get("/").content.decode()).group(1))
    for browser, token in ((first, tokens[2]), (second, tokens[3])):
        assert browser.post("/logout/", {"csrfmiddlewaretoken": token}).status_code == 302


def test_a_new_role_and_a_new_language_show_at_once(db):
    user = make_user("promoted", "annotator")
    browser = _logged_in_browser("promoted")
    assert 'data-nav="agreement"' not in browser.get("/").content.decode()
    user.groups.add(Group.objects.get(name="researcher"))
    assert 'data-nav="agreement"' in browser.get("/").content.decode()
    home = browser.get("/").content.decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', home).group(1)
    browser.post("/i18n/setlang/", {"csrfmiddlewaretoken": token, "language": "en", "next": "/"})
    html = browser.get("/").content.decode()
    assert ">Log out<" in html and ">Agreement<" in html
