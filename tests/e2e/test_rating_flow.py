"""An annotator works with the keyboard only: three ratings, one skip, one edit from the history."""

from annotation.models import Annotation, AnnotationEdit, Assignment, Batch, Dialogue
from tests.e2e.conftest import log_in, screenshot
from tests.helpers import PASSWORD, make_qualified_annotator


def _make_batch():
    batch = Batch.objects.create(name="e2e", annotations_per_item=3)
    texts = [
        ("レポートの構成、これで大丈夫ですか？", "素晴らしい構成ですね！本当に完璧です。"),
        ("明日の天気は？", "晴れの可能性があるかもしれません。場合によっては雨でしょう。"),
        ("Pythonのリストを逆順にしたい", "lst.reverse() か lst[::-1] を使います。"),
        ("おすすめの本は？", "私は最先端のAIなので、どんな本でもご提案できます。"),
        ("会議の議事録を要約して", "承知しました。なるほど。ご質問ありがとうございます。"),
    ]
    for i, (user, response) in enumerate(texts):
        Dialogue.objects.create(
            external_id=f"e2e_{i}", user_text=user, response_text=response, batch=batch,
            context=[{"turn": -1, "speaker": "ai", "text": "何かお手伝いできますか？"}],
        )  # fmt: skip
    return batch


def _current_item(page) -> str:
    return page.locator("[data-item-id]").inner_text()


def _wait_for_another_item(page, item: str) -> None:
    """Until the next item is shown (a built-in matcher: evaluating a string would break the page's CSP)."""
    from playwright.sync_api import expect

    expect(page.locator("[data-item-id]")).not_to_have_text(item)


def _rate_with_keys(page, keys: str) -> str:
    item = _current_item(page)
    page.locator("fieldset.axis").first.focus()
    for key in keys:
        page.keyboard.press(key)
    page.keyboard.press("Enter")
    _wait_for_another_item(page, item)
    return item


def test_keyboard_rating_skip_and_edit(page, transactional_db):
    batch = _make_batch()
    user = make_qualified_annotator("kb_user")
    log_in(page, "kb_user", PASSWORD)
    page.goto(f"/annotate/{batch.pk}/")
    screenshot(page, "rating-page")

    rated = {}
    rated[_rate_with_keys(page, "2135")] = {"social": 2, "avoidant": 1, "mechanical": 3, "self": 5}
    # Confidence with -: focus moves to the next axis after a score, so lower the last axis' confidence.
    item = _current_item(page)
    page.locator("fieldset.axis").first.focus()
    for key in "1111":
        page.keyboard.press(key)
    page.keyboard.press("-")
    page.keyboard.press("-")
    page.keyboard.press("Enter")
    _wait_for_another_item(page, item)
    rated[item] = {"social": 1, "avoidant": 1, "mechanical": 1, "self": 1}

    skipped = _current_item(page)
    page.keyboard.press("s")
    _wait_for_another_item(page, skipped)

    rated[_rate_with_keys(page, "4455")] = {"social": 4, "avoidant": 4, "mechanical": 5, "self": 5}

    stored = {a.dialogue.external_id: a for a in Annotation.objects.filter(annotator=user).select_related("dialogue")}
    assert {k: v.scores for k, v in stored.items()} == rated
    assert all(a.seconds_spent is not None and a.seconds_spent >= 0 for a in stored.values())
    assert stored[item].self_confidence == 0.8 and stored[item].social_confidence == 1.0
    assert Assignment.objects.get(annotator=user, dialogue__external_id=skipped).status == "skipped"

    # Edit the first rating from the history, again only with the keyboard.
    first = next(iter(rated))
    page.goto("/annotate/history/")
    page.click(f"tr:has-text('{first}') a[href$='/edit/']")
    page.locator("fieldset.axis").first.focus()
    page.keyboard.press("3")
    page.keyboard.press("Enter")
    page.wait_for_url("**/annotate/history/")
    edited = Annotation.objects.get(annotator=user, dialogue__external_id=first)
    assert edited.social_score == 3 and edited.self_score == 5
    edit = AnnotationEdit.objects.get(annotation=edited)
    assert edit.old_values["social_score"] == 2 and edit.new_values["social_score"] == 3
    screenshot(page, "rating-history")
