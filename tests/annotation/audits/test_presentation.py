"""What a rater sees of an audit item's context: pure, tolerant of malformed model output, nothing but the context."""

import subprocess
import sys
from pathlib import Path

from annotation.audits.presentation import config_json, generated_values, gv_view, item_summary, text_of, w2wr_view

ROOT = Path(__file__).resolve().parents[3]

WIDGET = {
    "id": "w1",
    "component": "brainstorm_cards",
    "config": {
        "title": "ステップ1",
        "hint": {"id": "h", "text": "ヒント", "isGenerated": True},
        "items": [{"id": "a", "text": "案A", "isGenerated": True}, {"id": "b", "text": "案B", "isGenerated": 1}],
        "groups": [{"cards": [{"id": "c", "text": "案C", "isGenerated": True}]}],
    },
}


def test_generated_values_are_found_anywhere_in_the_config_in_order():
    assert [v["text"] for v in generated_values(WIDGET)] == ["ヒント", "案A", "案C"]  # isGenerated must be true
    assert len(generated_values({"items": [{"id": str(i), "text": "x", "isGenerated": True} for i in range(50)]})) == 20


def test_gv_view_lists_the_widgets_other_values_without_the_rated_one():
    view = gv_view(
        {"concern": "悩み", "itemId": "a", "text": "案A", "widgetType": "cards", "portId": "items", "widget": WIDGET}
    )
    assert view["text"] == "案A" and view["title"] == "ステップ1" and view["port"] == "items"
    assert [v["text"] for v in view["others"]] == ["ヒント", "案C"]


def test_w2wr_view_marks_a_widget_the_spec_lacks_and_a_self_loop():
    context = {
        "description": "自己参照",
        "source": {"widget": "w1", "type": "palette", "port": "out", "config": WIDGET},
        "target": {"widget": "w1", "type": "palette", "port": "in", "config": None},
    }
    view = w2wr_view(context)
    assert view["self_loop"] and view["target"]["missing"] and not view["source"]["missing"]
    assert view["source"]["title"] == "ステップ1" and view["target"]["config"] == ""
    assert item_summary("w2wr", context) == "w1.out → w1.in"


def test_malformed_context_gives_text_not_errors():
    assert text_of(None) == "" and text_of(3) == "3" and text_of({"a": "あ"}) == '{"a": "あ"}'
    view = w2wr_view({"concern": ["x"], "source": "w1.out", "target": 7})
    assert view["concern"] == '["x"]' and view["source"]["widget_id"] == "" and view["target"]["missing"]
    assert gv_view("not a dict")["text"] == "" and gv_view({"widget": [1, 2]})["others"] == []


def test_a_long_config_is_cut_and_marked():
    text = config_json({"items": ["x" * 100] * 100}, limit=500)
    assert len(text) == 502 and text.endswith("\n…")


def test_the_module_loads_no_framework():
    check = (
        "import sys\nimport annotation.audits.presentation as p\np.gv_view({'widget': {'config': {}}})\n"
        "print(','.join(sorted(n for n in sys.modules if n.split('.')[0] in ('django', 'rest_framework', 'celery'))))\n"
    )
    result = subprocess.run([sys.executable, "-c", check], cwd=ROOT, capture_output=True, text=True, check=True)
    assert result.stdout.strip() == ""
