from django.urls import path

from annotation import views_dashboard

urlpatterns = [
    path("research/agreement/", views_dashboard.dashboard, name="dashboard"),
    path("research/agreement/recompute/", views_dashboard.recompute, name="dashboard-recompute"),
]
