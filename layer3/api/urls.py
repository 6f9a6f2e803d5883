from django.urls import path

from layer3.api import compare, progress, trials_export, views

urlpatterns = [
    path("batch/", views.batch_upload, name="layer3-api-batch-upload"),
    path("batch/<str:batch_id>/evaluate-layer3", views.evaluate_layer3, name="layer3-api-evaluate"),
    path("batch/<str:batch_id>/layer3-results", views.layer3_results, name="layer3-api-results"),
    path("batch/<str:batch_id>/layer3-export", views.layer3_export, name="layer3-api-export"),
    path(
        "batch/<str:batch_id>/export/trials.jsonl", trials_export.TrialsJsonl.as_view(), name="layer3-api-trials-jsonl"
    ),
    path("batch/<str:batch_id>/export/trials.csv", trials_export.TrialsCsv.as_view(), name="layer3-api-trials-csv"),
    path("batch/<str:batch_id>/statistics", views.statistics, name="layer3-api-statistics"),
    path("batch/<str:batch_id>/layer3-progress", progress.layer3_progress, name="layer3-api-progress"),
    path("batch/<str:batch_id>/judge-calibration", views.judge_calibration, name="layer3-api-judge-calibration"),
    path(
        "batch/<str:batch_id>/runs/<id:run_a>/compare/<id:run_b>", compare.compare_runs, name="layer3-api-compare-runs"
    ),
    path("batch/<str:batch_id>/compare-batch/<str:other_batch_id>", compare.compare_batches, name="layer3-api-compare"),
]
