"""FastJSONRenderer (issue 31): the JSON document DRF's JSONRenderer writes, by orjson where it can."""

import json
from decimal import Decimal

from django.utils.translation import gettext_lazy
from hypothesis import given, settings
from hypothesis import strategies as st
from rest_framework.renderers import JSONRenderer

from core.api_renderers import FastJSONRenderer

VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(st.characters(codec="utf-8")) | st.sampled_from(["\u2028", "a\u2029b", "<script>", '"\\'])
    , lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=5), inner, max_size=5),
    max_leaves=30,
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(VALUES)
def test_the_same_document_as_jsonrenderer(data):
    data = {"value": data}  # a body is an object (None renders as no body at all)
    fast, plain = FastJSONRenderer().render(data), JSONRenderer().render(data)
    assert json.loads(fast) == json.loads(plain)
    assert b"\xe2\x80\xa8" not in fast and b"\xe2\x80\xa9" not in fast  # escaped as DRF escapes them


def test_a_page_of_ratings_is_byte_for_byte_jsonrenderers():
    row = {"id": 1, "batch": 3, "dialogue": "対話_001", "annotator": "ann_001", "scores": {"social": 4},
           "confidence": {"social": 0.9, "self": 1.0}, "source": "web", "seconds_spent": None,
           "created_at": "2025-01-31T09:12:03+09:00", "edits": [{"old_values": {"social_score": 3}}]}  # fmt: skip
    page = {"next": "http://testserver/api/?cursor=x", "previous": None, "results": [row] * 3}
    assert FastJSONRenderer().render(page) == JSONRenderer().render(page)


def test_what_orjson_does_not_take_goes_to_jsonrenderer():
    for data in ({"error": gettext_lazy("Not found.")}, {"n": Decimal("1.5")}, {"n": 2**70}):
        assert FastJSONRenderer().render(data) == JSONRenderer().render(data)
    indented = FastJSONRenderer().render({"a": 1}, "application/json; indent=2")
    assert indented == JSONRenderer().render({"a": 1}, "application/json; indent=2") and b"\n" in indented
    assert FastJSONRenderer().render(None) == b""
