"""The body of ``POST .../evaluate-layer3`` as the OpenAPI schema documents it (documentation only).

``layer3.api.requests`` parses the body strictly; this serializer gives the schema its fields and defaults.
"""

from __future__ import annotations

from rest_framework import serializers

from layer3.api.requests import MAX_MODEL_NAME
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
        required=False, max_length=MAX_MODEL_NAME, help_text="the judge's model; default the setting"
    )
    modelConfigs = serializers.ListField(
        child=serializers.CharField(), required=False, help_text="only these model configurations; default all"
    )
    judge = serializers.ChoiceField(choices=JUDGES, required=False, help_text="none, baseline or llm")
    budget = serializers.FloatField(required=False, min_value=0, allow_null=True, help_text="in budgetCurrency")
    budgetCurrency = serializers.ChoiceField(choices=CURRENCIES, required=False, default="JPY")
