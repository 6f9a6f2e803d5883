from django.urls import path

from annotation.dashboard import downloads, views

urlpatterns = [
    path("research/agreement/", views.dashboard, name="dashboard"),
    path("research/agreement/recompute/", views.recompute, name="dashboard-recompute"),
    path("research/agreement/<int:pk>/ratings.jsonl", downloads.ratings, name="download-ratings"),
    path("research/agreement/<int:pk>/<str:part>.jsonl", downloads.consensus, name="download-consensus"),
    path("research/agreement/<int:pk>/report.json", downloads.report, name="download-report"),
]
