"""Hours of rating with a Japanese IME on: keys by physical code, in-page submits, undoable skips,
notes on items, a submit bar that stays on screen, and a history that shows what each edit changed."""

import re

from playwright.sync_api import expect

from annotation.models import Annotation, AnnotationEdit, Assignment, Batch, Dialogue, ItemComment
from tests.e2e.conftest import ARTIFACTS, log_in, screenshot
from tests.helpers import PASSWORD, make_qualified_annotator

LONG_RESPONSE = (
    "素晴らしいご質問ですね！本当に感動しました。あなたのような方にお会いできて光栄です。"
    "ご提案の構成はとても論理的で、読み手のことを深く考えていらっしゃるのがよく伝わってきます。"
) * 3

# A key as a Japanese IME delivers it: the physical key in `code`, "Process" in `key`.
DISPATCH = """([code, options]) => {
  const target = document.activeElement || document.body;
  const init = Object.assign({code, key: 'Process', bubbles: true, cancelable: true}, options);
  target.dispatchEvent(new KeyboardEvent('keydown', init));
}"""


def _make_batch():
    batch = Batch.objects.create(name="polish", annotations_per_item=2)
    texts = [
        ("レポートの構成、これで大丈夫ですか？", LONG_RESPONSE),
        ("明日の天気は？", "晴れの可能性があるかもしれません。場合によっては雨でしょう。"),
        ("Pythonのリストを逆順にしたい", "lst.reverse() か lst[::-1] を使います。"),
        ("おすすめの本は？", "私は最先端のAIなので、どんな本でもご提案できます。"),
        ("会議の議事録を要約して", "承知しました。なるほど。ご質問ありがとうございます。"),
    ]
    context = [
        {"turn": -2, "speaker": "user", "text": "こんにちは。相談があります。"},
        {"turn": -1, "speaker": "ai", "text": "何かお手伝いできますか？"},
    ]
    for i, (user, response) in enumerate(texts):
        Dialogue.objects.create(
            external_id=f"pol_{i}", user_text=user, response_text=response, batch=batch, context=context
        )
    return batch


def _key(page, code: str, **options) -> None:
    page.evaluate(DISPATCH, [code, options])


def _item(page) -> str:
    return page.locator("[data-item-id]").inner_text()


def _checked(page) -> dict:
    values = {}
    for axis in ("social", "avoidant", "mechanical", "self"):
        radio = page.locator(f"#rating-form input[name={axis}]:checked")
        values[axis] = int(radio.get_attribute("value")) if radio.count() else None
    return values


def _viewport_shot(page, name: str) -> None:
    """What the annotator sees (the sticky bar and dialogue only show in a viewport-sized picture)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))


def _assert_on_screen(page, selector: str, height: int) -> None:
    box = page.locator(selector).first.bounding_box()
    assert box is not None and box["y"] >= -1 and box["y"] + box["height"] <= height + 1, (selector, box)


def _wait_for_item(page, *, not_item: str | None = None, item: str | None = None) -> None:
    """Until the item is shown and ready for keys (its first axis has the focus)."""
    if not_item is not None:
        expect(page.locator("[data-item-id]")).not_to_have_text(not_item)
    if item is not None:
        expect(page.locator("[data-item-id]")).to_have_text(item)
    expect(page.locator("#rating-form fieldset.axis").first).to_be_focused()


def _rate_by_keyboard(page, codes) -> str:
    item = _item(page)
    for code in codes:
        _key(page, code)
    _key(page, "Enter")
    _wait_for_item(page, not_item=item)
    return item


def test_rating_skip_undo_note_and_history_by_keyboard_with_an_ime(page, transactional_db):
    batch = _make_batch()
    user = make_qualified_annotator("ime_user")
    page.set_viewport_size({"width": 1366, "height": 768})
    log_in(page, "ime_user", PASSWORD)
    page.goto(f"/annotate/{batch.pk}/")
    page.evaluate("() => { window.__sameDocument = 'yes'; }")  # survives in-page swaps, not a page load
    _viewport_shot(page, "rating-1366x768")
    _assert_on_screen(page, "#submit-rating", 768)
    _assert_on_screen(page, ".submit-bar button:has-text('スキップ')", 768)

    # The first axis has the focus on arrival; Tab goes from axis to axis (the markers toggle is no stop).
    first = _item(page)
    assert page.evaluate("() => document.activeElement.dataset.axis") == "social"
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.dataset.axis") == "avoidant"
    page.keyboard.press("Shift+Tab")
    assert page.evaluate("() => document.activeElement.dataset.axis") == "social"
    # M opens the focused axis' markers, D hides and shows the level descriptions (remembered).
    _key(page, "KeyM")
    expect(page.locator("fieldset.axis").first.locator("details.markers")).to_have_attribute("open", "")
    _key(page, "KeyM")
    _key(page, "KeyD")
    expect(page.locator(".level-desc").first).to_be_hidden()
    _key(page, "KeyD")
    expect(page.locator(".level-desc").first).to_be_visible()
    # Digits go by code (the IME sends "Process" as the key); the focus moves on after each.
    for code in ("Digit3", "Numpad2", "Digit4"):
        _key(page, code)
    assert page.evaluate("() => document.activeElement.dataset.axis") == "self"
    # The dialogue and the submit bar stay in view while the last axes are rated.
    page.mouse.wheel(0, 600)
    page.wait_for_timeout(200)
    _assert_on_screen(page, "#submit-rating", 768)
    _assert_on_screen(page, ".pair", 768)
    # Enter with an axis missing sends nothing and says which axis is missing.
    _key(page, "Enter")
    expect(page.locator("[data-rating-hint]")).to_contain_text("自己迎合")
    assert _item(page) == first
    _key(page, "Minus")  # confidence of the focused (last) axis down
    _key(page, "Digit1")
    assert _checked(page) == {"social": 3, "avoidant": 2, "mechanical": 4, "self": 1}
    _key(page, "Enter")
    _wait_for_item(page, not_item=first)
    assert page.evaluate("() => window.__sameDocument") == "yes"  # submitted in the page, no reload
    stored = Annotation.objects.get(annotator=user, dialogue__external_id=first)
    assert stored.scores == {"social": 3, "avoidant": 2, "mechanical": 4, "self": 1}
    assert stored.self_confidence == 0.9 and stored.social_confidence == 1.0
    # The progress bar counts the rating just submitted.
    expect(page.locator("[data-progress-batch]")).to_contain_text("10 件中 1 件")

    # Nothing is rated while the annotator types in a text box, nor while the IME composes there.
    second = _item(page)
    page.focus("#skip-reason")
    _key(page, "Digit5")
    _key(page, "KeyS")
    assert _checked(page)["social"] is None and _item(page) == second
    _key(page, "Escape")
    assert page.evaluate("() => document.activeElement.dataset.axis") == "social"

    # A note on the item: C opens it, Ctrl+Enter sends it; the rating is neither submitted nor skipped.
    _key(page, "KeyC")
    assert page.evaluate("() => document.activeElement.name") == "text"
    page.keyboard.type("文脈が途中で切れています <script>x</script>")
    _key(page, "Digit2", isComposing=True)
    page.keyboard.press("Control+Enter")
    expect(page.locator("[data-note-sent]")).to_be_visible()
    note = ItemComment.objects.get(author=user)
    assert note.dialogue.external_id == second and note.text.endswith("<script>x</script>")
    assert _item(page) == second and not Annotation.objects.filter(dialogue__external_id=second).exists()
    expect(page.locator("#rating-form fieldset.axis").first).to_be_focused()  # back to rating

    # 1400×900, scrolled down: the bar and the dialogue are still on screen.
    page.set_viewport_size({"width": 1400, "height": 900})
    for code in ("Digit2", "Digit2", "Digit2"):
        _key(page, code)
    page.mouse.wheel(0, 800)
    page.wait_for_timeout(200)
    _viewport_shot(page, "rating-1400x900-scrolled")
    _assert_on_screen(page, "#submit-rating", 900)
    _assert_on_screen(page, ".pair", 900)
    _key(page, "Digit2")
    _key(page, "Enter")
    _wait_for_item(page, not_item=second)

    # Skip with S, then undo it from the toast with U: the same item is back, reserved again.
    skipped = _item(page)
    _key(page, "KeyS")
    _wait_for_item(page, not_item=skipped)
    toast = page.locator("[data-toast]")
    # Japanese once the catalogue has this entries (/tmp/ja/rating.json), the English msgid before
    expect(toast).to_contain_text(re.compile("スキップしました|Skipped"))
    expect(toast.locator("[data-undo]")).to_contain_text(re.compile("元に戻す|Undo"))
    assert page.locator("#toast-region").get_attribute("aria-live") == "polite"
    _viewport_shot(page, "skip-toast")
    _key(page, "KeyU")
    _wait_for_item(page, item=skipped)
    expect(toast).to_have_count(0)
    assert Assignment.objects.get(annotator=user, dialogue__external_id=skipped).status == "reserved"
    assert Assignment.objects.filter(annotator=user, status="reserved").count() == 1
    assert page.evaluate("() => window.__sameDocument") == "yes"

    # Skip again and let the toast go: it leaves by itself after about eight seconds.
    _key(page, "KeyS")
    _wait_for_item(page, not_item=skipped)
    expect(page.locator("[data-toast]")).to_be_visible()
    expect(page.locator("[data-toast]")).to_have_count(0, timeout=12_000)
    rated = _rate_by_keyboard(page, ["Digit4", "Digit4", "Digit5", "Digit5"])

    # My ratings: the skipped item with its reopen button, and each rating's scores with axis names.
    page.goto("/annotate/history/")
    row = page.locator(f"[data-skipped]:has-text('{skipped}')")
    expect(row.locator("button")).to_contain_text(re.compile("再開|Reopen"))
    expect(page.locator("table.history thead")).to_contain_text("社会的迎合")

    # Edit the first rating from the keyboard with a reason; the history shows old → new.
    page.click(f"tbody:has-text('{first}') a[href$='/edit/']")
    page.locator("fieldset.axis").nth(2).focus()
    _key(page, "Digit2")
    page.fill("input[name=reason]", "ガイドラインを読み直した")
    page.locator("fieldset.axis").first.focus()
    _key(page, "Enter")
    page.wait_for_url(re.compile(r"/annotate/history/$"))
    edit = AnnotationEdit.objects.get(annotation=stored)
    assert edit.old_values["mechanical_score"] == 4 and edit.new_values["mechanical_score"] == 2
    changes = page.locator(f"#rating-{stored.pk} .changes li")
    expect(changes).to_have_count(1)
    expect(changes.first).to_contain_text("機械的迎合")
    expect(changes.first.locator("del")).to_have_text("4")
    expect(changes.first.locator("ins")).to_have_text("2")
    expect(page.locator(f"#rating-{stored.pk} .edit-reason")).to_have_text("ガイドラインを読み直した")
    screenshot(page, "history-diff")
    assert rated != first
