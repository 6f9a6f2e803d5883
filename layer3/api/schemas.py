"""The bodies of the Layer3 API as the OpenAPI schema documents them (documentation only).

``layer3.api.requests`` parses the body of ``evaluate-layer3`` strictly; this serializer gives the schema its
fields, bounds and defaults. ``BATCH_UPLOAD_REQUEST`` is the multipart form of ``POST batch/``.
"""

from __future__ import annotations

from django.core.validators import RegexValidator
from drf_spectacular.utils import extend_schema_field
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


# --- the answers (documentation: the views write the dicts) ----------------------------------------------------


@extend_schema_field({"type": "boolean", "enum": [True]})
class TrueField(serializers.BooleanField):
    pass


class RunLinksSerializer(serializers.Serializer):
    job = serializers.CharField(allow_null=True, help_text="the run's job page")
    progress = serializers.CharField(help_text="the batch's progress stream (Server-Sent Events)")
    results = serializers.CharField(help_text="the batch's results")


class QueuedRunSerializer(serializers.Serializer):
    batchId = serializers.CharField()
    batchName = serializers.CharField()
    runId = serializers.IntegerField()
    status = serializers.CharField()
    totalTargets = serializers.IntegerField()
    skippedCount = serializers.IntegerField()
    evaluatedCount = serializers.IntegerField(allow_null=True, help_text="null until the run ends")
    errorCount = serializers.IntegerField(allow_null=True, help_text="null until the run ends")
    elapsedMs = serializers.IntegerField(allow_null=True, help_text="null until the run ends")
    plan = serializers.DictField(help_text="per metric block: compute, keep, replace, retry")
    warnings = serializers.ListField(child=serializers.JSONField())
    options = serializers.DictField(help_text="the request as run, with its defaults")


class EvaluateAnswerSerializer(serializers.Serializer):
    success = TrueField()
    data = QueuedRunSerializer()
    jobId = serializers.CharField()
    runId = serializers.IntegerField()
    links = RunLinksSerializer()


class ModelResultsSerializer(serializers.Serializer):
    modelConfig = serializers.CharField()
    trialCount = serializers.IntegerField()
    judge = serializers.JSONField(allow_null=True, help_text="the judges of its figures")
    layer3 = serializers.JSONField(allow_null=True, help_text="its BatchLayer3Results")


class TrialMetricsSerializer(serializers.Serializer):
    id = serializers.CharField()
    modelConfig = serializers.CharField()
    layer3Metrics = serializers.JSONField(allow_null=True, help_text="null: not evaluated yet")


class ResultDetailsSerializer(serializers.Serializer):
    count = serializers.IntegerField()
    page = serializers.IntegerField()
    pageSize = serializers.IntegerField()
    results = TrialMetricsSerializer(many=True)


class EvaluationSummarySerializer(serializers.Serializer):
    totalEvaluated = serializers.IntegerField()
    totalUnevaluated = serializers.IntegerField()
    avgEvaluationTimeMs = serializers.FloatField(allow_null=True)


class OutOfCatalogueTypeSerializer(serializers.Serializer):
    type = serializers.CharField(help_text="a widget type the batch's trials use outside its catalogue")
    trials = serializers.IntegerField(help_text="trials (any stage) that use it")
    widgets = serializers.IntegerField(help_text="its widgets in those trials")


class WidgetTypesSerializer(serializers.Serializer):
    catalogueSize = serializers.IntegerField(help_text="widget types in the batch's catalogue")
    availableWidgetCount = serializers.IntegerField(
        help_text="|W| of the widget entropy for every trial of the batch: the catalogue and the types outside it"
    )
    outOfCatalogue = OutOfCatalogueTypeSerializer(many=True, help_text="sorted by type")


class ResultsSerializer(serializers.Serializer):
    batchId = serializers.CharField()
    batchName = serializers.CharField()
    experimentId = serializers.CharField()
    evaluatedAt = serializers.CharField(allow_null=True, help_text="null: not evaluated yet")
    overall = serializers.JSONField(allow_null=True, help_text="BatchLayer3Results (null: not evaluated yet)")
    byModel = ModelResultsSerializer(many=True)
    summary = EvaluationSummarySerializer()
    widgetTypes = WidgetTypesSerializer(help_text="the batch's widget denominator |W| (seed 002 §2.2.4)")
    details = ResultDetailsSerializer(required=False, help_text="with includeDetails=true")


class ResultsAnswerSerializer(serializers.Serializer):
    success = TrueField()
    data = ResultsSerializer()


class StatisticsSummarySerializer(serializers.Serializer):
    layer3 = serializers.JSONField(allow_null=True, help_text="family, familySize, adjustedAlpha, ... (null: no tests)")


class StatisticsAnswerSerializer(serializers.Serializer):
    layer3Comparisons = serializers.ListField(child=serializers.DictField())
    summary = StatisticsSummarySerializer()


class CalibrationAnswerSerializer(serializers.Serializer):
    batchId = serializers.CharField()
    batchName = serializers.CharField()
    audits = serializers.ListField(child=serializers.DictField(), help_text="one report per judge audit, newest first")


class UploadedSerializer(serializers.Serializer):
    batchId = serializers.CharField(allow_null=True)
    batchName = serializers.CharField()
    id = serializers.IntegerField(allow_null=True)
    created = serializers.IntegerField()
    unchanged = serializers.IntegerField()
    widgetTypesAdded = serializers.ListField(
        child=serializers.CharField(), help_text="widget types outside the catalogue this upload adds to |W|"
    )
    recomputed = serializers.IntegerField(
        help_text="stored trials whose widget diversity changed with |W| and was recomputed (batch figures too)"
    )


class UploadAnswerSerializer(serializers.Serializer):
    success = TrueField()
    data = UploadedSerializer()
