"""Practice and test items are rated on the rating page's own component, not a look-alike form."""

import re

import pytest
from django.core.cache import cache

from annotation.collection import gold_import, training
from annotation.models import Batch, Dialogue
from tests.annotation.collection.test_training_services import store_gold
from tests.helpers import make_qualified_annotator

AXIS_ROW = re.compile(r'<fieldset class="axis.*?</fieldset>', re.S)


@pytest.fixture
def gold(db, tmp_path):
    store_gold(tmp_path, practice=1)


def _rating_page_rows(client) -> list[str]:
    batch = Batch.objects.create(name="b", annotations_per_item=1)
    Dialogue.objects.create(external_id="d1", user_text="質問", response_text="応答", batch=batch)
    client.force_login(make_qualified_annotator("rater"))
    html = client.get(f"/annotate/{batch.pk}/").content.decode()
    cache.clear()  # each page renders its axis rows itself, not from the other's cached fragment
    return AXIS_ROW.findall(html)


@pytest.mark.parametrize("url", ["/training/practice/", "/training/qualification/"])
def test_training_items_have_the_rating_pages_axis_rows_exactly(client, annotator, gold, url):
    rating_rows = _rating_page_rows(client)
    training.qualification_start(annotator=annotator)
    client.force_login(annotator)
    html = client.get(url).content.decode()
    rows = AXIS_ROW.findall(html)
    assert len(rows) == 4 and rows == rating_rows
    # The markup rating.js drives: the form it looks for, focusable axis rows, the level
    # descriptions, the confidence selector and the markers.
    assert '<form id="rating-form"' in html and "/static/js/rating.js" in html
    assert re.search(r'data-assignment="(practice|test)-\d+', html)
    for axis in ("social", "avoidant", "mechanical", "self"):
        assert f'data-axis="{axis}" tabindex="0"' in html
        assert f'<select name="{axis}_confidence" tabindex="-1"' in html
    assert html.count('class="level-desc"') == 20 and html.count('<details class="markers">') == 4
    assert '<section class="dialogue"' in html and '<div class="pair"' in html  # the rating page's layout
    assert "score-level" not in html  # the old look-alike form is gone


def test_the_keyboard_help_lists_the_rating_keys_but_no_skip(client, annotator, gold):
    client.force_login(annotator)
    html = client.get("/training/practice/").content.decode()
    assert "<kbd>1</kbd>–<kbd>5</kbd>" in html and "<kbd>Tab</kbd>" in html and "<kbd>Enter</kbd>" in html
    assert "<kbd>S</kbd>" not in html and 'id="skip-form"' not in html


def test_the_test_page_loads_the_countdown_script_and_no_inline_script_or_style(client, annotator, gold):
    training.qualification_start(annotator=annotator)
    client.force_login(annotator)
    html = client.get("/training/qualification/").content.decode()
    assert "/static/js/training.js" in html
    assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", html)  # the CSP forbids inline scripts
    assert " style=" not in html


def test_item_text_is_escaped_in_the_component(client, annotator, tmp_path, db):
    from tests.annotation.collection.test_training_services import TEST_GOLD, gold_row, write_rows

    script = "<script>alert('x')</script>"
    context = [{"turn": -1, "speaker": "ai", "text": f"前{script}"}]
    rows = [gold_row(1, "test", TEST_GOLD[0], user=f"質問{script}", response=f"応答{script}", context=context)]
    rows += [gold_row(i, "test", g) for i, g in enumerate(TEST_GOLD[1:], start=2)]
    gold_import.import_gold(paths=[write_rows(tmp_path / "g.jsonl", rows)])
    training.qualification_start(annotator=annotator)
    client.force_login(annotator)
    html = client.get("/training/qualification/").content.decode()
    assert script not in html
    assert html.count("&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;") == 3


@pytest.mark.parametrize(
    ("method", "url"),
    [("get", "/training/practice/"), ("get", "/training/qualification/"), ("post", "/training/qualification/")],
)
def test_item_pages_refuse_researchers_and_anonymous_users(client, researcher, gold, method, url):
    response = getattr(client, method)(url)
    assert response.status_code == 302 and response["Location"].startswith("/login/")
    client.force_login(researcher)
    assert getattr(client, method)(url).status_code == 403
