"""The annotation REST API under /api/v1/annotation/ (issue #16); every route is in the OpenAPI schema."""

from django.urls import path
from rest_framework.parsers import MultiPartParser

from annotation.api import exports
from annotation.api.annotations import AnnotationViewSet
from annotation.api.batches import BatchViewSet
from annotation.api.dialogues import BatchDialogueViewSet
from annotation.api.flags import FlagViewSet
from annotation.api.imports import RatingsImportViewSet
from annotation.api.jobs import JobViewSet
from annotation.api.queue import QueueViewSet
from annotation.api.reports import ReportViewSet
from core.api_parsers import StrictJSONParser

app_name = "annotation-api"
LIST_CREATE = {"get": "list", "post": "create"}
READ_CHANGE = {"get": "retrieve", "patch": "partial_update"}
JSON = [StrictJSONParser]  # a change is a JSON body; only a batch created with its files is multipart

urlpatterns = [
    path("batches/", BatchViewSet.as_view(LIST_CREATE, parser_classes=[*JSON, MultiPartParser]), name="batches"),
    path("batches/<id:pk>/", BatchViewSet.as_view(READ_CHANGE, parser_classes=JSON), name="batch"),
    path("batches/<id:pk>/dialogues/", BatchDialogueViewSet.as_view(LIST_CREATE), name="batch-dialogues"),
    path("batches/<id:pk>/next/", QueueViewSet.as_view({"post": "next"}), name="batch-next"),
    path("batches/<id:pk>/reports/", ReportViewSet.as_view({"post": "create"}), name="batch-reports"),
    path("batches/<id:pk>/consensus/", ReportViewSet.as_view({"get": "consensus"}), name="batch-consensus"),
    path("batches/<id:pk>/export/ratings.jsonl", exports.ratings_jsonl, name="batch-export-ratings-jsonl"),
    path("batches/<id:pk>/export/ratings.csv", exports.ratings_csv, name="batch-export-ratings-csv"),
    path("batches/<id:pk>/export/consensus.jsonl", exports.consensus_jsonl, name="batch-export-consensus-jsonl"),
    path("batches/<id:pk>/export/consensus.csv", exports.consensus_csv, name="batch-export-consensus-csv"),
    path("batches/<id:pk>/export/rejected.jsonl", exports.rejected_jsonl, name="batch-export-rejected-jsonl"),
    path("batches/<id:pk>/export/rejected.csv", exports.rejected_csv, name="batch-export-rejected-csv"),
    path("annotations/", AnnotationViewSet.as_view(LIST_CREATE), name="annotations"),
    path("annotations/import/", RatingsImportViewSet.as_view({"post": "create"}), name="annotations-import"),
    path("annotations/<id:pk>/", AnnotationViewSet.as_view(READ_CHANGE), name="annotation"),
    path("assignments/<id:pk>/skip/", QueueViewSet.as_view({"post": "skip"}), name="assignment-skip"),
    path("reports/", ReportViewSet.as_view({"get": "list"}), name="reports"),
    path("reports/<id:pk>/", ReportViewSet.as_view({"get": "retrieve"}), name="report"),
    path("flags/", FlagViewSet.as_view({"get": "list"}), name="flags"),
    path("flags/<id:pk>/", FlagViewSet.as_view({"patch": "partial_update"}), name="flag"),
    path("jobs/", JobViewSet.as_view({"get": "list"}), name="jobs"),
    path("jobs/<uuid:pk>/", JobViewSet.as_view({"get": "retrieve"}), name="job"),
]
