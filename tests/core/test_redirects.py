"""``core.redirects.posted_next``: a form goes back to its ``next`` only when that is a path of this site."""

import pytest
from django.test import RequestFactory

from core.redirects import posted_next, redirect_back


def _request(next_value):
    data = {} if next_value is None else {"next": next_value}
    return RequestFactory().post("/somewhere/", data)


@pytest.mark.parametrize("target", ["/", "/research/audits/", "/feedback/2026-03/?annotator=a#top", "/%E3%81%82/"])
def test_a_path_of_this_site_is_followed(target):
    assert posted_next(_request(target), "/fallback/") == target
    assert redirect_back(_request(target), "/fallback/")["Location"] == target


@pytest.mark.parametrize(
    "target",
    [None, "", "abc", "0", "9999-12-31", "audit-list", "//evil.example/", "https://evil.example/x",
     "http://testserver/x", "javascript:alert(1)", "/a\r\nSet-Cookie: x=1", "/a\nb", "/a\x00b", "/\x7f", "\\\\evil",
     "/\\evil.example"],
)  # fmt: skip
def test_anything_else_goes_to_the_default(target):
    assert posted_next(_request(target), "/fallback/") == "/fallback/"
    assert redirect_back(_request(target), "/fallback/")["Location"] == "/fallback/"


def test_the_default_may_be_a_url_name(db):
    assert posted_next(_request("abc"), "annotation:audit-list") == "/research/audits/"
