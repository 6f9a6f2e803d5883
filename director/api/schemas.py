"""The request bodies and filters of the Director's API as the OpenAPI schema documents them.

The bodies are parsed strictly by ``director.api.requests`` (unknown fields, wrong types and null refused); these
serializers give the schema their fields, types, limits and defaults, so that Swagger UI and Redoc show them and
the schema says exactly what the parsing takes. The speakers are the characters of the rule set in use, read
when the schema is made (``speaker_names``, ``character_ids``).
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from core import api_query
from director.api.requests import LANGUAGES, MAX_HISTORY, MAX_TEXT, MAX_TURN, STATUSES
from director.rules.ruleset import default_rule_set


def character_ids() -> list[str]:
    return list(default_rule_set().characters)


def speaker_names() -> list[str]:
    """What a speaker may be given as: a character's id or one of its names (exactly as its file spells them)."""
    return list(dict.fromkeys(name for key, names in default_rule_set().characters.items() for name in (key, *names)))


class SpeakerField(serializers.CharField):
    def schema_extra(self) -> dict:
        return {"enum": speaker_names()}


class CharacterIdsField(serializers.ListField):
    child = serializers.CharField()

    def schema_extra(self) -> dict:
        return {"items": {"type": "string", "enum": character_ids()}, "uniqueItems": True}


class DirectorHistoryLineSerializer(serializers.Serializer):
    speaker = SpeakerField(help_text="the earlier line's speaker: a character's id or name, e.g. yana")
    text = serializers.CharField(max_length=MAX_TEXT, help_text="the earlier line")


class DirectorCheckRequestSerializer(serializers.Serializer):
    text = serializers.CharField(max_length=MAX_TEXT, help_text="the line to judge")
    speaker = SpeakerField(help_text="its speaker: a character's id or name, e.g. yana or あゆ")
    history = DirectorHistoryLineSerializer(
        many=True, required=False, max_length=MAX_HISTORY,
        help_text=f"the lines before it, oldest first (at most {MAX_HISTORY}); default []",
    )  # fmt: skip
    scene = serializers.CharField(
        required=False, allow_blank=True, max_length=MAX_TEXT, help_text="the scene; default empty"
    )
    llm = serializers.BooleanField(required=False, default=False, help_text="add the LLM review (default false)")
    language = serializers.ChoiceField(
        choices=LANGUAGES, required=False, default="ja", help_text="language of the findings' messages"
    )


class DirectorSessionRequestSerializer(serializers.Serializer):
    scene = serializers.CharField(max_length=MAX_TEXT, help_text="the scene the two characters are in")
    speakers = CharacterIdsField(
        min_length=2, max_length=2, required=False, help_text='two different character ids; default ["yana", "ayu"]'
    )
    title = serializers.CharField(required=False, allow_blank=True, max_length=200)
    maxRetries = serializers.IntegerField(required=False, min_value=0, max_value=10, default=3)
    llmReview = serializers.BooleanField(required=False, default=True)
    model = serializers.CharField(
        required=False, allow_blank=True, max_length=200, help_text="the generator's model; default the setting"
    )


class DirectorTurnRequestSerializer(serializers.Serializer):
    speaker = SpeakerField(required=False, help_text="who speaks (a character's id or name); default the next in turn")
    text = serializers.CharField(
        required=False, max_length=MAX_TEXT,
        help_text="a given line to judge instead of generating one (generating needs an LLM endpoint: LLM_BASE_URL)",
    )  # fmt: skip
    expectedTurn = serializers.IntegerField(
        required=False, min_value=0, max_value=MAX_TURN,
        help_text="the session's turn as the caller knows it (409 when it moved on)",
    )  # fmt: skip
    language = serializers.ChoiceField(choices=LANGUAGES, required=False, default="ja")


VERDICT_FILTERS = (
    api_query.Choice(name="status", choices=STATUSES),
    api_query.Text(name="rule", max_length=100, description="verdicts with a finding of this rule"),
    api_query.Text(name="speaker", max_length=50, description="character id, e.g. ayu"),
    api_query.Integer(name="session", minimum=1, description="verdicts of this session (its id)"),
    api_query.Moment(name="since", description="verdicts made at or after this date or RFC 3339 time"),
)


# --- the answers (the dicts of director.api.shapes) ------------------------------------------------------------


class VerdictReviewSerializer(serializers.Serializer):
    """The LLM review: its status and note, and when it ran its scores, reasons, summary and average."""

    status = serializers.CharField(help_text="ok, skipped, failed or off")
    note = serializers.CharField(help_text="why it was skipped or failed (empty otherwise)")


class VerdictSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    session = serializers.IntegerField(allow_null=True, help_text="null: a line checked outside a session")
    attempt = serializers.IntegerField(help_text="the attempt's number within its turn (1 for a check)")
    speaker = serializers.CharField(help_text="the character's id")
    text = serializers.CharField()
    status = serializers.ChoiceField(choices=STATUSES, help_text="the worse of the hard rules and the review")
    rulesStatus = serializers.ChoiceField(choices=STATUSES, help_text="the hard rules' status")
    findings = serializers.ListField(child=serializers.DictField(), help_text="{rule, status, message, evidence, ...}")
    tone = serializers.DictField(help_text="the tone signals: marker, vocab, style, score, matched")
    review = VerdictReviewSerializer()
    rulesVersion = serializers.CharField()
    rulesHash = serializers.CharField()
    shown = serializers.BooleanField(help_text="the attempt shown to the reader")
    timingsMs = serializers.DictField(help_text="milliseconds per stage")
    createdAt = serializers.DateTimeField()


class AttemptSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    speaker = serializers.CharField()
    text = serializers.CharField()
    source = serializers.CharField(help_text="llm (generated) or given")
    generationError = serializers.CharField(allow_null=True, help_text="why generation failed (null: it did not)")
    shown = serializers.BooleanField()
    verdict = VerdictSerializer(allow_null=True, help_text="null: nothing was generated to judge")


class SessionTurnSerializer(serializers.Serializer):
    turn = serializers.IntegerField()
    attempts = AttemptSerializer(many=True)


class SessionSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    title = serializers.CharField()
    scene = serializers.CharField()
    speakers = serializers.ListField(child=serializers.CharField(), help_text="character ids in speaking order")
    state = serializers.DictField(help_text="topic, hookDepth, loopCounter, turn, interventions")
    maxRetries = serializers.IntegerField()
    llmReview = serializers.BooleanField()
    model = serializers.CharField(help_text="empty: the setting LLM_MODEL")
    rulesVersion = serializers.CharField()
    rulesHash = serializers.CharField()
    createdAt = serializers.DateTimeField()
    turns = SessionTurnSerializer(many=True)


@extend_schema_field({"type": "boolean", "enum": [True]})
class TrueField(serializers.BooleanField):
    pass


class InterventionSerializer(serializers.Serializer):
    text = serializers.CharField()
    source = serializers.CharField(help_text="rule:<rule>, history:<what>, review:<aspect>")


class CheckAnswerSerializer(serializers.Serializer):
    success = TrueField()
    verdict = VerdictSerializer()
    topic = serializers.CharField(help_text="the line's leading topic (empty: none)")
    interventions = InterventionSerializer(many=True, help_text="what the line would queue for its speaker's next turn")


class SessionAnswerSerializer(serializers.Serializer):
    success = TrueField()
    session = SessionSerializer()


class TurnAnswerSerializer(serializers.Serializer):
    success = TrueField()
    turn = serializers.IntegerField()
    speaker = serializers.CharField()
    attempts = AttemptSerializer(many=True)
    shownAttempt = serializers.IntegerField(allow_null=True)
    shownText = serializers.CharField(allow_null=True)
    accepted = serializers.BooleanField(help_text="the shown line entered the dialogue and advanced the state")
    flag = serializers.CharField(allow_null=True, help_text="all_retry or generation_failed (null: none)")
    reason = serializers.CharField()
    stateBefore = serializers.DictField()
    stateAfter = serializers.DictField()


class VerdictPageSerializer(serializers.Serializer):
    count = serializers.IntegerField()
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)
    results = VerdictSerializer(many=True)
