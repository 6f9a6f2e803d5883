from django.urls import path

from layer3.panel import views

app_name = "layer3"

urlpatterns = [
    path("research/layer3/", views.batches, name="batches"),
    path("research/layer3/<int:pk>/", views.batch_page, name="batch"),
    path("research/layer3/<int:pk>/estimate/", views.run_estimate, name="run-estimate"),
    path("research/layer3/<int:pk>/runs/", views.run_start, name="run-start"),
    path("research/layer3/<int:pk>/runs/<int:run_pk>/cancel/", views.run_cancel, name="run-cancel"),
    path("research/layer3/<int:pk>/trials/", views.trials, name="trials"),
    path("research/layer3/<int:pk>/trials/<int:trial_pk>/", views.trial, name="trial"),
    path("research/layer3/<int:pk>/figures/<str:name>.<str:fmt>", views.figure, name="figure"),
    path(
        "research/layer3/<int:pk>/calibration/<int:audit_id>.<str:fmt>",
        views.calibration_download,
        name="calibration-download",
    ),
]
