from django.urls import path

from annotation.dashboard import views as views_dashboard

urlpatterns = [
    path("research/agreement/", views_dashboard.dashboard, name="dashboard"),
    path("research/agreement/recompute/", views_dashboard.recompute, name="dashboard-recompute"),
]
