from django.urls import path

from layer3.panel import batch_views, compare_views, upload_views, views

app_name = "layer3"

urlpatterns = [
    path("research/layer3/", views.batches, name="batches"),
    path("research/layer3/upload/", upload_views.upload, name="upload"),
    path("research/layer3/upload/jobs/<uuid:job_id>/", upload_views.upload_job, name="upload-job"),
    path("research/layer3/<id:pk>/", views.batch_page, name="batch"),
    path("research/layer3/<id:pk>/rename/", batch_views.batch_rename_view, name="batch-rename"),
    path("research/layer3/<id:pk>/delete/", batch_views.batch_delete_view, name="batch-delete"),
    path("research/layer3/compare/", compare_views.compare, name="compare"),
    path(
        "research/layer3/compare/trials/<id:trial_a>/<id:trial_b>/", compare_views.compare_trial, name="compare-trial"
    ),
    path("research/layer3/<id:pk>/estimate/", views.run_estimate, name="run-estimate"),
    path("research/layer3/<id:pk>/runs/", views.run_start, name="run-start"),
    path("research/layer3/<id:pk>/runs/<id:run_pk>/cancel/", views.run_cancel, name="run-cancel"),
    path("research/layer3/<id:pk>/trials/", views.trials, name="trials"),
    path("research/layer3/<id:pk>/trials/<id:trial_pk>/", views.trial, name="trial"),
    path("research/layer3/<id:pk>/figures/<str:name>.<str:fmt>", views.figure, name="figure"),
    path(
        "research/layer3/<id:pk>/calibration/<id:audit_id>.<str:fmt>",
        views.calibration_download,
        name="calibration-download",
    ),
]
