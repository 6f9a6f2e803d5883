from django.urls import path

from annotation.dashboard import views

urlpatterns = [
    path("research/agreement/", views.dashboard, name="dashboard"),
    path("research/agreement/recompute/", views.recompute, name="dashboard-recompute"),
]
