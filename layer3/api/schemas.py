"""The bodies of the Layer3 API as the OpenAPI schema documents them (documentation only).

``layer3.api.requests`` parses the body of ``evaluate-layer3`` strictly; this serializer gives the schema its
fields, bounds and defaults. ``BATCH_UPLOAD_REQUEST`` is the multipart form of ``POST batch/``.
"""

from __future__ import annotations

from django.core.validators import RegexValidator
from rest_framework import serializers

from layer3.api.requests import MAX_BUDGET, MAX_MODEL_NAME, MODEL_NAME
from layer3.runs.options import CURRENCIES, JUDGES


class EvaluateLayer3RequestSerializer(serializers.Serializer):
    evaluateGV = serializers.BooleanField(required=False, default=True)
    evaluateW2WRType = serializers.BooleanField(required=False, default=True)
    evaluateW2WRSemantic = serializers.BooleanField(required=False, default=False)
    evaluateDiversity = serializers.BooleanField(required=False, default=True)
    evaluateComplexity = serializers.BooleanField(required=False, default=True)
    useLLMJudge = serializers.BooleanField(
        required=False, default=False, help_text="the LLM judge (judge overrides it)"
    )
    forceReEvaluate = serializers.BooleanField(required=False, default=False)
    refreshJudge = serializers.BooleanField(required=False, default=False)
    llmModel = serializers.CharField(
        required=False, max_length=MAX_MODEL_NAME, validators=[RegexValidator(f"^{MODEL_NAME.pattern}$")],
        help_text="the judge's model (printable ASCII, e.g. gpt-4o-mini); default the setting LLM_MODEL",
    )  # fmt: skip
    modelConfigs = serializers.ListField(
        child=serializers.CharField(), required=False, help_text="only these model configurations; default all"
    )
    judge = serializers.ChoiceField(choices=JUDGES, required=False, help_text="none, baseline or llm")
    budget = serializers.FloatField(
        required=False, min_value=0, max_value=MAX_BUDGET, allow_null=True, help_text="in budgetCurrency"
    )
    budgetCurrency = serializers.ChoiceField(choices=CURRENCIES, required=False, default="JPY")


BATCH_UPLOAD_FIELDS = ("name", "experimentId", "file", "widgetCatalogue")
BATCH_UPLOAD_REQUEST = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "format": "layer3-batch-name", "minLength": 1, "maxLength": 100,
                 "description": "the batch name: 1 to 100 printable characters (no control or format characters, "
                 "no / or \\\\, not only dots, not only digits)"},
        "experimentId": {"type": "string", "format": "printable", "maxLength": 100,
                         "description": "printable characters (no control or format characters); default none"},
        "file": {"type": "string", "format": "binary", "description": "trial-log JSONL"},
        "widgetCatalogue": {
            "type": "string",
            "format": "binary",
            "description": "the widget types the generator could choose from (JSON array or one per line); "
            "default: the site's catalogue",
        },
    },
    "required": ["name", "file"],
    "additionalProperties": False,
}  # fmt: skip
