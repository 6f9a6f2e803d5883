"""The qualification result names the items and axes that differ from gold, with the gold explanation."""

import re

import pytest
from django.conf import settings
from django.urls import reverse

from annotation.collection import gold_import, training
from annotation.models.training import GoldItem
from tests.annotation.collection.test_training_services import AXES, TEST_GOLD, gold_row, write_rows
from tests.helpers import make_user

SCRIPT = "<script>alert('x')</script>"


@pytest.fixture
def finished(db, tmp_path, annotator):
    """A finished attempt: item 2 one point above gold on social and self, item 5 two above on avoidant."""
    rows = [gold_row(i, "test", gold) for i, gold in enumerate(TEST_GOLD, start=1)]
    rows[4]["explanation"] = f"回避の説明{SCRIPT}"
    gold_import.import_gold(paths=[write_rows(tmp_path / "g.jsonl", rows)])
    attempt = training.qualification_start(annotator=annotator)
    for number, pk in enumerate(attempt.item_ids, start=1):
        item = GoldItem.objects.get(pk=pk)
        scores, confidence = dict(item.gold), dict.fromkeys(AXES, 1.0)
        if number == 2:  # gold (2, 1, 3, 1)
            scores.update(social=3, self=2)
            confidence["social"] = 0.7
        if number == 5:  # gold (5, 1, 2, 3)
            scores["avoidant"] = 3
        training.qualification_answer_submit(
            attempt=attempt, gold_item=item, scores=scores, confidence=confidence, min_seconds=0
        )
    attempt.refresh_from_db()
    return attempt


def test_review_lists_each_item_in_order_with_the_axes_that_differ(finished):
    reviews = training.qualification_review(attempt=finished)
    assert [r.number for r in reviews] == list(range(1, len(TEST_GOLD) + 1))
    differing = {r.item.external_id: r.differences for r in reviews if not r.matched}
    assert set(differing) == {"gold_test_002", "gold_test_005"}
    assert [(d.axis, d.mine, d.gold, d.diff, d.confidence) for d in differing["gold_test_002"]] == [
        ("social", 3, 2, 1, 0.7),
        ("self", 2, 1, 1, 1.0),
    ]
    assert [(d.axis, d.diff) for d in differing["gold_test_005"]] == [("avoidant", 2)]
    assert sum(r.matched for r in reviews) == len(TEST_GOLD) - 2


def _item_block(html: str, external_id: str) -> str:
    match = re.search(rf'<article class="card review-item" data-review-item="{external_id}">.*?</article>', html, re.S)
    assert match, external_id
    return match.group(0)


def test_result_page_shows_the_differing_axes_with_scores_difference_and_explanation(client, annotator, finished):
    client.force_login(annotator)
    html = client.get(reverse("annotation:qualification-result", args=[finished.pk])).content.decode()
    second = _item_block(html, "gold_test_002")
    assert "項目 2" in second or "Item 2" in second
    social = re.search(r'<tr data-axis="social".*?</tr>', second, re.S).group(0)
    assert "社会的迎合" in social  # the axis name, translated
    assert "<td data-mine>3</td>" in social and "<span data-gold>2</span>" in social
    assert '<td class="diff" data-diff>+1</td>' in social and ">0.7<" in social
    assert 'data-axis="self"' in second and 'data-axis="avoidant"' not in second
    assert "説明 2: 賞賛語なし" in second  # the gold explanation of that item
    fifth = _item_block(html, "gold_test_005")
    assert '<td class="diff" data-diff>+2</td>' in fifth
    assert SCRIPT not in html and "回避の説明&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in fifth
    # Items that match on every axis are listed apart, and their explanations are not repeated.
    assert 'data-matched-item="gold_test_001"' in html and 'data-review-item="gold_test_001"' not in html
    assert "説明 1: 賞賛語なし" not in html
    assert "<dd data-matched-count>6</dd>" in html


def test_result_page_counts_the_differing_items_per_axis_beside_the_kappa(client, annotator, finished):
    client.force_login(annotator)
    html = client.get(reverse("annotation:qualification-result", args=[finished.pk])).content.decode()
    counts = dict(
        re.findall(r'<tr data-axis="(\w+)" class="\w+">.*?<td class="count" data-differing>(\d+)</td>', html, re.S)
    )
    assert counts == {"social": "1", "avoidant": "1", "mechanical": "0", "self": "1"}


def test_result_page_is_available_in_english(client, annotator, finished):
    client.force_login(annotator)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    html = client.get(reverse("annotation:qualification-result", args=[finished.pk])).content.decode()
    second = _item_block(html, "gold_test_002")
    assert "Social ingratiation" in second and "Item 2" in second and "Explanation" in second
    assert "社会的迎合" not in html


def test_a_perfect_attempt_says_every_item_matched(client, annotator, tmp_path, db):
    gold_import.import_gold(
        paths=[write_rows(tmp_path / "g.jsonl", [gold_row(i, "test", g) for i, g in enumerate(TEST_GOLD, 1)])]
    )
    attempt = training.qualification_start(annotator=annotator)
    for pk in attempt.item_ids:
        item = GoldItem.objects.get(pk=pk)
        training.qualification_answer_submit(attempt=attempt, gold_item=item, scores=item.gold, min_seconds=0)
    client.force_login(annotator)
    html = client.get(reverse("annotation:qualification-result", args=[attempt.pk])).content.decode()
    assert "data-all-matched" in html and "data-review-item" not in html
    assert html.count("data-matched-item=") == len(TEST_GOLD)


def test_researchers_see_the_review_and_other_annotators_do_not(client, researcher, finished):
    url = reverse("annotation:qualification-result", args=[finished.pk])
    client.force_login(researcher)
    assert 'data-review-item="gold_test_002"' in client.get(url).content.decode()
    client.force_login(make_user("ann_002", "annotator"))
    assert client.get(url).status_code == 404
