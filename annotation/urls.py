from django.urls import include, path

app_name = "annotation"

urlpatterns = [
    path("", include("annotation.collection.urls_queue")),
    path("", include("annotation.collection.urls_training")),
    path("", include("annotation.dashboard.urls")),
    path("", include("annotation.workspace.urls")),
    path("", include("annotation.activity.urls")),
    path("", include("annotation.feedback.urls")),
    path("", include("annotation.spreadsheets.urls")),
    path("", include("annotation.audits.urls_research")),
    path("", include("annotation.audits.urls")),
]
