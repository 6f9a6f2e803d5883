"""The comparison endpoints' answers as the OpenAPI schema documents them (documentation: the views write dicts)."""

from __future__ import annotations

from rest_framework import serializers

from layer3.api.schemas import TrueField
from layer3.compare.matching import UNMATCHED_REASONS
from layer3.statistics import LAYER3_METRICS
from layer3.statistics.versions import SIDES


class VersionSideSerializer(serializers.Serializer):
    batchId = serializers.IntegerField()
    batch = serializers.CharField()
    runId = serializers.IntegerField(allow_null=True, help_text="null: the batch's latest figures")
    runStatus = serializers.CharField(allow_null=True)
    runCreatedAt = serializers.CharField(allow_null=True)
    runJudge = serializers.CharField(allow_null=True, help_text="none, baseline or llm, as the run was asked")
    runLlmModel = serializers.CharField(allow_null=True)


class MatchingSerializer(serializers.Serializer):
    rule = serializers.CharField(help_text="how trials of A and B were matched")
    pairs = serializers.IntegerField()
    pairsById = serializers.IntegerField()
    pairsByKey = serializers.IntegerField(help_text="batches: pairs matched by (input text, model config)")
    unmatchedA = serializers.IntegerField()
    unmatchedB = serializers.IntegerField()


class UnmatchedSerializer(serializers.Serializer):
    side = serializers.ChoiceField(choices=SIDES)
    trialId = serializers.CharField()
    modelConfig = serializers.CharField()
    reason = serializers.ChoiceField(choices=UNMATCHED_REASONS)


class VersionTestSerializer(serializers.Serializer):
    modelConfig = serializers.CharField()
    metric = serializers.ChoiceField(choices=LAYER3_METRICS)
    pairing = serializers.ChoiceField(
        choices=("paired", "items_unpaired", "unpaired"),
        help_text="paired over matched trials (items for McNemar); items_unpaired: the specs share no item, so the "
        "pooled counts of the matched trials are compared with the z-test; unpaired: no matched trial, §7 tests",
    )
    test = serializers.CharField(
        help_text="wilcoxon_signed_rank, mcnemar_exact, mcnemar_chi2, mann_whitney_u or two_proportion_z"
    )
    pairs = serializers.IntegerField()
    nA = serializers.IntegerField()
    nB = serializers.IntegerField()
    valueA = serializers.FloatField(allow_null=True)
    valueB = serializers.FloatField(allow_null=True)
    difference = serializers.FloatField(allow_null=True, help_text="B - A")
    statistic = serializers.FloatField(allow_null=True)
    pValue = serializers.FloatField(allow_null=True)
    adjustedPValue = serializers.FloatField(allow_null=True, help_text="Bonferroni over the family")
    significant = serializers.BooleanField()
    mark = serializers.CharField(allow_blank=True)
    effectSize = serializers.FloatField(allow_null=True)
    discordantAOnly = serializers.IntegerField(allow_null=True)
    discordantBOnly = serializers.IntegerField(allow_null=True)
    judgeA = serializers.CharField(allow_null=True)
    judgeB = serializers.CharField(allow_null=True)
    reason = serializers.CharField(allow_null=True, help_text="why the test was not performed")
    reasonCode = serializers.CharField(allow_null=True)
    reasonParams = serializers.DictField(allow_null=True)


class VersionSummarySerializer(serializers.Serializer):
    correction = serializers.CharField()
    family = serializers.CharField()
    familySize = serializers.IntegerField(help_text="11 metrics × the model configs compared")
    alpha = serializers.FloatField()
    adjustedAlpha = serializers.FloatField(allow_null=True, help_text="α′ = alpha / familySize")
    performedTests = serializers.IntegerField()
    significantCount = serializers.IntegerField()
    modelConfigs = serializers.ListField(child=serializers.CharField())
    mcnemarExactBelow = serializers.IntegerField(help_text="fewer discordant pairs: exact McNemar, else chi-square")


class ChangedTrialSerializer(serializers.Serializer):
    modelConfig = serializers.CharField()
    trialA = serializers.CharField()
    trialB = serializers.CharField()
    pkA = serializers.IntegerField()
    pkB = serializers.IntegerField()
    metric = serializers.ChoiceField(choices=LAYER3_METRICS)
    valueA = serializers.FloatField(allow_null=True)
    valueB = serializers.FloatField(allow_null=True)
    difference = serializers.FloatField(allow_null=True)
    changedItems = serializers.IntegerField(help_text="items found in both whose verdict changed")


class ComparisonSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=("runs", "batches"))
    a = VersionSideSerializer()
    b = VersionSideSerializer()
    snapshotMissing = serializers.ListField(
        child=serializers.ChoiceField(choices=SIDES),
        help_text="runs without a per-trial snapshot (ended before snapshots were kept): then no rows",
    )
    matching = MatchingSerializer()
    unmatched = UnmatchedSerializer(many=True)
    rows = VersionTestSerializer(many=True)
    summary = VersionSummarySerializer(allow_null=True)
    changed = ChangedTrialSerializer(many=True)


class ComparisonAnswerSerializer(serializers.Serializer):
    success = TrueField()
    data = ComparisonSerializer()
