"""The guidelines page: both Markdown documents, the examples per axis, a table of contents, escaping."""

import pytest
from django.urls import reverse

from annotation.guidelines import loader as gd
from annotation.guidelines.views import render_markdown


@pytest.fixture
def page(client, outsider):
    client.force_login(outsider)  # any logged-in user, whatever the role
    response = client.get(reverse("annotation:guidelines"))
    assert response.status_code == 200
    return response.content.decode()


def test_anonymous_users_go_to_login(client, db):
    response = client.get(reverse("annotation:guidelines"))
    assert response.status_code == 302 and response["Location"].startswith("/login/")


def test_both_documents_are_rendered_as_html(page):
    assert '<section id="axis-definitions"' in page and '<section id="edge-cases"' in page
    assert "<h1" in page and "JAIML アノテーションガイドライン：4軸の定義" in page
    assert "JAIML アノテーションガイドライン：境界事例集" in page
    assert "<table>" in page and "<td>社会的迎合</td>" in page  # Markdown tables
    assert "<blockquote>" in page  # the quoted dialogues of edge_cases.md


def test_links_between_the_documents_stay_on_the_page(page):
    assert 'href="#edge-cases"' in page and 'href="#axis-definitions"' in page
    assert 'href="edge_cases.md"' not in page


def test_table_of_contents_links_to_every_section(page):
    assert '<nav class="guidelines-toc' in page
    for anchor in ("axis-definitions", "examples", "edge-cases", "examples-social", "examples-self"):
        assert f'href="#{anchor}"' in page and f'id="{anchor}"' in page
    # Headings of the documents get ids with a per-document prefix, and the TOC links to them.
    assert 'id="def-21-社会的迎合social-social-ingratiation"' in page
    assert 'href="#def-21-社会的迎合social-social-ingratiation"' in page
    assert 'href="#edge-e7-内容のなさ回避的迎合-5-か機械的迎合-5-か"' in page


def test_every_example_is_shown_under_its_axis_with_expected_scores_and_explanation(page):
    for example in gd.examples():
        assert f'data-example="{example["id"]}"' in page
        assert example["explanation"] in page
    example = gd.examples()[0]
    section = page.split(f'data-example="{example["id"]}"')[1].split("</article>")[0]
    for axis, score in example["expected"].items():
        assert f'data-axis="{axis}">{score}</td>' in section
    social = page.split('id="examples-social"')[1].split("</section>")[0]
    assert all(f'data-example="{e["id"]}"' in social for e in gd.examples() if e["axis"] == "social")


def test_raw_html_in_markdown_is_escaped_and_unsafe_links_are_dropped():
    html, toc = render_markdown(
        "# Title\n\n<script>alert(1)</script>\n\n## Part <b>x</b>\n\n[x](javascript:alert(1)) [ok](#a) "
        "<img src=x onerror=alert(1)>\n",
        "t-",
    )
    assert "<script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<img" not in html and "&lt;img" in html
    assert "javascript:" not in html and '<a href="#a">ok</a>' in html
    assert toc[0]["id"].startswith("t-") and "<b>" not in toc[0]["name"]


def test_example_text_is_escaped(client, outsider, monkeypatch):
    example = {**gd.examples()[0], "response": "<script>alert(1)</script>", "explanation": "<b>bold</b>"}
    monkeypatch.setattr(gd, "examples", lambda: [example])
    client.force_login(outsider)
    html = client.get(reverse("annotation:guidelines")).content.decode()
    assert "<script>alert(1)</script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<b>bold</b>" not in html


def _in_english(client, outsider) -> str:
    client.force_login(outsider)
    client.cookies["django_language"] = "en"
    response = client.get(reverse("annotation:guidelines"))
    assert response.status_code == 200 and '<html lang="en"' in response.content.decode()
    return response.content.decode()


def test_in_english_the_page_says_the_text_is_the_japanese_original_and_translates_every_heading(client, outsider):
    """Issue 30 point 6: in English the guidelines stayed wholly Japanese without a word of why."""
    import re

    html = _in_english(client, outsider)
    assert "data-original-language-note" in html and "is the Japanese original" in html
    headings = re.findall(r"<h[1-3][^>]*>(.*?)</h[1-3]>", html, re.S)
    toc = re.search(r'<nav class="guidelines-toc.*?</nav>', html, re.S).group(0)
    toc_entries = re.findall(r'<a href="#[^"]*">(.*?)</a>', toc)
    japanese = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")
    assert len(headings) > 30 and len(toc_entries) > 30
    # a quoted Japanese phrase inside an English heading (“そうですね”, “Good question”) is the example itself
    leftovers = [t for t in headings + toc_entries if japanese.search(re.sub(r"“[^”]*”", "", t))]
    assert leftovers == []
    assert (
        '<h3 id="def-21-社会的迎合social-social-ingratiation" lang="en">2.1 Social ingratiation (social)</h3>' in html
    )
    assert 'lang="ja"' in html  # the original text is marked as Japanese


def test_in_japanese_the_headings_are_the_original_and_there_is_no_note(page):
    assert "data-original-language-note" not in page
    assert (
        '<h3 id="def-21-社会的迎合social-social-ingratiation">2.1 社会的迎合（social / Social Ingratiation）</h3>'
        in page
    )
