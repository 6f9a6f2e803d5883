"""The request bodies of the Director's API as the OpenAPI schema documents them (documentation only).

The bodies are parsed strictly by ``director.api.requests`` (unknown fields and wrong types refused); these
serializers give the schema their fields, types, limits and defaults, so that Swagger UI and Redoc show them.
"""

from __future__ import annotations

from rest_framework import serializers

from director.api.requests import LANGUAGES, MAX_HISTORY, MAX_TEXT


class DirectorHistoryLineSerializer(serializers.Serializer):
    speaker = serializers.CharField(max_length=50, help_text="character id of the earlier line, e.g. yana")
    text = serializers.CharField(max_length=MAX_TEXT, help_text="the earlier line")


class DirectorCheckRequestSerializer(serializers.Serializer):
    text = serializers.CharField(max_length=MAX_TEXT, help_text="the line to judge")
    speaker = serializers.CharField(max_length=50, help_text="character id of its speaker: yana or ayu")
    history = DirectorHistoryLineSerializer(
        many=True, required=False, help_text=f"the lines before it, oldest first (at most {MAX_HISTORY}); default []"
    )
    scene = serializers.CharField(required=False, max_length=MAX_TEXT, help_text="the scene; default empty")
    llm = serializers.BooleanField(required=False, default=False, help_text="add the LLM review (default false)")
    language = serializers.ChoiceField(
        choices=LANGUAGES, required=False, default="ja", help_text="language of the findings' messages"
    )


class DirectorSessionRequestSerializer(serializers.Serializer):
    scene = serializers.CharField(max_length=MAX_TEXT, help_text="the scene the two characters are in")
    speakers = serializers.ListField(
        child=serializers.CharField(), min_length=2, max_length=2, required=False,
        help_text='two character ids; default ["yana", "ayu"]',
    )  # fmt: skip
    title = serializers.CharField(required=False, max_length=200)
    maxRetries = serializers.IntegerField(required=False, min_value=0, max_value=10, default=3)
    llmReview = serializers.BooleanField(required=False, default=True)
    model = serializers.CharField(required=False, max_length=200, help_text="the generator's model; default setting")


class DirectorTurnRequestSerializer(serializers.Serializer):
    speaker = serializers.CharField(required=False, max_length=50, help_text="who speaks; default the next in turn")
    text = serializers.CharField(
        required=False, max_length=MAX_TEXT, help_text="a given line to judge instead of generating one"
    )
    expectedTurn = serializers.IntegerField(
        required=False, min_value=0, help_text="the session's turn as the caller knows it (409 when it moved on)"
    )
    language = serializers.ChoiceField(choices=LANGUAGES, required=False, default="ja")
