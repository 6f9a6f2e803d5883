from django.urls import include, path

app_name = "annotation"

urlpatterns = [
    path("", include("annotation.urls_queue")),
    path("", include("annotation.urls_training")),
    path("", include("annotation.urls_dashboard")),
]
