from django.urls import path

from annotation.feedback import views

urlpatterns = [
    path("feedback/", views.feedback_index, name="feedback"),
    path("feedback/<int:year>-<int:month>/", views.overview, name="feedback-overview"),
    path("feedback/<int:year>-<int:month>/print/", views.overview_print, name="feedback-print"),
    path("feedback/<int:year>-<int:month>/overview.csv", views.overview_download, name="feedback-csv"),
    path("feedback/<int:year>-<int:month>/prepare/", views.prepare, name="feedback-prepare"),
    path("feedback/<int:year>-<int:month>/annotators/<str:username>/", views.annotator_page, name="feedback-annotator"),
]
